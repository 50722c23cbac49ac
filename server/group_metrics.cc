#include "server/group_metrics.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

namespace skiff::server {
namespace {

using group::GroupSnapshot;
using metrics::Exposition;

const std::vector<std::string> kByPartition{"consumergroup", "topic", "partition"};
const std::vector<std::string> kByTopic{"consumergroup", "topic"};
const std::vector<std::string> kByGroup{"consumergroup"};

struct Sums {
  double offset = 0, lag = 0;
};

// kafka_consumergroup_current_offset and _lag, then their per-topic sums.
void write_offsets(Exposition& out, const std::vector<GroupSnapshot>& groups, const EndOffsetFn& end_offset,
                   bool per_partition_series) {
  struct Row {
    metrics::LabelValues labels;
    int64_t offset;
    std::optional<int64_t> lag;
  };
  std::vector<Row> rows;
  std::map<metrics::LabelValues, Sums> sums;  // by group, then topic
  for (const auto& g : groups) {
    for (const auto& [tp, committed] : g.offsets) {
      const auto lag = consumer_lag(end_offset(tp.topic, tp.partition), committed);
      auto& s = sums[{g.group_id, tp.topic}];
      s.offset += static_cast<double>(std::max<int64_t>(committed, 0));
      s.lag += static_cast<double>(lag.value_or(0));
      if (per_partition_series) rows.push_back({{g.group_id, tp.topic, std::to_string(tp.partition)}, committed, lag});
    }
  }
  if (per_partition_series) {
    out.family("kafka_consumergroup_current_offset", "gauge", "The group's committed offset of the partition.");
    for (const auto& r : rows)
      out.sample("kafka_consumergroup_current_offset", kByPartition, r.labels, static_cast<double>(r.offset));
    out.family("kafka_consumergroup_lag", "gauge",
               "Records between the group's committed offset and the partition's log end offset.");
    for (const auto& r : rows)
      if (r.lag) out.sample("kafka_consumergroup_lag", kByPartition, r.labels, static_cast<double>(*r.lag));
  }
  out.family("kafka_consumergroup_current_offset_sum", "gauge", "The group's committed offsets of the topic, summed.");
  for (const auto& [labels, s] : sums) out.sample("kafka_consumergroup_current_offset_sum", kByTopic, labels, s.offset);
  out.family("kafka_consumergroup_lag_sum", "gauge", "The group's lag over the topic's partitions, summed.");
  for (const auto& [labels, s] : sums) out.sample("kafka_consumergroup_lag_sum", kByTopic, labels, s.lag);
}

void write_membership(Exposition& out, const std::vector<GroupSnapshot>& groups) {
  out.family("kafka_consumergroup_members", "gauge", "Members of the group, of either protocol.");
  for (const auto& g : groups)
    out.sample("kafka_consumergroup_members", kByGroup, {g.group_id}, static_cast<double>(g.members));
  out.family("skiff_consumergroup_state", "gauge",
             "The group's state, as ListGroups names it, and its protocol (classic or consumer); always 1.");
  for (const auto& g : groups)
    out.sample("skiff_consumergroup_state", {"consumergroup", "state", "protocol"}, {g.group_id, g.state, g.group_type},
               1);
}

double count(const std::vector<GroupSnapshot>& groups, const std::string& type, const char* state = nullptr) {
  return static_cast<double>(std::count_if(groups.begin(), groups.end(), [&](const GroupSnapshot& g) {
    return g.group_type == type && (state == nullptr || g.state == state);
  }));
}

// Kafka's group-coordinator-metrics: groups per protocol and per state, and
// the committed offsets. Every state is written, zero or not, as Kafka does.
void write_counts(Exposition& out, const std::vector<GroupSnapshot>& groups) {
  using group::GroupState;
  static constexpr std::array kClassicStates{GroupState::kEmpty, GroupState::kPreparingRebalance,
                                             GroupState::kCompletingRebalance, GroupState::kStable, GroupState::kDead};
  static constexpr std::array kConsumerStates{"Empty", "Assigning", "Reconciling", "Stable", "Dead"};
  static constexpr std::array kShareStates{"Empty", "Stable", "Dead"};
  const std::string group_count = "kafka_server_group_coordinator_metrics_group_count";
  out.family(group_count, "gauge", "Groups using the protocol (classic, consumer or share).");
  out.sample(group_count, {"protocol"}, {"classic"}, count(groups, "classic"));
  out.sample(group_count, {"protocol"}, {"consumer"}, count(groups, "consumer"));
  out.sample(group_count, {"protocol"}, {"share"}, count(groups, "share"));
  const std::string classic = "kafka_server_group_coordinator_metrics_classic_group_count";
  out.family(classic, "gauge", "Classic groups in the state.");
  for (auto s : kClassicStates)
    out.sample(classic, {"state"}, {group::state_name(s)}, count(groups, "classic", group::state_name(s)));
  const std::string consumer = "kafka_server_group_coordinator_metrics_consumer_group_count";
  out.family(consumer, "gauge", "Consumer groups (KIP-848's protocol) in the state.");
  for (const char* s : kConsumerStates) out.sample(consumer, {"state"}, {s}, count(groups, "consumer", s));
  const std::string share = "kafka_server_group_coordinator_metrics_share_group_count";
  out.family(share, "gauge", "Share groups (KIP-932) in the state.");
  for (const char* s : kShareStates) out.sample(share, {"state"}, {s}, count(groups, "share", s));
  double offsets = 0;
  for (const auto& g : groups) offsets += static_cast<double>(g.offsets.size());
  out.family("kafka_server_group_coordinator_metrics_offset_count", "gauge", "Committed offsets retained.");
  out.sample("kafka_server_group_coordinator_metrics_offset_count", {}, {}, offsets);
}

}  // namespace

std::optional<int64_t> consumer_lag(std::optional<int64_t> end_offset, int64_t committed) {
  if (!end_offset || committed < 0) return std::nullopt;
  return std::max<int64_t>(*end_offset - committed, 0);
}

void write_groups(Exposition& out, const std::vector<GroupSnapshot>& groups, const EndOffsetFn& end_offset,
                  bool per_partition_series) {
  write_offsets(out, groups, end_offset, per_partition_series);
  write_membership(out, groups);
  write_counts(out, groups);
}

void collect_groups(Exposition& out, group::GroupCoordinator& coordinator, const storage::LogManager& logs,
                    bool per_partition_series) {
  auto end_offset = [&logs](const std::string& topic, int32_t partition) -> std::optional<int64_t> {
    auto log = logs.get_log(topic, partition);
    if (!log) return std::nullopt;
    return log->log_end_offset().value;  // the high watermark on a single node
  };
  write_groups(out, coordinator.group_snapshots(), end_offset, per_partition_series);
}

}  // namespace skiff::server
