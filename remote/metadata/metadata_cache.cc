// Kafka's RemoteLogMetadataCache and RemoteLogLeaderEpochState semantics over
// ordered maps; see metadata_cache.h.
#include "remote/metadata/metadata_cache.h"

#include <algorithm>
#include <utility>

namespace skiff::remote {
namespace {

CacheError error(CacheError::Kind kind, std::string message) { return CacheError{kind, std::move(message)}; }

std::string transition_text(std::string_view from, std::string_view to, const std::string& what) {
  return "invalid transition from " + std::string(from) + " to " + std::string(to) + " for " + what;
}

// The last offset of `epoch` inside `m`: the next epoch's start - 1, or the segment's end.
int64_t epoch_end_offset(const RemoteLogSegmentMetadata& m, int32_t epoch) {
  auto next = m.segment_leader_epochs.upper_bound(epoch);
  return next != m.segment_leader_epochs.end() ? next->second - 1 : m.end_offset;
}

std::optional<CacheError> check_add(const RemoteLogSegmentMetadata& m, const RemoteLogSegmentMetadata* existing) {
  if (m.state != SegmentState::kCopyStarted)
    return error(CacheError::Kind::kInvalidArgument, "a new " + describe(m.id) + " must be " +
                                                         std::string(state_name(SegmentState::kCopyStarted)) +
                                                         ", not " + std::string(state_name(m.state)));
  if (m.segment_leader_epochs.empty())
    return error(CacheError::Kind::kInvalidArgument, describe(m.id) + " has no leader epochs");
  if (m.start_offset < 0 || m.end_offset < m.start_offset)
    return error(CacheError::Kind::kInvalidArgument, describe(m.id) + " has offsets " + std::to_string(m.start_offset) +
                                                         ".." + std::to_string(m.end_offset));
  if (existing && existing->state != SegmentState::kCopyStarted)
    return error(CacheError::Kind::kInvalidTransition,
                 transition_text(state_name(existing->state), state_name(m.state), describe(m.id)));
  return std::nullopt;
}

std::optional<CacheError> check_update(const SegmentUpdate& u, const RemoteLogSegmentMetadata* existing) {
  if (!existing) return error(CacheError::Kind::kNotFound, "no remote log segment metadata for " + describe(u.id));
  if (u.state == SegmentState::kCopyStarted)
    return error(CacheError::Kind::kInvalidArgument,
                 describe(u.id) + ": an update cannot be " + std::string(state_name(SegmentState::kCopyStarted)));
  if (!is_valid_transition(existing->state, u.state))
    return error(CacheError::Kind::kInvalidTransition,
                 transition_text(state_name(existing->state), state_name(u.state), describe(u.id)));
  return std::nullopt;
}

// Kafka's RemoteLogSegmentMetadata.createWithUpdates.
RemoteLogSegmentMetadata with_update(RemoteLogSegmentMetadata m, const SegmentUpdate& u) {
  m.state = u.state;
  m.event_timestamp_ms = u.event_timestamp_ms;
  m.broker_id = u.broker_id;
  m.custom_metadata = u.custom_metadata;
  return m;
}

}  // namespace

const RemoteLogSegmentMetadata* PartitionMetadata::find(const Uuid& segment_id) const {
  auto it = segments_.find(segment_id);
  return it == segments_.end() ? nullptr : &it->second;
}

std::optional<CacheError> PartitionMetadata::add(const RemoteLogSegmentMetadata& segment) {
  if (auto e = check_add(segment, find(segment.id.id))) return e;
  for (const auto& entry : segment.segment_leader_epochs) epochs_[entry.first].unreferenced.insert(segment.id.id);
  segments_[segment.id.id] = segment;
  return std::nullopt;
}

std::optional<CacheError> PartitionMetadata::update(const SegmentUpdate& u) {
  const RemoteLogSegmentMetadata* existing = find(u.id.id);
  if (auto e = check_update(u, existing)) return e;
  const RemoteLogSegmentMetadata next = with_update(*existing, u);
  switch (u.state) {
    case SegmentState::kCopyFinished:
      finish_copy(next);
      break;
    case SegmentState::kDeleteStarted:
      start_delete(next);
      break;
    case SegmentState::kDeleteFinished:
      finish_delete(next);
      break;
    case SegmentState::kCopyStarted:
      break;  // refused by check_update
  }
  return std::nullopt;
}

// RemoteLogLeaderEpochState.handleSegmentWithCopySegmentFinishedState, per epoch.
void PartitionMetadata::finish_copy(const RemoteLogSegmentMetadata& m) {
  for (const auto& [epoch, start] : m.segment_leader_epochs) {
    EpochState& st = epochs_[epoch];
    const int64_t end = epoch_end_offset(m, epoch);
    // Segments at or after this one's start, when this one reaches at least
    // as far as the epoch did, are superseded (a new leader's re-upload).
    while (!st.offset_to_id.empty() && std::prev(st.offset_to_id.end())->first >= start &&
           st.highest_offset.value_or(-1) <= end) {
      auto last = std::prev(st.offset_to_id.end());
      st.unreferenced.insert(last->second);
      st.offset_to_id.erase(last);
    }
    st.offset_to_id[start] = m.id.id;
    st.unreferenced.erase(m.id.id);
    if (!st.highest_offset || end > *st.highest_offset) st.highest_offset = end;
  }
  segments_[m.id.id] = m;
}

void PartitionMetadata::start_delete(const RemoteLogSegmentMetadata& m) {
  for (const auto& [epoch, start] : m.segment_leader_epochs) {
    EpochState& st = epochs_[epoch];
    auto it = st.offset_to_id.find(start);
    if (it != st.offset_to_id.end() && it->second == m.id.id) st.offset_to_id.erase(it);
    st.unreferenced.insert(m.id.id);
  }
  segments_[m.id.id] = m;
}

void PartitionMetadata::finish_delete(const RemoteLogSegmentMetadata& m) {
  for (const auto& entry : m.segment_leader_epochs) epochs_[entry.first].unreferenced.erase(m.id.id);
  segments_.erase(m.id.id);
}

std::optional<RemoteLogSegmentMetadata> PartitionMetadata::segment_for(int32_t leader_epoch, int64_t offset) const {
  auto st = epochs_.find(leader_epoch);
  if (st == epochs_.end()) return std::nullopt;
  auto it = st->second.offset_to_id.upper_bound(offset);
  if (it == st->second.offset_to_id.begin()) return std::nullopt;  // below every segment of the epoch
  const RemoteLogSegmentMetadata* m = find(std::prev(it)->second);
  if (!m || offset > epoch_end_offset(*m, leader_epoch)) return std::nullopt;
  return *m;
}

std::optional<RemoteLogSegmentMetadata> PartitionMetadata::segment_for(int64_t offset) const {
  for (auto it = epochs_.rbegin(); it != epochs_.rend(); ++it)
    if (auto m = segment_for(it->first, offset)) return m;
  return std::nullopt;
}

std::vector<RemoteLogSegmentMetadata> PartitionMetadata::by_start_offset(const std::vector<Uuid>& ids) const {
  std::vector<RemoteLogSegmentMetadata> out;
  out.reserve(ids.size());
  for (const Uuid& id : ids)
    if (const auto* m = find(id)) out.push_back(*m);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.start_offset < b.start_offset; });
  return out;
}

std::vector<RemoteLogSegmentMetadata> PartitionMetadata::segments() const {
  std::vector<Uuid> ids;
  ids.reserve(segments_.size());
  for (const auto& entry : segments_) ids.push_back(entry.first);
  return by_start_offset(ids);
}

std::vector<RemoteLogSegmentMetadata> PartitionMetadata::segments(int32_t leader_epoch) const {
  auto st = epochs_.find(leader_epoch);
  if (st == epochs_.end()) return {};
  std::vector<Uuid> ids(st->second.unreferenced.begin(), st->second.unreferenced.end());
  for (const auto& entry : st->second.offset_to_id) ids.push_back(entry.second);
  return by_start_offset(ids);
}

std::optional<int64_t> PartitionMetadata::highest_offset(int32_t leader_epoch) const {
  auto st = epochs_.find(leader_epoch);
  return st == epochs_.end() ? std::nullopt : st->second.highest_offset;
}

std::optional<int64_t> PartitionMetadata::highest_offset() const {
  std::optional<int64_t> out;
  for (const auto& entry : epochs_)
    if (entry.second.highest_offset && (!out || *entry.second.highest_offset > *out)) out = entry.second.highest_offset;
  return out;
}

std::optional<CacheError> MetadataCache::check(const MetadataRecord& record) const {
  if (const auto* m = std::get_if<RemoteLogSegmentMetadata>(&record)) {
    const PartitionMetadata* p = partition(m->id.partition);
    return check_add(*m, p ? p->find(m->id.id) : nullptr);
  }
  if (const auto* u = std::get_if<SegmentUpdate>(&record)) {
    const PartitionMetadata* p = partition(u->id.partition);
    return check_update(*u, p ? p->find(u->id.id) : nullptr);
  }
  if (const auto* d = std::get_if<PartitionDelete>(&record)) {
    const auto from = delete_state(d->partition);
    if (!is_valid_transition(from, d->state))
      return error(CacheError::Kind::kInvalidTransition, transition_text(from ? state_name(*from) : "no delete state",
                                                                         state_name(d->state), describe(d->partition)));
    return std::nullopt;
  }
  return error(CacheError::Kind::kInvalidArgument,
               "a RemoteLogSegmentMetadataSnapshotRecord belongs in a snapshot file, not in __remote_log_metadata");
}

std::optional<CacheError> MetadataCache::apply(const MetadataRecord& record) {
  if (auto e = check(record)) return e;
  if (const auto* m = std::get_if<RemoteLogSegmentMetadata>(&record)) return parts_[m->id.partition].add(*m);
  if (const auto* u = std::get_if<SegmentUpdate>(&record)) return parts_[u->id.partition].update(*u);
  return apply_delete(std::get<PartitionDelete>(record));
}

// RemotePartitionMetadataStore.handleRemotePartitionDeleteMetadata.
std::optional<CacheError> MetadataCache::apply_delete(const PartitionDelete& d) {
  if (d.state == PartitionDeleteState::kFinished) {
    parts_.erase(d.partition);
    delete_states_.erase(d.partition);
  } else {
    delete_states_[d.partition] = d.state;
  }
  return std::nullopt;
}

const PartitionMetadata* MetadataCache::partition(const TopicIdPartition& tp) const {
  auto it = parts_.find(tp);
  return it == parts_.end() ? nullptr : &it->second;
}

std::optional<PartitionDeleteState> MetadataCache::delete_state(const TopicIdPartition& tp) const {
  auto it = delete_states_.find(tp);
  return it == delete_states_.end() ? std::nullopt : std::optional(it->second);
}

std::vector<TopicIdPartition> MetadataCache::partitions() const {
  std::set<TopicIdPartition> out;
  for (const auto& entry : parts_)
    if (!entry.second.empty()) out.insert(entry.first);
  for (const auto& entry : delete_states_) out.insert(entry.first);
  return {out.begin(), out.end()};
}

}  // namespace skiff::remote
