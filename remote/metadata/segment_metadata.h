// The remote log's vocabulary (KIP-405), shared by the metadata manager
// (remote/metadata/), the storage manager (remote/storage/) and the remote
// log manager: which remote segment, its offsets and size, and the states a
// segment and a partition go through. Kafka's RemoteLogSegmentId,
// RemoteLogSegmentMetadata, RemoteLogSegmentState and
// RemotePartitionDeleteState, as plain values (any thread; no locking).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/uuid.h"

namespace skiff::remote {

// A partition by topic id (Kafka's TopicIdPartition). The name is kept for
// object keys and logs; equality and order are by (topic id, partition).
struct TopicIdPartition {
  Uuid topic_id;
  std::string topic;
  int32_t partition = 0;

  bool operator==(const TopicIdPartition& o) const { return topic_id == o.topic_id && partition == o.partition; }
  bool operator<(const TopicIdPartition& o) const {
    return topic_id != o.topic_id ? topic_id < o.topic_id : partition < o.partition;
  }
};

// One uploaded (or being uploaded) segment: its partition and a random id,
// new for every copy attempt (Kafka's RemoteLogSegmentId).
struct RemoteLogSegmentId {
  TopicIdPartition partition;
  Uuid id;

  bool operator==(const RemoteLogSegmentId& o) const { return partition == o.partition && id == o.id; }
};

// Kafka's RemoteLogSegmentState, with its wire ids.
enum class SegmentState : int8_t {
  kCopyStarted = 0,
  kCopyFinished = 1,
  kDeleteStarted = 2,
  kDeleteFinished = 3,
};

// Kafka's RemotePartitionDeleteState, with its wire ids.
enum class PartitionDeleteState : int8_t {
  kMarked = 0,
  kStarted = 1,
  kFinished = 2,
};

// Kafka's RemoteLogSegmentMetadata: what the metadata topic records of a
// remote segment. Offsets are inclusive at both ends, as in Kafka.
struct RemoteLogSegmentMetadata {
  RemoteLogSegmentId id;
  int64_t start_offset = 0;
  int64_t end_offset = 0;
  int64_t max_timestamp_ms = -1;
  int32_t broker_id = 0;
  int64_t event_timestamp_ms = 0;  // when this state was reached
  // leader epoch -> its first offset in this segment (a single node: epoch 0
  // or the partition's epochs as the log has them).
  std::map<int32_t, int64_t> segment_leader_epochs;
  int32_t segment_size_in_bytes = 0;
  std::optional<std::string> custom_metadata;  // what the storage manager returned from the copy
  SegmentState state = SegmentState::kCopyStarted;
  bool txn_index_empty = false;
};

std::string_view state_name(SegmentState s);          // "COPY_SEGMENT_STARTED", ... (Kafka's names)
std::string_view state_name(PartitionDeleteState s);  // "DELETE_PARTITION_MARKED", ...
// Kafka's RemoteLogSegmentState.isValidTransition (from -> to).
bool is_valid_transition(SegmentState from, SegmentState to);
// Kafka's RemotePartitionDeleteState.isValidTransition; `from` nullopt: no state yet.
bool is_valid_transition(std::optional<PartitionDeleteState> from, PartitionDeleteState to);

}  // namespace skiff::remote
