#include "server/share_metrics.h"

#include <algorithm>
#include <utility>

namespace skiff::server {
namespace {

using metrics::Exposition;

const std::vector<std::string> kShareByPartition{"group", "topic", "partition"};

struct ShareRow {
  metrics::LabelValues labels;
  const share::SharePartitionStats* stats;
  int64_t lag;
};

void share_gauge(Exposition& out, const std::string& name, const char* type, const char* help,
                 const std::vector<ShareRow>& rows, double (*value)(const ShareRow&)) {
  out.family(name, type, help);
  for (const auto& r : rows) out.sample(name, kShareByPartition, r.labels, value(r));
}

void write_share_partitions(Exposition& out, const std::vector<ShareRow>& rows) {
  share_gauge(out, "kafka_server_sharepartitionmetrics_inflightmessagecount", "gauge",
              "Records in flight (between the share-partition start and end offsets).", rows,
              [](const ShareRow& r) { return static_cast<double>(r.stats->in_flight_records); });
  share_gauge(out, "kafka_server_sharepartitionmetrics_inflightbatchcount", "gauge", "In-flight batches tracked.", rows,
              [](const ShareRow& r) { return static_cast<double>(r.stats->in_flight_batches); });
  share_gauge(out, "kafka_server_sharepartitionmetrics_acquisitionlocktimeout_total", "counter",
              "Records whose acquisition lock expired since the share partition was loaded.", rows,
              [](const ShareRow& r) { return static_cast<double>(r.stats->lock_timeouts); });
  share_gauge(out, "skiff_sharegroup_start_offset", "gauge", "The share-partition start offset.", rows,
              [](const ShareRow& r) { return static_cast<double>(r.stats->start_offset); });
  share_gauge(out, "skiff_sharegroup_lag", "gauge",
              "Records not yet delivered to completion: end offset - start offset - delivery-complete count.", rows,
              [](const ShareRow& r) { return static_cast<double>(r.lag); });
}

void share_counter(Exposition& out, const std::string& name, const char* help, const metrics::Counter& c) {
  out.family(name, "counter", help);
  out.sample(name, {}, {}, static_cast<double>(c.value()));
}

void write_share_counters(Exposition& out, const share::ShareMetrics& m, bool topic_traffic) {
  const std::string acks = "kafka_server_sharegroupmetrics_recordacknowledgements_total";
  out.family(acks, "counter", "Records acknowledged, by acknowledgement type.");
  for (int8_t t = share::ShareMetrics::kFirstAckType; t <= share::ShareMetrics::kLastAckType; ++t)
    out.sample(acks, {"ack_type"}, {share::ShareMetrics::ack_type_name(t)}, static_cast<double>(m.acknowledged(t)));
  share_counter(out, "kafka_server_sharegroupmetrics_acquisitionlocktimeout_total",
                "Records whose acquisition lock expired, all share partitions.", m.acquisition_lock_timeouts());
  if (!topic_traffic) return;  // skiff.metrics.requests.enable=false: no BrokerTopicMetrics
  const std::string topics = "kafka_server_brokertopicmetrics_";
  share_counter(out, topics + "totalsharefetchrequests_total", "Share fetches, one per topic fetched.",
                m.share_fetch_requests());
  share_counter(out, topics + "failedsharefetchrequests_total", "Share-fetched partitions answered with an error.",
                m.failed_share_fetch_requests());
  share_counter(out, topics + "totalshareacknowledgementrequests_total",
                "Acknowledgements, one per topic acknowledged.", m.share_acknowledgement_requests());
  share_counter(out, topics + "failedshareacknowledgementrequests_total", "Partitions whose acknowledgement failed.",
                m.failed_share_acknowledgement_requests());
}

}  // namespace

int64_t share_lag(int64_t end_offset, int64_t start_offset, int32_t delivery_complete_count) {
  return std::max<int64_t>(end_offset - start_offset - delivery_complete_count, 0);
}

void write_share(Exposition& out, const std::vector<share::SharePartitionStats>& partitions,
                 const share::ShareMetrics& counters, size_t sessions, int64_t session_partitions,
                 const ShareTopicFn& topic_of, bool per_partition_series, bool topic_traffic) {
  if (per_partition_series) {
    std::vector<ShareRow> rows;
    for (const auto& p : partitions) {
      auto topic = topic_of(p.tp);
      if (!topic) continue;
      rows.push_back({{p.group_id, topic->topic, std::to_string(p.tp.partition)},
                      &p,
                      share_lag(topic->end_offset, p.start_offset, p.delivery_complete_count)});
    }
    std::sort(rows.begin(), rows.end(), [](const ShareRow& a, const ShareRow& b) { return a.labels < b.labels; });
    write_share_partitions(out, rows);
  }
  write_share_counters(out, counters, topic_traffic);
  const std::string cache = "kafka_server_sharesessioncache_";
  out.family(cache + "sharesessionscount", "gauge", "Share sessions open.");
  out.sample(cache + "sharesessionscount", {}, {}, static_cast<double>(sessions));
  out.family(cache + "sharepartitionscount", "gauge", "Partitions in the share sessions, summed.");
  out.sample(cache + "sharepartitionscount", {}, {}, static_cast<double>(session_partitions));
  share_counter(out, cache + "sharesessionevictions_total", "Share sessions removed because their connection closed.",
                counters.session_evictions());
}

void collect_share(Exposition& out, share::SharePartitionManager& shares, const storage::LogManager& logs,
                   bool per_partition_series, bool topic_traffic) {
  auto topic_of = [&logs](const share::TopicIdPartition& tp) -> std::optional<ShareTopicView> {
    auto topic = logs.topic_by_id(tp.topic_id);
    auto log = topic ? logs.get_log(topic->name, tp.partition) : nullptr;
    if (!log) return std::nullopt;
    return ShareTopicView{topic->name, log->log_end_offset().value};  // the high watermark on a single node
  };
  auto partitions = per_partition_series ? shares.partition_stats() : std::vector<share::SharePartitionStats>{};
  write_share(out, partitions, shares.metrics(), shares.sessions().size(), shares.sessions().total_partitions(),
              topic_of, per_partition_series, topic_traffic);
}

}  // namespace skiff::server
