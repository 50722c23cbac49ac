// OffsetsTopic: the group coordinator's durable state on Kafka's internal,
// compacted topic `__consumer_offsets`, written through storage::Log so the
// segment files are Kafka's and its tools decode them (record format:
// offsets_log.h). A group's records go to partition
// `offsets_partition_for(group, partitions)` (common/kafka_hash.h).
//
//   - committed offsets, their tombstones, group records and group
//     tombstones: one uncompressed, non-transactional batch per call;
//   - TxnOffsetCommit offsets (KIP-447): one transactional batch with the
//     producer's id and epoch (sequence numbers continuing the partition's
//     producer state), pending until the COMMIT/ABORT control marker that
//     write_marker() appends to the same partition, as Kafka does.
//
// The topic is created (compacted, segment.bytes from
// offsets.topic.segment.bytes, offsets.topic.num.partitions partitions) on
// first use: FindCoordinator for a group (ensure_created), or the first
// write. When it already exists its own partition count is used, as Kafka's
// coordinator does. Kafka 4.4 lets an admin delete it (DeleteTopics): the
// next write creates it again, empty (the groups in memory are kept). Writes return the FlushPoints to pass to flush(),
// which fsyncs with the log's group commit (concurrent callers share one fdatasync per partition); nothing is
// acknowledged before that.
//
// Threads: load() at startup before any write; every other method may be
// called from any thread (StateTopic's rules). The caller orders a producer's pending writes with its markers (the
// coordinator's txn mutex), since the sequence is read before the append.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/offsets_replay.h"
#include "coordinator/runtime/state_topic.h"
#include "log/log_manager.h"
#include "protocol/error_codes.h"

namespace skiff::group {

inline constexpr const char* kConsumerOffsetsTopic = "__consumer_offsets";

using coordinator::FlushPoints;

struct OffsetsTopicConfig {
  int32_t partitions = 50;            // offsets.topic.num.partitions
  int32_t segment_bytes = 104857600;  // offsets.topic.segment.bytes
};

class OffsetsTopic {
 public:
  OffsetsTopic(storage::LogManager& logs, OffsetsTopicConfig config);

  // Replays every partition of the topic, if it exists, into `loaded`.
  // Returns the last pending write order used. Throws protocol::DecodeError /
  // std::runtime_error on a corrupt record.
  int64_t load(std::map<std::string, LoadedGroup>& loaded);
  // Creates the topic if it does not exist. Throws std::runtime_error.
  void ensure_created() { topic_.ensure_created(); }
  bool exists() const { return topic_.exists(); }
  int32_t partitions() const { return topic_.partitions(); }
  int32_t partition_for(const std::string& group) const;

  std::optional<FlushPoints> write_offsets(const std::string& group,
                                           const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets);
  std::optional<FlushPoints> delete_offsets(const std::string& group, const std::vector<TopicPartition>& tps);
  std::optional<FlushPoints> write_group(const GroupRecord& group);
  // ConsumerGroup* records of one group (KIP-848), in order, in one batch.
  std::optional<FlushPoints> write_consumer(const std::string& group, const std::vector<ConsumerGroupRecord>& records);
  // ShareGroup* records of one group (KIP-932), in order, in one batch.
  std::optional<FlushPoints> write_share(const std::string& group, const std::vector<ShareGroupRecord>& records);
  // StreamsGroup* records of one group (KIP-1071), in order, in one batch.
  std::optional<FlushPoints> write_streams(const std::string& group, const std::vector<StreamsGroupRecord>& records);
  // The group's tombstone, after tombstones for `tps` (its remaining offsets), in one batch.
  std::optional<FlushPoints> delete_group(const std::string& group, const std::vector<TopicPartition>& tps);
  // Pending transactional offsets of (producer_id, producer_epoch); `error`
  // gets the log's refusal (e.g. INVALID_PRODUCER_EPOCH) when it fails.
  std::optional<FlushPoints> write_pending(const std::string& group, int64_t producer_id, int16_t producer_epoch,
                                           const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets,
                                           ErrorCode* error = nullptr);
  std::optional<FlushPoints> write_marker(int32_t partition, int64_t producer_id, int16_t producer_epoch, bool commit,
                                          ErrorCode* error = nullptr);

  // Makes everything up to `points` durable. False on I/O error.
  bool flush(const FlushPoints& points) { return topic_.flush(points); }

 private:
  protocol::Uuid topic_id(const TopicPartition& tp) const;  // zero when the topic is unknown

  storage::LogManager& logs_;
  coordinator::StateTopic topic_;
};

}  // namespace skiff::group
