// Consumer-group metrics for /metrics, named as kafka-exporter
// (danielqsj/kafka_exporter) names them, so lag dashboards built on it carry
// over, plus the group coordinator's counts as Kafka 4's JMX exporter names
// them (docs/operations/metrics.md):
//   kafka_consumergroup_current_offset  {consumergroup,topic,partition} committed offset
//   kafka_consumergroup_lag             {consumergroup,topic,partition}
//       max(0, log end offset - committed offset). The log end offset is the
//       high watermark on a single node: what kafka-exporter reads (ListOffsets
//       latest, read_uncommitted), not the last stable offset.
//   kafka_consumergroup_current_offset_sum, kafka_consumergroup_lag_sum
//                                       {consumergroup,topic}
//   kafka_consumergroup_members         {consumergroup}
//   skiff_consumergroup_state           {consumergroup,state,protocol} 1
//   kafka_server_group_coordinator_metrics_group_count           {protocol}
//   kafka_server_group_coordinator_metrics_classic_group_count   {state}
//   kafka_server_group_coordinator_metrics_consumer_group_count  {state}
//   kafka_server_group_coordinator_metrics_share_group_count     {state}
//   kafka_server_group_coordinator_metrics_offset_count
// A committed offset of a partition this broker does not have (its topic
// deleted or never created) has no lag sample; nor has a negative one (no
// position), which also adds nothing to the sums. Without per-partition
// series only the per-topic sums remain of the offset families.
// Thread rules: collect_groups from any thread (the HTTP thread); it reads
// the coordinator through group_snapshots() and logs through LogManager's
// thread-safe accessors, so it may run while requests change the groups.
// It takes each group's mutex in turn, briefly, as ListGroups does, under
// the metrics registry's lock; the group code never takes that lock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/metrics.h"
#include "coordinator/group/group_coordinator.h"
#include "log/log_manager.h"

namespace skiff::server {

// A partition's end offset; nullopt: no such partition on this broker.
using EndOffsetFn = std::function<std::optional<int64_t>(const std::string& topic, int32_t partition)>;

// The lag of a committed offset: nullopt when there is no partition or no
// position to measure from; never negative.
std::optional<int64_t> consumer_lag(std::optional<int64_t> end_offset, int64_t committed);

// The families above for `groups` (sorted by group id).
void write_groups(metrics::Exposition& out, const std::vector<group::GroupSnapshot>& groups,
                  const EndOffsetFn& end_offset, bool per_partition_series);

// write_groups for the coordinator's groups and the logs' end offsets.
void collect_groups(metrics::Exposition& out, group::GroupCoordinator& coordinator, const storage::LogManager& logs,
                    bool per_partition_series);

}  // namespace skiff::server
