// Consumer-group metrics (server/group_metrics.h) from hand-made group
// snapshots: lag against the end offset (clamped at zero, absent without a
// partition or a position), the per-topic sums, members and state, the
// coordinator's counts per protocol and state, label escaping of group ids,
// and only the sums without per-partition series.
#include "server/group_metrics.h"

#include <catch2/catch.hpp>
#include <map>

using namespace skiff;
using Catch::Contains;
using group::GroupSnapshot;

namespace {

// orders-0 ends at 100, orders-1 at 5; nothing else exists.
std::optional<int64_t> end_offset(const std::string& topic, int32_t partition) {
  static const std::map<std::pair<std::string, int32_t>, int64_t> ends{{{"orders", 0}, 100}, {{"orders", 1}, 5}};
  auto it = ends.find({topic, partition});
  if (it == ends.end()) return std::nullopt;
  return it->second;
}

std::vector<GroupSnapshot> groups() {
  return {
      {"billing \"eu\" \\ 1", "classic", "Stable", 2, {{{"gone", 0}, 7}, {{"orders", 0}, 60}, {{"orders", 1}, 9}}},
      {"audit", "consumer", "Reconciling", 1, {{{"orders", 0}, -1}}},
      {"idle", "classic", "Empty", 0, {}},
      {"jobs", "share", "Stable", 3, {}},
  };
}

std::string exposition(bool per_partition_series) {
  metrics::Exposition out;
  server::write_groups(out, groups(), end_offset, per_partition_series);
  return out.text();
}

}  // namespace

TEST_CASE("group metrics: lag is end minus committed, never negative, absent without a partition or position",
          "[group_metrics]") {
  CHECK(server::consumer_lag(100, 60) == 40);
  CHECK(server::consumer_lag(100, 100) == 0);
  CHECK(server::consumer_lag(5, 9) == 0);  // committed past the end (a recreated topic)
  CHECK(server::consumer_lag(std::nullopt, 7) == std::nullopt);
  CHECK(server::consumer_lag(100, -1) == std::nullopt);
}

TEST_CASE("group metrics: per-partition offsets and lag, per-topic sums", "[group_metrics]") {
  const auto text = exposition(true);
  const std::string billing = "consumergroup=\"billing \\\"eu\\\" \\\\ 1\"";
  CHECK_THAT(text,
             Contains("kafka_consumergroup_current_offset{" + billing + ",topic=\"orders\",partition=\"0\"} 60\n"));
  CHECK_THAT(text, Contains("kafka_consumergroup_lag{" + billing + ",topic=\"orders\",partition=\"0\"} 40\n"));
  CHECK_THAT(text, Contains("kafka_consumergroup_lag{" + billing + ",topic=\"orders\",partition=\"1\"} 0\n"));
  // A partition the broker does not have: its offset, but no lag.
  CHECK_THAT(text, Contains("kafka_consumergroup_current_offset{" + billing + ",topic=\"gone\",partition=\"0\"} 7\n"));
  CHECK_THAT(text, !Contains("kafka_consumergroup_lag{" + billing + ",topic=\"gone\""));
  CHECK_THAT(text, Contains("kafka_consumergroup_current_offset_sum{" + billing + ",topic=\"orders\"} 69\n"));
  CHECK_THAT(text, Contains("kafka_consumergroup_lag_sum{" + billing + ",topic=\"orders\"} 40\n"));
  CHECK_THAT(text, Contains("kafka_consumergroup_lag_sum{" + billing + ",topic=\"gone\"} 0\n"));
  // No position: the offset as committed, no lag, nothing added to the sums.
  CHECK_THAT(text, Contains("kafka_consumergroup_current_offset{consumergroup=\"audit\",topic=\"orders\","
                            "partition=\"0\"} -1\n"));
  CHECK_THAT(text, !Contains("kafka_consumergroup_lag{consumergroup=\"audit\""));
  CHECK_THAT(text, Contains("kafka_consumergroup_current_offset_sum{consumergroup=\"audit\",topic=\"orders\"} 0\n"));
  CHECK_THAT(text, Contains("kafka_consumergroup_lag_sum{consumergroup=\"audit\",topic=\"orders\"} 0\n"));
}

TEST_CASE("group metrics: members, state and the coordinator's counts", "[group_metrics]") {
  const auto text = exposition(true);
  CHECK_THAT(text, Contains("kafka_consumergroup_members{consumergroup=\"audit\"} 1\n"));
  CHECK_THAT(text, Contains("kafka_consumergroup_members{consumergroup=\"idle\"} 0\n"));
  CHECK_THAT(text, Contains("skiff_consumergroup_state{consumergroup=\"audit\",state=\"Reconciling\","
                            "protocol=\"consumer\"} 1\n"));
  CHECK_THAT(text,
             Contains("skiff_consumergroup_state{consumergroup=\"idle\",state=\"Empty\",protocol=\"classic\"} 1\n"));
  const std::string m = "kafka_server_group_coordinator_metrics_";
  CHECK_THAT(text,
             Contains(m + "group_count{protocol=\"classic\"} 2\n" + m + "group_count{protocol=\"consumer\"} 1\n"));
  // Every state, zero or not, as Kafka's gauges.
  for (const char* line :
       {"classic_group_count{state=\"Empty\"} 1\n", "classic_group_count{state=\"PreparingRebalance\"} 0\n",
        "classic_group_count{state=\"CompletingRebalance\"} 0\n", "classic_group_count{state=\"Stable\"} 1\n",
        "classic_group_count{state=\"Dead\"} 0\n"})
    CHECK_THAT(text, Contains(m + line));
  CHECK_THAT(text, Contains(m + "consumer_group_count{state=\"Reconciling\"} 1\n"));
  CHECK_THAT(text, Contains(m + "consumer_group_count{state=\"Stable\"} 0\n"));
  CHECK_THAT(text, Contains(m + "group_count{protocol=\"share\"} 1\n"));
  CHECK_THAT(text, Contains(m + "share_group_count{state=\"Empty\"} 0\n"));
  CHECK_THAT(text, Contains(m + "share_group_count{state=\"Stable\"} 1\n"));
  CHECK_THAT(text, Contains(m + "share_group_count{state=\"Dead\"} 0\n"));
  CHECK_THAT(text, Contains(m + "offset_count 4\n"));
}

TEST_CASE("group metrics: without per-partition series only the per-topic sums remain", "[group_metrics]") {
  const auto text = exposition(false);
  CHECK_THAT(text, !Contains("kafka_consumergroup_current_offset{"));
  CHECK_THAT(text, !Contains("kafka_consumergroup_lag{"));
  CHECK_THAT(text, !Contains("# TYPE kafka_consumergroup_lag gauge"));
  CHECK_THAT(
      text, Contains("kafka_consumergroup_lag_sum{consumergroup=\"billing \\\"eu\\\" \\\\ 1\",topic=\"orders\"} 40\n"));
  CHECK_THAT(text, Contains("kafka_consumergroup_members{consumergroup=\"audit\"} 1\n"));
}
