// The remote log metadata held in memory: Kafka's RemoteLogMetadataCache
// (per partition) and RemotePartitionMetadataStore (the partitions), as the
// metadata manager (metadata_manager.h) rebuilds them from
// __remote_log_metadata and keeps them on every write. Pure logic: no I/O.
//
// Per partition, as Kafka:
//   - every segment that has not reached DELETE_SEGMENT_FINISHED, by id,
//     with its latest state (DELETE_SEGMENT_FINISHED removes it);
//   - per leader epoch, the COPY_SEGMENT_FINISHED segments by the epoch's
//     start offset in them (a later segment starting at or below an earlier
//     one's start and reaching at least as far replaces it: the replaced one
//     becomes "unreferenced", still listed so that it can be deleted), the
//     segments in other states as unreferenced, and the highest offset any
//     COPY_SEGMENT_FINISHED segment of the epoch reached (never lowered);
//   - the partition's delete state; DELETE_PARTITION_FINISHED forgets the
//     partition (its segments and its delete state).
// Transitions are RemoteLogSegmentState's and RemotePartitionDeleteState's
// (segment_metadata.h). A refused change leaves everything as it was and
// says why (CacheError): kNotFound as Kafka's RemoteResourceNotFoundException
// (an update of a segment never added), kInvalidTransition as the
// IllegalStateException cases (e.g. COPY_SEGMENT_FINISHED after
// DELETE_SEGMENT_STARTED), kInvalidArgument as IllegalArgumentException (a
// segment added in another state than COPY_SEGMENT_STARTED, an update to
// COPY_SEGMENT_STARTED, offsets or epochs that cannot be).
//
// Threads: none of its own and no locking; the manager guards it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "remote/metadata/metadata_records.h"
#include "remote/metadata/segment_metadata.h"

namespace skiff::remote {

struct CacheError {
  enum class Kind { kNotFound, kInvalidTransition, kInvalidArgument };
  Kind kind = Kind::kInvalidArgument;
  std::string message;
};

// One partition's segments (Kafka's RemoteLogMetadataCache).
class PartitionMetadata {
 public:
  // A new segment: must be COPY_SEGMENT_STARTED (again, for a segment still
  // COPY_SEGMENT_STARTED: replaces its metadata, as Kafka's self transition).
  std::optional<CacheError> add(const RemoteLogSegmentMetadata& segment);
  // A segment's next state; `update.id` names an added segment.
  std::optional<CacheError> update(const SegmentUpdate& update);

  // The COPY_SEGMENT_FINISHED segment holding `offset` in `leader_epoch`'s
  // range of it (Kafka's remoteLogSegmentMetadata(epoch, offset)).
  std::optional<RemoteLogSegmentMetadata> segment_for(int32_t leader_epoch, int64_t offset) const;
  // The same without an epoch: the highest epoch that has a COPY_SEGMENT_FINISHED
  // segment holding `offset` in its range.
  std::optional<RemoteLogSegmentMetadata> segment_for(int64_t offset) const;
  // Every segment (any state but DELETE_SEGMENT_FINISHED), by start offset.
  std::vector<RemoteLogSegmentMetadata> segments() const;
  // The segments of `leader_epoch` (Kafka's listRemoteLogSegments(epoch)), by start offset.
  std::vector<RemoteLogSegmentMetadata> segments(int32_t leader_epoch) const;
  // The highest offset a COPY_SEGMENT_FINISHED segment reached, in `leader_epoch` or in any.
  std::optional<int64_t> highest_offset(int32_t leader_epoch) const;
  std::optional<int64_t> highest_offset() const;
  const RemoteLogSegmentMetadata* find(const Uuid& segment_id) const;
  bool empty() const { return segments_.empty(); }

 private:
  struct EpochState {
    std::map<int64_t, Uuid> offset_to_id;  // COPY_SEGMENT_FINISHED segments by start offset in the epoch
    std::set<Uuid> unreferenced;           // other states, or replaced
    std::optional<int64_t> highest_offset;
  };
  void finish_copy(const RemoteLogSegmentMetadata& m);
  void start_delete(const RemoteLogSegmentMetadata& m);
  void finish_delete(const RemoteLogSegmentMetadata& m);
  std::vector<RemoteLogSegmentMetadata> by_start_offset(const std::vector<Uuid>& ids) const;

  std::map<Uuid, RemoteLogSegmentMetadata> segments_;
  std::map<int32_t, EpochState> epochs_;
};

// Every partition (Kafka's RemotePartitionMetadataStore).
class MetadataCache {
 public:
  // Applies one record of the topic (or a write about to be made): the change
  // or why not. A snapshot record is refused (kInvalidArgument): Kafka keeps
  // them in its snapshot files, never in the topic.
  std::optional<CacheError> apply(const MetadataRecord& record);
  // What apply() would say, changing nothing.
  std::optional<CacheError> check(const MetadataRecord& record) const;

  const PartitionMetadata* partition(const TopicIdPartition& tp) const;
  std::optional<PartitionDeleteState> delete_state(const TopicIdPartition& tp) const;
  // Every partition with segments or a delete state.
  std::vector<TopicIdPartition> partitions() const;

 private:
  std::optional<CacheError> apply_delete(const PartitionDelete& d);

  std::map<TopicIdPartition, PartitionMetadata> parts_;
  std::map<TopicIdPartition, PartitionDeleteState> delete_states_;
};

}  // namespace skiff::remote
