#include "coordinator/share/share_state_machine.h"

#include <algorithm>
#include <climits>

namespace skiff::sharecoord {
namespace {

OpResult fail(ErrorCode e, std::string message) { return {e, std::move(message), std::nullopt}; }

template <typename R>
R as(const OpResult& r) {
  R out;
  static_cast<OpResult&>(out) = r;
  return out;
}

}  // namespace

ShareStateMachine::ShareStateMachine(ShareCoreConfig config, ShareClock& clock, TopicPartitionCount topics)
    : config_(config), clock_(clock), topics_(std::move(topics)) {}

const ShareStateMachine::Entry* ShareStateMachine::find(const Key& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

// Kafka checks the metadata image last: the topic must exist with the partition.
std::optional<OpResult> ShareStateMachine::topic_error(const Key& key) const {
  const auto count = topics_ ? topics_(key.topic_id) : std::nullopt;
  if (!count || *count <= key.partition)
    return fail(ErrorCode::kUnknownTopicOrPartition, kUnknownTopicOrPartitionMessage);
  return std::nullopt;
}

OpResult ShareStateMachine::initialize(const Key& key, int32_t state_epoch, int64_t start_offset) {
  if (key.partition < 0) return fail(ErrorCode::kInvalidRequest, kNegativePartition);
  if (state_epoch < 0) return fail(ErrorCode::kInvalidRequest, kNegativeStateEpoch);
  const Entry* e = find(key);
  if (e && e->state_epoch && *e->state_epoch > state_epoch)
    return fail(ErrorCode::kFencedStateEpoch, kFencedStateEpochMessage);
  if (auto err = topic_error(key)) return *err;
  const int64_t now = clock_.now_ms();
  ShareRecord r{ShareRecord::Type::kSnapshot, key, {}};
  r.value.snapshot_epoch = e ? e->state.snapshot_epoch + 1 : 0;
  r.value.state_epoch = state_epoch;
  r.value.leader_epoch = 0;
  r.value.start_offset = start_offset;
  r.value.delivery_complete_count = start_offset == -1 ? -1 : 0;
  r.value.create_timestamp = now;
  r.value.write_timestamp = now;
  return {ErrorCode::kNone, {}, std::move(r)};
}

ReadResult ShareStateMachine::read(const Key& key, int32_t leader_epoch) {
  if (key.partition < 0) return as<ReadResult>(fail(ErrorCode::kInvalidRequest, kNegativePartition));
  if (leader_epoch < 0) return as<ReadResult>(fail(ErrorCode::kInvalidRequest, kNegativeLeaderEpoch));
  const Entry* e = find(key);
  if (!e) return as<ReadResult>(fail(ErrorCode::kInvalidRequest, kReadUninitialized));
  if (e->leader_epoch && *e->leader_epoch > leader_epoch)
    return as<ReadResult>(fail(ErrorCode::kFencedLeaderEpoch, kFencedLeaderEpochMessage));
  if (auto err = topic_error(key)) return as<ReadResult>(*err);
  ReadResult out;
  out.state = e->state;
  if (e->leader_epoch && *e->leader_epoch == leader_epoch) return out;
  // A new leader epoch: recorded before the answer (Kafka's
  // readStateAndMaybeUpdateLeaderEpoch writes it as a state record).
  WriteRequest w{e->state.state_epoch, leader_epoch, e->state.start_offset, e->state.delivery_complete_count, {}};
  out.record = state_record(key, e->state, w, /*update_leader_epoch=*/true);
  return out;
}

OpResult ShareStateMachine::write(const Key& key, const WriteRequest& request) {
  if (key.partition < 0) return fail(ErrorCode::kInvalidRequest, kNegativePartition);
  if (request.leader_epoch < 0) return fail(ErrorCode::kInvalidRequest, kNegativeLeaderEpoch);
  if (request.state_epoch < 0) return fail(ErrorCode::kInvalidRequest, kNegativeStateEpoch);
  const Entry* e = find(key);
  if (!e) return fail(ErrorCode::kInvalidRequest, kWriteUninitialized);
  if (e->leader_epoch && *e->leader_epoch > request.leader_epoch)
    return fail(ErrorCode::kFencedLeaderEpoch, kFencedLeaderEpochMessage);
  if (e->state_epoch && *e->state_epoch > request.state_epoch)
    return fail(ErrorCode::kFencedStateEpoch, kFencedStateEpochMessage);
  if (auto err = topic_error(key)) return *err;
  return {ErrorCode::kNone, {}, state_record(key, e->state, request, /*update_leader_epoch=*/false)};
}

// Kafka's generateShareStateRecord: the start offset never moves back; the
// delivery complete count follows the start offset it belongs to.
ShareRecord ShareStateMachine::state_record(const Key& key, const ShareState& cur, const WriteRequest& w,
                                            bool update_leader_epoch) const {
  const int32_t leader = update_leader_epoch ? w.leader_epoch : cur.leader_epoch;
  const int64_t start = std::max(w.start_offset, cur.start_offset);
  int32_t dcc = w.delivery_complete_count;
  if (w.start_offset == cur.start_offset) {
    dcc = std::max(w.delivery_complete_count, cur.delivery_complete_count);
  } else if (w.start_offset < cur.start_offset) {
    dcc = cur.delivery_complete_count;
  }
  const Entry* e = find(key);
  ShareRecord r{ShareRecord::Type::kUpdate, key, {}};
  r.value.start_offset = start;
  r.value.delivery_complete_count = dcc;
  r.value.leader_epoch = leader;
  if (e && e->updates >= config_.updates_per_snapshot) {
    const int64_t now = clock_.now_ms();
    r.type = ShareRecord::Type::kSnapshot;
    r.value.snapshot_epoch = cur.snapshot_epoch + 1;
    r.value.state_epoch = cur.state_epoch;
    r.value.batches = combine_state_batches(cur.batches, w.batches, start);
    r.value.create_timestamp = now;
    r.value.write_timestamp = now;
    return r;
  }
  r.value.snapshot_epoch = cur.snapshot_epoch;
  r.value.batches = combine_state_batches({}, w.batches, start);
  return r;
}

OpResult ShareStateMachine::remove(const Key& key) {
  if (key.partition < 0) return fail(ErrorCode::kInvalidRequest, kNegativePartition);
  if (auto err = topic_error(key)) return *err;
  if (!find(key)) return {};  // nothing to delete: success, no record
  return {ErrorCode::kNone, {}, ShareRecord{ShareRecord::Type::kTombstone, key, {}}};
}

SummaryResult ShareStateMachine::read_summary(const Key& key) const {
  if (key.partition < 0) return as<SummaryResult>(fail(ErrorCode::kInvalidRequest, kNegativePartition));
  if (auto err = topic_error(key)) return as<SummaryResult>(*err);
  SummaryResult out;
  const Entry* e = find(key);
  if (!e) return out;  // start -1, count -1, epochs 0
  out.start_offset = e->state.start_offset;
  out.delivery_complete_count = e->state.delivery_complete_count;
  out.leader_epoch = e->state.leader_epoch;
  out.state_epoch = e->state.state_epoch;
  return out;
}

// Kafka's snapshotColdPartitions: nothing when every state was already
// re-snapshotted (create != write timestamp), else a snapshot of each state
// older than the interval, keeping its create timestamp.
std::vector<ShareRecord> ShareStateMachine::snapshot_cold() {
  std::vector<ShareRecord> out;
  const bool all_cold = std::all_of(entries_.begin(), entries_.end(), [](const auto& kv) {
    return kv.second.state.create_timestamp != kv.second.state.write_timestamp;
  });
  if (all_cold) return out;
  const int64_t now = clock_.now_ms();
  for (const auto& [key, e] : entries_) {
    if (now - e.state.write_timestamp < config_.cold_snapshot_interval_ms) continue;
    ShareRecord r{ShareRecord::Type::kSnapshot, key, e.state};
    r.value.snapshot_epoch = e.state.snapshot_epoch + 1;
    r.value.write_timestamp = now;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ShareRecord> ShareStateMachine::tombstones_for_deleted_topics() const {
  std::vector<ShareRecord> out;
  if (!topics_) return out;
  std::map<Uuid, bool> exists;
  for (const auto& [key, e] : entries_) {
    auto it = exists.find(key.topic_id);
    if (it == exists.end()) it = exists.emplace(key.topic_id, topics_(key.topic_id).has_value()).first;
    if (!it->second) out.push_back({ShareRecord::Type::kTombstone, key, {}});
  }
  return out;
}

void ShareStateMachine::replay_snapshot(Entry& e, const ShareState& v) {
  e.leader_epoch = std::max(e.leader_epoch.value_or(v.leader_epoch), v.leader_epoch);
  e.state_epoch = std::max(e.state_epoch.value_or(v.state_epoch), v.state_epoch);
  e.state = v;
  if (e.updates >= config_.updates_per_snapshot) e.updates = 0;
}

// Kafka's merge: -1 keeps the start offset / leader epoch; batches combine
// and are pruned to the start offset.
void ShareStateMachine::replay_update(Entry& e, const ShareState& v) {
  e.leader_epoch = std::max(e.leader_epoch.value_or(v.leader_epoch), v.leader_epoch);
  auto& s = e.state;
  const int64_t start = v.start_offset == -1 ? s.start_offset : v.start_offset;
  s.leader_epoch = v.leader_epoch == -1 ? s.leader_epoch : v.leader_epoch;
  s.start_offset = start;
  s.delivery_complete_count = v.delivery_complete_count;
  s.batches = combine_state_batches(s.batches, v.batches, start);
  ++e.updates;
}

void ShareStateMachine::replay(int32_t partition, int64_t offset, const ShareRecord& r) {
  auto it = entries_.find(r.key);
  if (r.type == ShareRecord::Type::kUpdate) {
    if (it == entries_.end()) {  // an update with no state before: taken as is
      Entry e;
      e.leader_epoch = r.value.leader_epoch;
      e.state = r.value;
      e.state.state_epoch = 0;
      e.state.create_timestamp = e.state.write_timestamp = 0;
      e.updates = 1;
      entries_.emplace(r.key, std::move(e));
    } else {
      replay_update(it->second, r.value);
    }
    return;
  }
  if (r.type == ShareRecord::Type::kTombstone) {
    if (it != entries_.end()) entries_.erase(it);
  } else {
    replay_snapshot(it == entries_.end() ? entries_[r.key] : it->second, r.value);
  }
  auto& p = pruning_[partition];
  p.snapshots[r.key] = offset;
  int64_t low = INT64_MAX;
  for (const auto& [k, o] : p.snapshots) low = std::min(low, o);
  p.last_redundant = low;
  if (r.type == ShareRecord::Type::kTombstone) p.snapshots.erase(r.key);
}

std::optional<int64_t> ShareStateMachine::last_redundant_offset(int32_t partition) const {
  auto it = pruning_.find(partition);
  if (it == pruning_.end()) return std::nullopt;
  const int64_t v = it->second.last_redundant;
  if (v <= 0 || v == INT64_MAX) return std::nullopt;
  return v;
}

const ShareState* ShareStateMachine::state(const Key& key) const {
  const Entry* e = find(key);
  return e ? &e->state : nullptr;
}

std::optional<int32_t> ShareStateMachine::leader_epoch(const Key& key) const {
  const Entry* e = find(key);
  return e ? e->leader_epoch : std::nullopt;
}

std::optional<int32_t> ShareStateMachine::state_epoch(const Key& key) const {
  const Entry* e = find(key);
  return e ? e->state_epoch : std::nullopt;
}

int32_t ShareStateMachine::updates_since_snapshot(const Key& key) const {
  const Entry* e = find(key);
  return e ? e->updates : 0;
}

}  // namespace skiff::sharecoord
