// Share-group (KIP-932) metrics for /metrics: the share partitions this broker
// has loaded and share/share_metrics.h's counters, named as Kafka's JMX
// exporter names Kafka's (docs/operations/metrics.md):
//   kafka_server_sharepartitionmetrics_inflightmessagecount   {group,topic,partition}
//   kafka_server_sharepartitionmetrics_inflightbatchcount     {group,topic,partition}
//   kafka_server_sharepartitionmetrics_acquisitionlocktimeout_total {group,topic,partition}
//   skiff_sharegroup_start_offset                              {group,topic,partition}
//   skiff_sharegroup_lag                                       {group,topic,partition}
//       end offset - start offset - delivery-complete count, as
//       DescribeShareGroupOffsets v1 (kafka-share-groups --describe) has it;
//       the end offset is the high watermark on a single node
//   kafka_server_sharegroupmetrics_recordacknowledgements_total {ack_type}
//   kafka_server_brokertopicmetrics_totalsharefetchrequests_total,
//     ..._failedsharefetchrequests_total, ..._totalshareacknowledgementrequests_total,
//     ..._failedshareacknowledgementrequests_total   (all topics: no label)
//   kafka_server_sharesessioncache_sharesessionscount, ..._sharepartitionscount,
//     ..._sharesessionevictions_total
//   kafka_server_sharegroupmetrics_acquisitionlocktimeout_total  (all partitions)
// The per-partition families follow metrics.partition.series like the
// consumer-group ones; a partition of an unknown topic (deleted) has none.
// topic_traffic false (skiff.metrics.requests.enable=false): no
// brokertopicmetrics families, as for the other topic traffic.
// Thread rules: collect_share from any thread (the HTTP thread, under the
// registry's lock); it takes each share partition's lock in turn, briefly.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/metrics.h"
#include "log/log_manager.h"
#include "share/share_partition_manager.h"

namespace skiff::server {

// A partition's topic name and end offset; nullopt: not on this broker.
struct ShareTopicView {
  std::string topic;
  int64_t end_offset = 0;
};
using ShareTopicFn = std::function<std::optional<ShareTopicView>(const share::TopicIdPartition&)>;

// Kafka's share lag; never negative.
int64_t share_lag(int64_t end_offset, int64_t start_offset, int32_t delivery_complete_count);

// The families above from the manager's partitions and counters.
void write_share(metrics::Exposition& out, const std::vector<share::SharePartitionStats>& partitions,
                 const share::ShareMetrics& counters, size_t sessions, int64_t session_partitions,
                 const ShareTopicFn& topic_of, bool per_partition_series, bool topic_traffic = true);

// write_share over the broker's manager and logs.
void collect_share(metrics::Exposition& out, share::SharePartitionManager& shares, const storage::LogManager& logs,
                   bool per_partition_series, bool topic_traffic);

}  // namespace skiff::server
