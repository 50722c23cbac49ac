// RemoteLogMetadataManager: the durable record of which segments are in the
// object store and in which state (Kafka's TopicBasedRemoteLogMetadataManager,
// KIP-405), kept in the internal topic __remote_log_metadata through the
// coordinator runtime's StateTopic, in Kafka's record formats
// (metadata_records.h) so Kafka's tools decode it, with the state in memory
// as Kafka's RemoteLogMetadataCache keeps it (metadata_cache.h).
//
// The topic: cleanup.policy=delete, retention.ms = MetadataTopicConfig's
// (Kafka's remote.log.metadata.topic.retention.ms, default -1), the
// configured partition count (remote.log.metadata.topic.num.partitions,
// default 50; an existing topic's own count wins, as in Kafka), uncompressed.
// A user partition's records all go to one metadata partition
// (metadata_partition(), Kafka's partitioner), so their order is kept. Every
// record is keyed null, as Kafka writes them, one record per batch.
//
// Writes: validated against the state first (an invalid transition, an
// update of an unknown segment or a bad segment is refused with a clear
// error and writes nothing), then appended and flushed (fdatasync) before
// they return, then applied to the state. A write that failed at the flush
// may still be in the log: retrying it is safe (a state to itself is a valid
// transition, as Kafka's retries rely on).
// Replay (start()): every record of every partition, in order, applied as
// when it was written; a record that does not decode or fails its
// transition is logged and skipped (Kafka's consumer task logs and drops
// it), never fatal. A torn last batch was cut by the log's recovery before.
//
// Growth: the topic never compacts (Kafka's neither). Each segment costs
// four one-record batches (its COPY_SEGMENT_STARTED metadata: a 105-byte
// value in a 175-byte batch for a 6-character topic name and one epoch;
// then the COPY_SEGMENT_FINISHED, DELETE_SEGMENT_STARTED and
// DELETE_SEGMENT_FINISHED updates, ~120-byte batches): about 0.5 KiB per
// remote segment over its life, so a 1 GiB
// segment size is ~0.5 KiB of metadata per GiB tiered: with retention.ms=-1
// a year of 100 MB/s is ~1.5 GB of metadata, replayed at start. Bounded by
// retention.ms when set: then it must exceed the longest remote retention,
// or the state of a segment still remote is dropped (as in Kafka). Kafka's
// RemoteLogSegmentMetadataSnapshotRecord (api key 3) bounds Kafka's replay
// with snapshot files beside the log, not in the topic (Kafka's consumer
// refuses it in the topic); they are not kept here yet: replay reads the
// whole topic. That would be the next step if start-up replay grows long.
//
// Threads: start() once, before anything else. Then every method may be
// called from any thread: queries take a shared lock on the state; writes
// are serialised by `write_mu_` (held across the append and the fsync, so a
// write waits for the one before it; readers are not blocked by an fsync)
// and take the state's lock exclusively only to apply. Lock order:
// write_mu_, then mu_; neither is held while calling out, except the
// StateTopic (its locks are leaves).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "coordinator/runtime/state_topic.h"
#include "log/log_manager.h"
#include "log/result.h"
#include "remote/metadata/metadata_cache.h"
#include "remote/metadata/metadata_records.h"
#include "remote/metadata/segment_metadata.h"

namespace skiff::remote {

inline constexpr const char* kRemoteLogMetadataTopic = "__remote_log_metadata";

struct MetadataTopicConfig {
  int32_t partitions = 50;    // remote.log.metadata.topic.num.partitions
  int64_t retention_ms = -1;  // remote.log.metadata.topic.retention.ms
  int32_t segment_bytes = 0;  // the topic's segment size; 0: 1 GiB (Kafka's log.segment.bytes default)
  int32_t broker_id = 0;      // the BrokerId of the update and partition-delete records
};

// What start() found.
struct ReplayStats {
  int64_t records = 0;  // applied
  int64_t skipped = 0;  // undecodable or refused, each logged
};

class RemoteLogMetadataManager {
 public:
  // Throws std::invalid_argument when config.partitions is not positive.
  RemoteLogMetadataManager(storage::LogManager& logs, MetadataTopicConfig config);
  ~RemoteLogMetadataManager();
  RemoteLogMetadataManager(const RemoteLogMetadataManager&) = delete;
  RemoteLogMetadataManager& operator=(const RemoteLogMetadataManager&) = delete;

  // Opens the topic (creating it if missing) and replays it. Throws
  // std::runtime_error on an unreadable log.
  void start();

  // Error codes of the writes: kInvalidRequest for a refused change (the
  // message says which and why: "invalid transition from
  // COPY_SEGMENT_FINISHED to COPY_SEGMENT_STARTED for segment ... of ..."),
  // kUnknownTopicOrPartition for an update of a segment never added (Kafka's
  // RemoteResourceNotFoundException), the log's error when the append or the
  // flush failed, kStorageError before start().
  // A new segment; must be COPY_SEGMENT_STARTED, with at least one leader epoch.
  storage::Result<void> add_segment(const RemoteLogSegmentMetadata& segment);
  storage::Result<void> update_segment(const RemoteLogSegmentId& id, SegmentState state, int64_t event_timestamp_ms,
                                       std::optional<std::string> custom_metadata = {});
  storage::Result<void> put_partition_delete(const TopicIdPartition& tp, PartitionDeleteState state,
                                             int64_t event_timestamp_ms);

  // The COPY_SEGMENT_FINISHED segment holding `offset` (the highest leader
  // epoch's, should two epochs' segments hold it).
  std::optional<RemoteLogSegmentMetadata> segment_for_offset(const TopicIdPartition& tp, int64_t offset) const;
  // Kafka's remoteLogSegmentMetadata(tp, epoch, offset).
  std::optional<RemoteLogSegmentMetadata> segment_for_offset(const TopicIdPartition& tp, int32_t leader_epoch,
                                                             int64_t offset) const;
  // Every segment not DELETE_SEGMENT_FINISHED, any other state, by start offset.
  std::vector<RemoteLogSegmentMetadata> segments(const TopicIdPartition& tp) const;
  // Kafka's listRemoteLogSegments(tp, epoch).
  std::vector<RemoteLogSegmentMetadata> segments(const TopicIdPartition& tp, int32_t leader_epoch) const;
  // The highest end offset among COPY_SEGMENT_FINISHED segments (never lowered by deletions, as Kafka's).
  std::optional<int64_t> highest_offset(const TopicIdPartition& tp) const;
  std::optional<int64_t> highest_offset(const TopicIdPartition& tp, int32_t leader_epoch) const;
  // nullopt: none, or DELETE_PARTITION_FINISHED (which forgets the partition).
  std::optional<PartitionDeleteState> partition_delete_state(const TopicIdPartition& tp) const;
  // Every partition with a segment or a delete state.
  std::vector<TopicIdPartition> partitions() const;

  ReplayStats replay_stats() const;
  // The metadata topic's partition count (the existing topic's, once started).
  int32_t metadata_partitions() const { return topic_.partitions(); }

 private:
  storage::Result<void> write(const MetadataRecord& record, const TopicIdPartition& tp);
  void skip_compressed(int32_t partition, int64_t offset);
  void replay_record(int32_t partition, int64_t offset, std::optional<std::span<const uint8_t>> value);

  const MetadataTopicConfig config_;
  coordinator::StateTopic topic_;
  std::mutex write_mu_;           // serialises writes
  mutable std::shared_mutex mu_;  // cache_, stats_, started_
  MetadataCache cache_;
  ReplayStats stats_;
  bool started_ = false;
};

}  // namespace skiff::remote
