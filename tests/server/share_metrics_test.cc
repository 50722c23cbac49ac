// Share-group metrics (server/share_metrics.h) from hand-made share-partition
// stats and counters: Kafka's names and labels, the lag as
// DescribeShareGroupOffsets v1 computes it (never negative), partitions of
// unknown topics left out, and only the broker-wide families without
// per-partition series.
#include "server/share_metrics.h"

#include <catch2/catch.hpp>

using namespace skiff;
using Catch::Contains;

namespace {

Uuid topic_uuid(uint8_t b) {
  Uuid u;
  u.bytes[0] = b;
  return u;
}

// Topic 1 is "orders" (partition 0 ends at 100); topic 2 is gone.
std::optional<server::ShareTopicView> share_topic_of(const share::TopicIdPartition& tp) {
  if (tp.topic_id == topic_uuid(1) && tp.partition == 0) return server::ShareTopicView{"orders", 100};
  return std::nullopt;
}

std::string share_exposition(bool per_partition_series, bool topic_traffic = true) {
  std::vector<share::SharePartitionStats> parts{
      {"q \"1\"", {topic_uuid(1), 0}, 15, 2, 40, 10, 3},
      {"q2", {topic_uuid(2), 0}, 1, 1, 0, 0, 0},
  };
  share::ShareMetrics m;
  m.record_acknowledgement(1, 7);
  m.record_acknowledgement(3);
  m.share_fetch_requests().add(4);
  m.failed_share_fetch_requests().add(1);
  m.share_acknowledgement_requests().add(2);
  m.session_evictions().add(1);
  m.acquisition_lock_timeouts().add(3);
  metrics::Exposition out;
  server::write_share(out, parts, m, 2, 5, share_topic_of, per_partition_series, topic_traffic);
  return out.text();
}

}  // namespace

TEST_CASE("share metrics: lag is end - start - delivery complete, never negative", "[share_metrics]") {
  CHECK(server::share_lag(100, 40, 10) == 50);
  CHECK(server::share_lag(100, 100, 0) == 0);
  CHECK(server::share_lag(10, 8, 5) == 0);
}

TEST_CASE("share metrics: per share-partition gauges with Kafka's names and labels", "[share_metrics]") {
  const auto text = share_exposition(true);
  const std::string labels = "{group=\"q \\\"1\\\"\",topic=\"orders\",partition=\"0\"}";
  CHECK_THAT(text, Contains("kafka_server_sharepartitionmetrics_inflightmessagecount" + labels + " 15\n"));
  CHECK_THAT(text, Contains("kafka_server_sharepartitionmetrics_inflightbatchcount" + labels + " 2\n"));
  CHECK_THAT(text, Contains("kafka_server_sharepartitionmetrics_acquisitionlocktimeout_total" + labels + " 3\n"));
  CHECK_THAT(text, Contains("skiff_sharegroup_start_offset" + labels + " 40\n"));
  CHECK_THAT(text, Contains("skiff_sharegroup_lag" + labels + " 50\n"));
  CHECK_THAT(text, !Contains("group=\"q2\""));  // its topic is gone
}

TEST_CASE("share metrics: broker-wide counters and the session cache", "[share_metrics]") {
  for (bool per_partition : {true, false}) {
    const auto text = share_exposition(per_partition);
    CHECK_THAT(text, Contains("kafka_server_sharegroupmetrics_recordacknowledgements_total{ack_type=\"Accept\"} 7\n"));
    CHECK_THAT(text, Contains("kafka_server_sharegroupmetrics_recordacknowledgements_total{ack_type=\"Release\"} 0\n"));
    CHECK_THAT(text, Contains("kafka_server_sharegroupmetrics_recordacknowledgements_total{ack_type=\"Reject\"} 1\n"));
    CHECK_THAT(text, Contains("kafka_server_sharegroupmetrics_acquisitionlocktimeout_total 3\n"));
    CHECK_THAT(text, Contains("kafka_server_brokertopicmetrics_totalsharefetchrequests_total 4\n"));
    CHECK_THAT(text, Contains("kafka_server_brokertopicmetrics_failedsharefetchrequests_total 1\n"));
    CHECK_THAT(text, Contains("kafka_server_brokertopicmetrics_totalshareacknowledgementrequests_total 2\n"));
    CHECK_THAT(text, Contains("kafka_server_brokertopicmetrics_failedshareacknowledgementrequests_total 0\n"));
    CHECK_THAT(text, Contains("kafka_server_sharesessioncache_sharesessionscount 2\n"));
    CHECK_THAT(text, Contains("kafka_server_sharesessioncache_sharepartitionscount 5\n"));
    CHECK_THAT(text, Contains("kafka_server_sharesessioncache_sharesessionevictions_total 1\n"));
    CHECK(Contains("kafka_server_sharepartitionmetrics_inflightmessagecount").match(text) == per_partition);
  }
}

TEST_CASE("share metrics: no share BrokerTopicMetrics when request metrics are off", "[share_metrics]") {
  const auto text = share_exposition(true, false);
  CHECK_THAT(text, !Contains("kafka_server_brokertopicmetrics_"));
  CHECK_THAT(text, Contains("kafka_server_sharegroupmetrics_recordacknowledgements_total{ack_type=\"Accept\"} 7\n"));
}
