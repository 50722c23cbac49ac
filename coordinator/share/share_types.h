// The share coordinator's vocabulary (KIP-932): a share-partition key, its
// state batches, its durable state, and one __share_group_state record.
// Kafka: SharePartitionKey, PersisterStateBatch, ShareGroupOffset,
// CoordinatorRecord over ShareSnapshot/ShareUpdate.
//
// Threads: plain values and pure functions.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "common/uuid.h"

namespace skiff::sharecoord {

inline constexpr const char* kShareGroupStateTopic = "__share_group_state";

// One share-partition: (group id, topic id, partition).
struct Key {
  std::string group_id;
  Uuid topic_id;
  int32_t partition = 0;
  auto operator<=>(const Key&) const = default;
  // Kafka's SharePartitionKey.asCoordinatorKey: "groupId:topicId:partition",
  // the topic id in Kafka's base64 form.
  std::string coordinator_key() const;
};

// A range of offsets in one delivery state (0 Available, 2 Acknowledged,
// 4 Archived) with its delivery count.
struct StateBatch {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int8_t delivery_state = 0;
  int16_t delivery_count = 0;
  bool operator==(const StateBatch&) const = default;
};

// The state of one share-partition (Kafka's ShareGroupOffset).
struct ShareState {
  int32_t snapshot_epoch = 0;
  int32_t state_epoch = 0;
  int32_t leader_epoch = 0;
  int64_t start_offset = -1;
  int32_t delivery_complete_count = -1;
  int64_t create_timestamp = 0;
  int64_t write_timestamp = 0;
  std::vector<StateBatch> batches;
  bool operator==(const ShareState&) const = default;
};

// One record of __share_group_state. kSnapshot: the whole state (key type 0,
// ShareSnapshotValue). kUpdate: a delta (key type 1, ShareUpdateValue): its
// snapshot_epoch, leader_epoch, start_offset, delivery_complete_count and
// the changed batches; state_epoch and the timestamps are not carried.
// kTombstone: a ShareSnapshotKey with a null value (the key is deleted).
struct ShareRecord {
  enum class Type { kSnapshot, kUpdate, kTombstone };
  Type type = Type::kSnapshot;
  Key key;
  ShareState value;
  bool operator==(const ShareRecord&) const = default;
};

// Kafka's ShareCoordinatorService.partitionFor:
// Utils.abs(asCoordinatorKey().hashCode()) % partitions (partitions > 0).
int32_t partition_for(const Key& key, int32_t partitions);

// Kafka's PersisterStateBatchCombiner: `so_far` and `fresh` pruned to
// `start_offset` (batches wholly below it dropped, one straddling it cut;
// -1 prunes nothing), then merged into non-overlapping batches sorted by
// offset, where overlapping ranges take the batch with the higher delivery
// count, then the higher delivery state; adjacent equal batches coalesce.
std::vector<StateBatch> combine_state_batches(const std::vector<StateBatch>& so_far,
                                              const std::vector<StateBatch>& fresh, int64_t start_offset);

}  // namespace skiff::sharecoord
