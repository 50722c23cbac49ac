// ShareStateMachine: the share coordinator's logic (Kafka's
// ShareCoordinatorShard, over every __share_group_state partition at once):
// the state of each share-partition key and the five operations of APIs
// 83-87 with Kafka 4.4's checks, error codes and messages.
//
// An operation does not change the state: it answers and may return one
// record; the host appends it to partition_for(key), and replay()s it once
// appended, so the live state is always the replay of the log (as Kafka's
// CoordinatorRuntime replays a write operation's records). Startup replays
// the topic the same way.
//
// The records (Kafka 4.4's scheme). Initialize writes a ShareSnapshot (the
// whole state, snapshot epoch + 1). A write writes a ShareUpdate carrying
// only the batches of the request (pruned to the new start offset), merged
// on replay into the state so far; every
// share.coordinator.snapshot.update.records.per.snapshot updates it writes a
// ShareSnapshot instead (snapshot epoch + 1). Deleting writes a tombstone of
// the ShareSnapshot key. Since ShareUpdate and ShareSnapshot have different
// keys and an update carries only a delta, compaction would lose updates:
// Kafka creates __share_group_state with cleanup.policy=delete and
// retention.ms=-1, and prunes instead: last_redundant_offset(p) is the
// lowest offset of the latest snapshot of the partition's live keys (Kafka's
// ShareCoordinatorOffsetsManager); every record before it is superseded, so
// the host moves the log start there (Kafka's deleteRecords), and a replay
// from there gives the same state. snapshot_cold() writes a fresh snapshot
// of keys not written for share.coordinator.cold.partition.snapshot.interval.ms
// so that idle keys do not hold the pruning back.
//
// Threads: none; one caller at a time (the host's strand). The clock and
// the topic lookup are ports (tests pass fakes).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/share/share_types.h"
#include "protocol/error_codes.h"

namespace skiff::sharecoord {

struct ShareCoreConfig {
  int32_t updates_per_snapshot = 500;          // share.coordinator.snapshot.update.records.per.snapshot
  int64_t cold_snapshot_interval_ms = 300000;  // share.coordinator.cold.partition.snapshot.interval.ms
};

class ShareClock {
 public:
  virtual ~ShareClock() = default;
  virtual int64_t now_ms() = 0;
};

// The partition count of a topic by id; nullopt when no such topic exists
// (Kafka's metadata image check: UNKNOWN_TOPIC_OR_PARTITION).
using TopicPartitionCount = std::function<std::optional<int32_t>(const Uuid&)>;

// The answer of an operation: its error (Kafka's code and message; the
// message is empty on success) and the record to append before answering.
struct OpResult {
  ErrorCode error = ErrorCode::kNone;
  std::string message;
  std::optional<ShareRecord> record;
};

struct ReadResult : OpResult {
  ShareState state;  // on success: state_epoch, start_offset, batches (ReadShareGroupState's answer)
};

struct SummaryResult : OpResult {
  int32_t state_epoch = 0;
  int32_t leader_epoch = 0;
  int64_t start_offset = -1;
  int32_t delivery_complete_count = -1;
};

struct WriteRequest {
  int32_t state_epoch = 0;
  int32_t leader_epoch = 0;
  int64_t start_offset = -1;
  int32_t delivery_complete_count = -1;
  std::vector<StateBatch> batches;
};

// Kafka's messages.
inline constexpr const char* kNegativePartition = "The partition id cannot be a negative number.";
inline constexpr const char* kNegativeLeaderEpoch = "The leader epoch cannot be a negative number.";
inline constexpr const char* kNegativeStateEpoch = "The state epoch cannot be a negative number.";
inline constexpr const char* kWriteUninitialized = "Write operation on uninitialized share partition not allowed.";
inline constexpr const char* kReadUninitialized = "Read operation on uninitialized share partition not allowed.";
inline constexpr const char* kFencedLeaderEpochMessage =
    "The leader epoch in the request is older than the epoch on the broker.";
inline constexpr const char* kFencedStateEpochMessage =
    "The coordinator rejected the request because the state epoch did not match.";
inline constexpr const char* kUnknownTopicOrPartitionMessage = "This server does not host this topic-partition.";

class ShareStateMachine {
 public:
  ShareStateMachine(ShareCoreConfig config, ShareClock& clock, TopicPartitionCount topics);

  // InitializeShareGroupState: a snapshot with `state_epoch` and
  // `start_offset` (-1: from the partition's start), leader epoch 0, no batches.
  OpResult initialize(const Key& key, int32_t state_epoch, int64_t start_offset);
  // ReadShareGroupState: the state, fenced by the highest leader epoch seen;
  // a new leader epoch is recorded (a record) before the answer.
  ReadResult read(const Key& key, int32_t leader_epoch);
  // WriteShareGroupState: fenced by leader and state epochs; an update record
  // (or a snapshot every updates_per_snapshot updates).
  OpResult write(const Key& key, const WriteRequest& request);
  // DeleteShareGroupState: a tombstone when the key exists, else nothing.
  OpResult remove(const Key& key);
  // ReadShareGroupStateSummary: start -1, delivery complete count -1, leader
  // and state epochs 0 for an unknown key (as Kafka).
  SummaryResult read_summary(const Key& key) const;
  // Snapshots of keys whose last snapshot is older than the cold interval.
  std::vector<ShareRecord> snapshot_cold();
  // Tombstones for the keys of topics that no longer exist (Kafka's
  // maybeCleanupShareState on a metadata delta with deleted topic ids; here
  // found by asking the topic lookup).
  std::vector<ShareRecord> tombstones_for_deleted_topics() const;

  // Applies a record stored at `offset` of __share_group_state partition `partition`.
  void replay(int32_t partition, int64_t offset, const ShareRecord& record);
  // The offset before which partition `partition` holds only superseded
  // records (Kafka's lastRedundantOffset: nullopt when none or 0).
  std::optional<int64_t> last_redundant_offset(int32_t partition) const;

  // Inspection (tests).
  const ShareState* state(const Key& key) const;
  std::optional<int32_t> leader_epoch(const Key& key) const;
  std::optional<int32_t> state_epoch(const Key& key) const;
  int32_t updates_since_snapshot(const Key& key) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    ShareState state;                     // Kafka's shareStateMap
    std::optional<int32_t> leader_epoch;  // leaderEpochMap: the highest seen
    std::optional<int32_t> state_epoch;   // stateEpochMap: the highest seen
    int32_t updates = 0;                  // snapshotUpdateCount
  };
  struct Pruning {                     // ShareCoordinatorOffsetsManager of one partition
    std::map<Key, int64_t> snapshots;  // each live key's latest snapshot offset
    int64_t last_redundant = INT64_MAX;
  };

  std::optional<OpResult> topic_error(const Key& key) const;
  const Entry* find(const Key& key) const;
  ShareRecord state_record(const Key& key, const ShareState& current, const WriteRequest& request,
                           bool update_leader_epoch) const;
  void replay_snapshot(Entry& e, const ShareState& value);
  void replay_update(Entry& e, const ShareState& value);

  ShareCoreConfig config_;
  ShareClock& clock_;
  TopicPartitionCount topics_;
  std::map<Key, Entry> entries_;
  std::map<int32_t, Pruning> pruning_;
};

}  // namespace skiff::sharecoord
