// SharePartition: see the header. The structure follows Kafka 4.4's
// SharePartition (acquire, acknowledge, release, lock expiry, start-offset
// moves), without the dead-letter queue (no ARCHIVING state is entered).
#include "share/share_partition.h"

#include <algorithm>
#include <utility>

#include "common/log_escape.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::share {

namespace {

constexpr const char* kInvalidRecordStateDefault =
    "The record state is invalid. The acknowledgement of delivery could not be completed.";

ShareResult invalid_record_state(std::string message) { return {ErrorCode::kInvalidRecordState, std::move(message)}; }
ShareResult invalid_request(std::string message) { return {ErrorCode::kInvalidRequest, std::move(message)}; }

int throttle_limit(int32_t max_delivery) { return std::max(2, (max_delivery + 1) / 2); }

std::string types_to_string(const std::vector<int8_t>& types) {
  std::string s = "[";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + std::to_string(types[i]);
  return s + "]";
}

}  // namespace

const char* record_state_name(RecordState s) {
  switch (s) {
    case RecordState::kAvailable:
      return "AVAILABLE";
    case RecordState::kAcquired:
      return "ACQUIRED";
    case RecordState::kAcknowledged:
      return "ACKNOWLEDGED";
    case RecordState::kArchiving:
      return "ARCHIVING";
    case RecordState::kArchived:
      return "ARCHIVED";
  }
  return "UNKNOWN";
}

ShareResult map_persister_error(ErrorCode code, const std::string& message) {
  switch (code) {
    case ErrorCode::kNone:
      return {};
    case ErrorCode::kNotCoordinator:
    case ErrorCode::kCoordinatorNotAvailable:
    case ErrorCode::kCoordinatorLoadInProgress:
      return {ErrorCode::kCoordinatorNotAvailable, message};
    case ErrorCode::kGroupIdNotFound:
      return {ErrorCode::kGroupIdNotFound, message};
    case ErrorCode::kUnknownTopicOrPartition:
      return {ErrorCode::kUnknownTopicOrPartition, message};
    case ErrorCode::kFencedLeaderEpoch:
    case ErrorCode::kFencedStateEpoch:
      return {ErrorCode::kNotLeaderOrFollower, message};
    case ErrorCode::kSaslAuthenticationFailed:
    case ErrorCode::kUnsupportedVersion:
      return {ErrorCode::kUnknownServerError, "Unable to complete operation due to server error."};
    default:
      return {ErrorCode::kUnknownServerError, message};
  }
}

// ---- InFlightState: Kafka's InFlightState transitions ----

bool SharePartition::InFlightState::try_update(RecordState next, int delta, int32_t max_delivery,
                                               const std::string& member, bool dlq) {
  if (rollback) return false;  // an ongoing transition
  if (next == RecordState::kAvailable && delta >= 0 && delivery_count >= max_delivery)
    next = dlq ? RecordState::kArchiving : RecordState::kArchived;
  if (state == next || terminal(state) || state == RecordState::kArchiving) return false;
  if (state == RecordState::kAvailable && next != RecordState::kAcquired) return false;
  state = next;
  if (next != RecordState::kArchived && next != RecordState::kArchiving) delivery_count += delta;
  member_id = member;
  return true;
}

bool SharePartition::InFlightState::start_transition(RecordState next, int delta, int32_t max_delivery,
                                                     const std::string& member, bool dlq) {
  Rollback saved{state, delivery_count, member_id, lock_id, lock_deadline_ms, max_delivery};
  if (!try_update(next, delta, max_delivery, member, dlq)) return false;
  rollback = std::move(saved);
  return true;
}

void SharePartition::InFlightState::complete_transition(bool commit, int64_t now_ms) {
  if (!rollback) return;
  if (commit || terminal_forced) {
    lock_id = 0;
    rollback.reset();
    return;
  }
  const Rollback& prev = *rollback;
  if (lock_id != 0 && lock_deadline_ms <= now_ms) {  // the lock expired meanwhile
    state = prev.delivery_count >= prev.max_delivery_count ? RecordState::kArchived : RecordState::kAvailable;
    member_id.clear();
    lock_id = 0;
  } else {
    state = prev.state;
    member_id = prev.member_id;
  }
  rollback.reset();
}

void SharePartition::InFlightState::archive() {
  terminal_forced = true;
  state = RecordState::kArchived;
  member_id.clear();
  lock_id = 0;
}

// ---- construction, loading ----

SharePartition::SharePartition(std::string group_id, Uuid topic_id, int32_t partition, int32_t leader_epoch,
                               const ShareGroupConfigPort* config, Ports ports)
    : group_id_(std::move(group_id)),
      topic_id_(topic_id),
      partition_(partition),
      leader_epoch_(leader_epoch),
      config_(config),
      ports_(std::move(ports)) {}

ShareGroupSettings SharePartition::settings() const {
  return config_ ? config_->settings(group_id_) : ShareGroupSettings{};
}

bool SharePartition::begin_initialize() {
  if (state_ != State::kEmpty) return false;
  state_ = State::kInitializing;
  return true;
}

ShareResult SharePartition::complete_initialize(ErrorCode code, const std::string& message,
                                                const PersistedState& persisted, const OffsetLookup& offsets) {
  if (code != ErrorCode::kNone) {
    state_ = State::kFailed;
    return map_persister_error(code, message);
  }
  int64_t start = persisted.start_offset;
  if (start == -1) {
    ShareGroupSettings s = settings();
    int64_t ts = s.auto_offset_reset == AutoOffsetReset::kLatest ? -1
                 : s.auto_offset_reset == AutoOffsetReset::kEarliest
                     ? -2
                     : ports_.now_ms() - s.auto_offset_reset_duration_ms;
    start = offsets ? offsets(ts) : 0;
    if (start < 0 && offsets) start = offsets(-1);  // by_duration past every record: the end
    if (start < 0) start = 0;
  }
  start_offset_ = start;
  state_epoch_ = persisted.state_epoch;
  const std::string failed = "Failed to initialize the share partition " + group_id_ + "-" + topic_id_.to_string() +
                             ":" + std::to_string(partition_);
  int64_t gap_start = -1;
  int64_t prev_last = start - 1;
  int32_t complete = 0;
  Map loaded;
  for (const PersistedBatch& pb : persisted.batches) {
    if (pb.first_offset < start || pb.last_offset < pb.first_offset || pb.delivery_state < 0 ||
        pb.delivery_state > static_cast<int8_t>(RecordState::kArchived)) {
      state_ = State::kFailed;
      return {ErrorCode::kUnknownServerError, failed};
    }
    if (gap_start == -1 && pb.first_offset > prev_last + 1) gap_start = prev_last + 1;
    prev_last = pb.last_offset;
    InFlightState st;
    st.state = static_cast<RecordState>(pb.delivery_state);
    st.delivery_count = pb.delivery_count;
    loaded[pb.first_offset] = InFlightBatch{pb.first_offset, pb.last_offset, st, {}};
    if (terminal(st.state)) complete += static_cast<int32_t>(pb.last_offset - pb.first_offset + 1);
  }
  cached_ = std::move(loaded);
  delivery_complete_count_ = complete;
  if (!cached_.empty()) {
    find_next_fetch_offset_ = true;
    end_offset_ = cached_.rbegin()->second.last_offset;
    if (gap_start != -1) gap_window_ = GapWindow{end_offset_, gap_start};
    maybe_update_cached_state_and_offsets();
  } else {
    end_offset_ = start_offset_;
  }
  state_ = State::kActive;
  resume_dead_letters();
  return {};
}

// Kafka's maybeResumeDlqArchiving: ARCHIVING records persisted before a
// restart go to the DLQ port again.
void SharePartition::resume_dead_letters() {
  std::vector<PersistedBatch> archiving;
  for (const auto& [key, b] : cached_)
    if (!b.tracked() && b.batch->state == RecordState::kArchiving)
      archiving.push_back({b.first_offset, b.last_offset, 0, static_cast<int16_t>(b.batch->delivery_count)});
  for (const PersistedBatch& a : archiving)
    dead_letter(a.first_offset, a.last_offset, a.delivery_count,
                a.delivery_count >= max_delivery_count() ? kDlqDeliveryCountExceeded : kDlqClientReject);
}

// ---- offsets ----

int32_t SharePartition::in_flight_records() const {
  return cached_.empty() ? 0 : static_cast<int32_t>(end_offset_ - start_offset_ + 1);
}

int32_t SharePartition::records_from_start(int64_t first, int64_t last) const {
  return last >= start_offset_ ? static_cast<int32_t>(last - std::max(start_offset_, first) + 1) : 0;
}

void SharePartition::maybe_update_gap_window(int64_t offset) {
  if (!gap_window_) return;
  if (gap_window_->end_offset == end_offset_ && offset <= gap_window_->end_offset) {
    gap_window_->gap_start_offset = offset;
  } else {
    gap_window_.reset();
  }
}

int64_t SharePartition::next_fetch_offset() {
  bool empty_or_behind = cached_.empty() || start_offset_ > cached_.rbegin()->second.last_offset;
  if (!find_next_fetch_offset_) return empty_or_behind ? end_offset_ : end_offset_ + 1;
  if (empty_or_behind) {
    find_next_fetch_offset_ = false;
    return end_offset_;
  }
  int64_t next = -1;
  int64_t gap_start = gap_window_active() ? gap_window_->gap_start_offset : -1;
  for (auto& [key, b] : cached_) {
    if (gap_window_active()) {
      if (key > gap_start) {
        next = gap_start;
        break;
      }
      gap_start = std::max(b.last_offset + 1, gap_start);
    }
    if (!b.tracked()) {
      if (b.batch->state != RecordState::kAvailable || b.batch->rollback) continue;
      next = b.first_offset;
      break;
    }
    for (auto& [off, s] : b.offsets) {
      if (s.state == RecordState::kAvailable && !s.rollback) {
        next = off;
        break;
      }
    }
    if (next != -1) break;
  }
  if (next == -1) {
    find_next_fetch_offset_ = false;
    next = end_offset_ + 1;
  }
  return next;
}

bool SharePartition::can_acquire_records() {
  if (next_fetch_offset() != end_offset_ + 1) return true;
  return in_flight_records() < settings().partition_max_record_locks;
}

std::optional<SharePartition::OffsetView> SharePartition::offset_state(int64_t offset) const {
  auto it = cached_.upper_bound(offset);
  if (it == cached_.begin()) return std::nullopt;
  --it;
  const InFlightBatch& b = it->second;
  if (offset > b.last_offset) return std::nullopt;
  const InFlightState* s = nullptr;
  if (b.tracked()) {
    auto o = b.offsets.find(offset);
    if (o == b.offsets.end()) return std::nullopt;
    s = &o->second;
  } else {
    s = &*b.batch;
  }
  return OffsetView{s->state, s->delivery_count, s->member_id, s->rollback.has_value(), s->lock_id != 0};
}

bool SharePartition::per_offset(int64_t first_offset) const {
  auto it = cached_.find(first_offset);
  return it != cached_.end() && it->second.tracked();
}

// ---- locks and per-offset splitting ----

void SharePartition::lock(InFlightState& s, const std::string& member, int64_t first, int64_t last) {
  int32_t ms = settings().record_lock_duration_ms;
  s.lock_id = next_lock_id_++;
  s.lock_deadline_ms = ports_.now_ms() + ms;
  uint64_t id = s.lock_id;
  if (ports_.schedule) {
    ports_.schedule(ms, [this, member, first, last, id] { on_lock_timeout(member, first, last, id); });
  }
}

// Kafka's maybeInitializeOffsetStateUpdate(): every offset takes the batch's
// state, lock and pending transition (the batch's timer still covers them).
void SharePartition::split(InFlightBatch& b) {
  if (b.tracked()) return;
  for (int64_t o = b.first_offset; o <= b.last_offset; ++o) b.offsets.emplace(o, *b.batch);
  b.batch.reset();
}

// Record-limit acquisition: offsets up to last_acquired stay ACQUIRED under
// the batch's lock, the rest go back to AVAILABLE with the count undone.
void SharePartition::split_record_limit(InFlightBatch& b, int64_t last_acquired, int32_t) {
  InFlightState acquired = *b.batch;
  InFlightState rest;
  rest.state = RecordState::kAvailable;
  rest.delivery_count = acquired.delivery_count - 1;
  for (int64_t o = b.first_offset; o <= b.last_offset; ++o) b.offsets.emplace(o, o <= last_acquired ? acquired : rest);
  b.batch.reset();
}

namespace {
std::vector<PersistedBatch> archiving_of(const std::vector<PersistedBatch>& writes) {
  std::vector<PersistedBatch> out;
  for (const PersistedBatch& w : writes)
    if (w.delivery_state == static_cast<int8_t>(RecordState::kArchiving)) out.push_back(w);
  return out;
}
}  // namespace

void SharePartition::on_lock_timeout(const std::string& member, int64_t first, int64_t last, uint64_t lock_id) {
  auto it = cached_.upper_bound(first);
  if (it == cached_.begin()) return;
  --it;
  std::vector<PersistedBatch> writes;
  uint64_t timed_out = 0;
  int32_t max_delivery = max_delivery_count();
  const bool dlq = dlq_enabled();
  auto release = [&](InFlightState& s, int64_t f, int64_t l) {
    if (s.state != RecordState::kAcquired || s.lock_id != lock_id) return;
    RecordState next = l < start_offset_ ? RecordState::kArchived : RecordState::kAvailable;
    if (!s.try_update(next, 0, max_delivery, "", dlq)) return;
    s.lock_id = 0;
    timed_out += static_cast<uint64_t>(l - f + 1);
    writes.push_back({f, l, static_cast<int8_t>(s.state), static_cast<int16_t>(s.delivery_count)});
    if (s.state != RecordState::kArchived) find_next_fetch_offset_ = true;
    if (terminal(s.state)) delivery_complete_count_ += records_from_start(f, l);
  };
  for (; it != cached_.end() && it->first <= last; ++it) {
    InFlightBatch& b = it->second;
    if (!b.tracked() && b.batch->state == RecordState::kAcquired && start_offset_within(b.first_offset, b.last_offset))
      split(b);
    if (!b.tracked()) {
      release(*b.batch, b.first_offset, b.last_offset);
      continue;
    }
    for (auto o = b.offsets.lower_bound(first); o != b.offsets.end() && o->first <= last; ++o)
      release(o->second, o->first, o->first);
  }
  (void)member;
  lock_timeouts_ += timed_out;
  if (timed_out > 0 && ports_.on_lock_timeout) ports_.on_lock_timeout(timed_out);
  if (!writes.empty()) persist_lock_timeouts(std::move(writes));
}

// Persists what expired locks changed; records at the delivery limit go to
// the DLQ once ARCHIVING is written (or its write failed).
void SharePartition::persist_lock_timeouts(std::vector<PersistedBatch> writes) {
  std::vector<PersistedBatch> archiving = archiving_of(writes);
  write_changes(std::move(writes), [this, archiving](ErrorCode code, const std::string& message) {
    if (code != ErrorCode::kNone)
      coordinator::log().debug("share partition {}: lock-timeout write failed: {}", group_id_, message);
    maybe_update_cached_state_and_offsets();
    // Not rolled back on a failed write (Kafka's timeout path): ARCHIVING either way.
    for (const PersistedBatch& a : archiving)
      dead_letter(a.first_offset, a.last_offset, a.delivery_count, kDlqDeliveryCountExceeded);
  });
  notify(true);
}

// ---- persisting ----

void SharePartition::write_changes(std::vector<PersistedBatch> batches,
                                   std::function<void(ErrorCode, std::string)> done) {
  PersistedState update;
  update.state_epoch = state_epoch_;
  update.leader_epoch = leader_epoch_;
  update.start_offset = start_offset_;
  update.delivery_complete_count = delivery_complete_count_;
  update.batches = std::move(batches);
  if (!ports_.write) {
    done(ErrorCode::kNone, "");
    return;
  }
  ports_.write(update, std::move(done));
}

void SharePartition::for_each_changed(const PendingChange& c, const std::function<void(InFlightState&)>& fn) {
  auto it = cached_.find(c.batch_key);
  if (it == cached_.end()) return;  // gone: the start offset moved past it
  InFlightBatch& b = it->second;
  if (!b.tracked()) {
    if (c.whole_batch) fn(*b.batch);
    return;
  }
  for (auto o = b.offsets.lower_bound(c.first_offset); o != b.offsets.end() && o->first <= c.last_offset; ++o)
    fn(o->second);
}

void SharePartition::rollback_or_write(ShareResult error, std::vector<PendingChange> changes,
                                       std::function<void(ShareResult)> done) {
  auto roll_back = [this](const std::vector<PendingChange>& cs) {
    int64_t now = ports_.now_ms();
    for (const PendingChange& c : cs) {
      RecordState written = static_cast<RecordState>(c.persisted.delivery_state);
      auto it = cached_.find(c.batch_key);
      bool whole = it != cached_.end() && !it->second.tracked();
      for_each_changed(c, [&](InFlightState& s) {
        s.complete_transition(false, now);
        if (s.state == RecordState::kAvailable) find_next_fetch_offset_ = true;
        if (terminal(written) && !terminal(s.state))
          delivery_complete_count_ -= whole ? records_from_start(c.first_offset, c.last_offset) : 1;
      });
    }
  };
  if (!error.ok()) {
    roll_back(changes);
    done(std::move(error));
    return;
  }
  if (changes.empty()) {
    done({});
    return;
  }
  std::vector<PersistedBatch> batches;
  batches.reserve(changes.size());
  for (const PendingChange& c : changes) batches.push_back(c.persisted);
  write_changes(std::move(batches), [this, changes = std::move(changes), done = std::move(done), roll_back](
                                        ErrorCode code, const std::string& message) {
    if (code != ErrorCode::kNone) {
      roll_back(changes);
      done(map_persister_error(code, message));
      return;
    }
    int64_t now = ports_.now_ms();
    for (const PendingChange& c : changes) {
      for_each_changed(c, [&](InFlightState& s) {
        s.complete_transition(true, now);
        if (s.state == RecordState::kAvailable) find_next_fetch_offset_ = true;
      });
    }
    bool moved = maybe_update_cached_state_and_offsets();
    done({});
    notify(moved);
    for (const PendingChange& c : changes)
      if (c.dlq_cause)
        dead_letter(c.persisted.first_offset, c.persisted.last_offset, c.persisted.delivery_count, c.dlq_cause);
  });
}

// ---- the dead-letter queue (KIP-1191) ----

void SharePartition::dead_letter(int64_t first, int64_t last, int16_t delivery_count, const char* cause) {
  if (!ports_.dead_letter) {
    archive_after_dead_letter(first, last, delivery_count);
    return;
  }
  DeadLetterRecords r{group_id_, topic_id_, partition_, first, last, delivery_count, cause};
  ports_.dead_letter(std::move(r),
                     [this, first, last, delivery_count] { archive_after_dead_letter(first, last, delivery_count); });
}

// The port is done (written or not, as Kafka: "proceeding to ARCHIVED
// regardless"): ARCHIVING -> ARCHIVED, persisted.
void SharePartition::archive_after_dead_letter(int64_t first, int64_t last, int16_t delivery_count) {
  auto it = cached_.upper_bound(first);
  if (it != cached_.begin()) --it;
  bool any = false;
  auto archive = [&](InFlightState& s, int64_t f, int64_t l) {
    if (s.state != RecordState::kArchiving) return;
    s.archive();
    delivery_complete_count_ += records_from_start(f, l);
    any = true;
  };
  for (; it != cached_.end() && it->first <= last; ++it) {
    InFlightBatch& b = it->second;
    if (b.last_offset < first) continue;
    if (!b.tracked()) {
      archive(*b.batch, b.first_offset, b.last_offset);
      continue;
    }
    for (auto o = b.offsets.lower_bound(first); o != b.offsets.end() && o->first <= last; ++o)
      archive(o->second, o->first, o->first);
  }
  if (!any) return;  // gone meanwhile (the start offset moved past them)
  PersistedBatch archived{first, last, static_cast<int8_t>(RecordState::kArchived), delivery_count};
  write_changes({archived}, [this](ErrorCode code, const std::string& message) {
    if (code != ErrorCode::kNone)
      coordinator::log().error("share partition {}: could not persist ARCHIVED state: {}", escaped(group_id_),
                               escaped(message));
    notify(maybe_update_cached_state_and_offsets());
  });
}

// ---- start offset ----

bool SharePartition::can_move_start_offset() const {
  if (cached_.empty()) return false;
  auto it = cached_.upper_bound(start_offset_);
  if (it == cached_.begin()) return false;  // an acquirable gap at the beginning
  --it;
  const InFlightBatch& b = it->second;
  const InFlightState* s = nullptr;
  if (!b.tracked()) {
    s = &*b.batch;
  } else {
    auto o = b.offsets.find(start_offset_);
    if (o == b.offsets.end()) return false;
    s = &o->second;
  }
  return !s->rollback && terminal(s->state);
}

bool SharePartition::maybe_update_cached_state_and_offsets() {
  if (!can_move_start_offset()) return false;
  int64_t last_acked = -1;
  int32_t n_terminal = 0;
  bool stop = false;
  for (auto& [key, b] : cached_) {
    if (gap_window_active() && b.last_offset >= gap_window_->gap_start_offset) break;
    if (!b.tracked()) {
      if (b.batch->rollback || !terminal(b.batch->state)) break;
      last_acked = b.last_offset;
      n_terminal += records_from_start(b.first_offset, b.last_offset);
      continue;
    }
    for (auto& [off, s] : b.offsets) {
      if (s.rollback || !terminal(s.state)) {
        stop = true;
        break;
      }
      last_acked = off;
      if (off >= start_offset_) ++n_terminal;
    }
    if (stop) break;
  }
  if (last_acked == -1) return false;
  int64_t last_cached = cached_.rbegin()->second.last_offset;
  if (last_acked == last_cached) {
    start_offset_ = end_offset_ = last_cached + 1;
    cached_.clear();
    delivery_complete_count_ = 0;
    return true;
  }
  auto entry = std::prev(cached_.upper_bound(last_acked));
  Map::iterator erase_end;  // exclusive
  if (last_acked == entry->second.last_offset) {
    int64_t higher = std::next(entry)->first;
    if (higher > start_offset_) start_offset_ = higher;
    if (gap_window_active()) start_offset_ = std::min(gap_window_->gap_start_offset, start_offset_);
    erase_end = std::next(entry);
  } else {
    if (last_acked + 1 > start_offset_) start_offset_ = last_acked + 1;
    erase_end = entry;
  }
  delivery_complete_count_ -= n_terminal;
  cached_.erase(cached_.begin(), erase_end);
  return true;
}

void SharePartition::update_cache_and_offsets(int64_t log_start_offset) {
  if (log_start_offset <= start_offset_) return;
  if (cached_.empty()) {
    start_offset_ = end_offset_ = log_start_offset;
    delivery_complete_count_ = 0;
    return;
  }
  int32_t removed = 0;  // terminal records below the new start
  for (auto& [key, b] : cached_) {
    if (key >= log_start_offset) break;
    if (b.last_offset < start_offset_) continue;
    if (!b.tracked()) {
      int64_t f = std::max(start_offset_, b.first_offset), l = std::min(log_start_offset - 1, b.last_offset);
      if (terminal(b.batch->state) && f <= l) removed += static_cast<int32_t>(l - f + 1);
      continue;
    }
    for (auto& [off, s] : b.offsets)
      if (off >= start_offset_ && off < log_start_offset && terminal(s.state)) ++removed;
  }
  if (archive_range(start_offset_, log_start_offset, cached_.begin()->first, RecordState::kAvailable, false))
    find_next_fetch_offset_ = true;
  start_offset_ = log_start_offset;
  delivery_complete_count_ -= removed;
  if (end_offset_ < start_offset_) end_offset_ = start_offset_;
}

// Archives the records in [first, end_exclusive) that are in `initial`,
// over the batches from map_from on (Kafka's archiveRecords).
bool SharePartition::archive_range(int64_t first, int64_t end_exclusive, int64_t map_from, RecordState initial,
                                   bool count) {
  bool any = false;
  for (auto it = cached_.lower_bound(map_from); it != cached_.end() && it->first < end_exclusive; ++it) {
    InFlightBatch& b = it->second;
    bool full = b.first_offset >= first && b.last_offset <= end_exclusive - 1;
    if (!full || b.tracked()) {
      if (!b.tracked()) {
        if (b.batch->state != initial) continue;
        split(b);
      }
      for (auto& [off, s] : b.offsets) {
        if (off < first) continue;
        if (off > end_exclusive - 1) break;
        if (s.state != initial) continue;
        s.archive();
        if (count) ++delivery_complete_count_;
        any = true;
      }
      continue;
    }
    if (b.batch->state == initial) {
      b.batch->archive();
      if (count) delivery_complete_count_ += static_cast<int32_t>(b.last_offset - b.first_offset + 1);
      any = true;
    }
  }
  return any;
}

void SharePartition::archive_stale(int64_t fetch_offset, int64_t base_offset) {
  if (cached_.empty() || fetch_offset >= base_offset) return;
  int64_t floor = fetch_offset;
  auto it = cached_.upper_bound(fetch_offset);
  if (it != cached_.begin() && std::prev(it)->second.last_offset >= fetch_offset) floor = std::prev(it)->first;
  auto from = cached_.lower_bound(floor);
  if (from == cached_.end() || from->first >= base_offset) return;
  if (archive_range(fetch_offset, base_offset, floor, RecordState::kAvailable, true)) find_next_fetch_offset_ = true;
}

// ---- acquisition ----

namespace {

// Kafka's lastOffsetFromBatchWithRequestOffset: the end of the batch that
// holds `offset`, so a batch-optimized acquisition ends on a batch boundary.
int64_t last_offset_of_batch_with(std::span<const FetchedBatch> batches, int64_t offset) {
  const FetchedBatch* prev = nullptr;
  for (const FetchedBatch& b : batches) {
    if (offset < b.base_offset) break;
    prev = &b;
  }
  return prev && offset <= prev->last_offset ? prev->last_offset : offset;
}

// Kafka's ShareFetchUtils.accumulateAcquiredRecords: adjacent single offsets
// with one delivery count become one range.
void accumulate(std::vector<AcquiredRecords>& out, const std::vector<AcquiredRecords>& offsets) {
  if (offsets.empty()) return;
  AcquiredRecords cur = offsets[0];
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i].first_offset == cur.last_offset + 1 && offsets[i].delivery_count == cur.delivery_count) {
      cur.last_offset = offsets[i].last_offset;
      continue;
    }
    out.push_back(cur);
    cur = offsets[i];
  }
  out.push_back(cur);
}

// Kafka's filterRecordBatchesFromAcquiredRecords: cuts the archived batches
// (sorted, disjoint) out of the acquired ranges.
std::vector<AcquiredRecords> cut_out(const std::vector<AcquiredRecords>& acquired,
                                     const std::vector<FetchedBatch>& removed) {
  if (removed.empty()) return acquired;
  std::vector<AcquiredRecords> result;
  size_t ri = 0;
  for (AcquiredRecords a : acquired) {
    bool keep = true;
    while (ri < removed.size() && a.first_offset <= a.last_offset) {
      const FetchedBatch& r = removed[ri];
      if (a.last_offset < r.base_offset) break;
      if (r.last_offset < a.first_offset) {
        ++ri;
        continue;
      }
      if (a.first_offset < r.base_offset) result.push_back({a.first_offset, r.base_offset - 1, a.delivery_count});
      if (a.last_offset <= r.last_offset) {
        keep = false;
        break;
      }
      a.first_offset = r.last_offset + 1;
      ++ri;
    }
    if (keep && a.first_offset <= a.last_offset) result.push_back(a);
  }
  return result;
}

}  // namespace

ShareAcquiredRecords SharePartition::acquire(const std::string& member, AcquireMode mode, int32_t batch_size,
                                             int32_t max_fetch_records, int64_t fetch_offset,
                                             std::span<const FetchedBatch> batches,
                                             std::span<const AbortedTransaction> aborted, bool read_committed) {
  if (state_ != State::kActive || max_fetch_records <= 0 || batches.empty()) return {};
  if (batches.back().last_offset < start_offset_) return {};
  AcquireArgs args{
      member, mode == AcquireMode::kRecordLimit, batch_size, batches.front().base_offset, batches.back().last_offset,
      batches};
  int32_t max_records = acquire_limit(fetch_offset, max_fetch_records, args.last_to_acquire);
  if (max_records <= 0) return {};
  archive_stale(fetch_offset, args.first_base);
  int64_t base = args.first_base;
  auto fl = cached_.upper_bound(base);
  if (fl == cached_.begin()) {
    if (base < start_offset_) base = start_offset_;
  } else if (std::prev(fl)->second.last_offset >= base) {
    base = std::prev(fl)->first;
  }
  std::vector<int64_t> keys;
  for (auto it = cached_.lower_bound(std::min(args.first_base, base));
       it != cached_.end() && it->first <= args.last_to_acquire; ++it)
    keys.push_back(it->first);
  ShareAcquiredRecords out =
      keys.empty() ? acquire_new(member, batches, args.rl, base, args.last_to_acquire, batch_size, max_records)
                   : acquire_over(args, keys, base, max_records);
  if (!read_committed || aborted.empty() || out.records.empty()) return out;
  out.records = filter_aborted(batches, out.records, aborted);
  out.count = 0;
  for (const AcquiredRecords& r : out.records) out.count += static_cast<int32_t>(r.last_offset - r.first_offset + 1);
  return out;
}

// Kafka's lastOffsetAndMaxRecordsToAcquire: the records the max record locks
// still allow; at the limit, a fetch among the in-flight batches may still
// take released ones.
int32_t SharePartition::acquire_limit(int64_t fetch_offset, int32_t max_fetch_records, int64_t& last_to_acquire) {
  int64_t max_records =
      std::min<int64_t>(max_fetch_records, int64_t{settings().partition_max_record_locks} - in_flight_records());
  if (max_records <= 0 && fetch_offset <= end_offset_) {
    max_records = std::min<int64_t>(max_fetch_records, end_offset_ - fetch_offset + 1);
    last_to_acquire = std::min(last_to_acquire, end_offset_);
  }
  return static_cast<int32_t>(max_records);
}

// Acquisition over the in-flight batches `keys` (and the gaps around them).
ShareAcquiredRecords SharePartition::acquire_over(const AcquireArgs& a, const std::vector<int64_t>& keys, int64_t base,
                                                  int32_t max_records) {
  std::vector<AcquiredRecords> result;
  int32_t acquired = 0;
  int64_t gap_start = base;
  auto take_new = [&](int64_t first, int64_t last) {
    ShareAcquiredRecords r = acquire_new(a.member, a.batches, a.rl, first, last, a.batch_size, max_records - acquired);
    result.insert(result.end(), r.records.begin(), r.records.end());
    acquired += r.count;
  };
  for (int64_t key : keys) {
    if (acquired >= max_records) break;
    if (gap_window_active()) {
      if (gap_start < key) take_new(gap_start, key - 1);
      gap_start = cached_.at(key).last_offset + 1;
      if (acquired >= max_records) break;
    }
    if (!acquire_batch(a, cached_.at(key), max_records, acquired, result)) {
      max_records = 0;
      break;
    }
  }
  int64_t last_cached = cached_.at(keys.back()).last_offset;
  if (acquired < max_records && last_cached < a.last_to_acquire) take_new(last_cached + 1, a.last_to_acquire);
  if (!result.empty()) maybe_update_gap_window(result.back().last_offset + 1);
  return {std::move(result), acquired};
}

// One in-flight batch of an acquisition: whole, or offset by offset when it
// is tracked per offset, partly requested, over a record limit or
// throttled. False: stop the acquisition here (throttled delivery).
bool SharePartition::acquire_batch(const AcquireArgs& a, InFlightBatch& b, int32_t max_records, int32_t& acquired,
                                   std::vector<AcquiredRecords>& result) {
  bool full = b.first_offset >= a.first_base && b.last_offset <= a.last_to_acquire;
  int32_t remaining = max_records - acquired;
  bool rl_subset = a.rl && b.last_offset - b.first_offset + 1 > remaining;
  bool thr = throttle(b, a.first_base, a.last_to_acquire);
  if (thr && acquired > 0) return false;
  if (!full || b.tracked() || rl_subset || thr) {
    if (!b.tracked()) {
      if (b.batch->state != RecordState::kAvailable || b.batch->rollback) return true;
      split(b);
    }
    int32_t n = acquire_subset(a.member, a.rl, remaining, a.first_base, a.last_to_acquire, b, result);
    acquired += n;
    return !(thr && n > 0);
  }
  InFlightState& s = *b.batch;
  if (s.state != RecordState::kAvailable || s.rollback) return true;
  if (!s.try_update(RecordState::kAcquired, 1, max_delivery_count(), a.member) || s.state != RecordState::kAcquired)
    return true;
  lock(s, a.member, b.first_offset, b.last_offset);
  result.push_back({b.first_offset, b.last_offset, static_cast<int16_t>(s.delivery_count)});
  acquired += static_cast<int32_t>(b.last_offset - b.first_offset + 1);
  return true;
}

ShareAcquiredRecords SharePartition::acquire_new(const std::string& member, std::span<const FetchedBatch> batches,
                                                 bool rl, int64_t first, int64_t last, int32_t batch_size,
                                                 int32_t max_records) {
  int64_t first_acq = first;
  if (cached_.empty() && end_offset_ > first_acq) first_acq = end_offset_;
  int64_t last_acq = last;
  if (max_records < last_acq - first_acq + 1) {
    last_acq = last_offset_of_batch_with(batches, first_acq + max_records - 1);
    if (gap_window_active() && last_acq > last) last_acq = last;
  }
  if (first_acq > last_acq || max_records <= 0) return {};
  // Kafka's createBatches: batch-optimized acquisitions are cut at log batch
  // boundaries into ranges of about batch_size records.
  std::vector<AcquiredRecords> result;
  int64_t cur = first_acq;
  if (!rl && batch_size > 0 && last_acq - first_acq + 1 > batch_size) {
    for (const FetchedBatch& b : batches) {
      if (b.base_offset > last_acq) break;
      if (b.base_offset - cur < batch_size) continue;
      result.push_back({cur, b.base_offset - 1, 1});
      cur = b.base_offset;
    }
  }
  result.push_back({cur, last_acq, 1});
  InFlightState acquired_state;
  acquired_state.state = RecordState::kAcquired;
  acquired_state.delivery_count = 1;
  acquired_state.member_id = member;
  if (rl && result[0].last_offset - result[0].first_offset + 1 > max_records) {
    AcquiredRecords r = result[0];
    InFlightBatch ib{r.first_offset, r.last_offset, acquired_state, {}};
    int64_t limit = r.first_offset + max_records - 1;
    lock(*ib.batch, member, r.first_offset, limit);
    split_record_limit(ib, limit, 0);
    find_next_fetch_offset_ = true;
    cached_[r.first_offset] = std::move(ib);
    r.last_offset = limit;
    result.assign(1, r);
  } else {
    for (const AcquiredRecords& r : result) {
      InFlightBatch ib{r.first_offset, r.last_offset, acquired_state, {}};
      lock(*ib.batch, member, r.first_offset, r.last_offset);
      cached_[r.first_offset] = std::move(ib);
    }
  }
  if (cached_.begin()->first == first_acq) start_offset_ = first_acq;
  if (last_acq > end_offset_) end_offset_ = last_acq;
  if (rl) last_acq = result[0].last_offset;
  maybe_update_gap_window(last_acq + 1);
  return {std::move(result), static_cast<int32_t>(last_acq - first_acq + 1)};
}

int32_t SharePartition::acquire_subset(const std::string& member, bool rl, int64_t max_records, int64_t req_first,
                                       int64_t req_last, InFlightBatch& b, std::vector<AcquiredRecords>& out) {
  int32_t acquired = 0;
  int64_t max_while_throttled = -1;
  bool throttled = false;
  const int32_t max_delivery = max_delivery_count();
  const int32_t limit = throttle_limit(max_delivery);
  std::vector<AcquiredRecords> offsets;
  for (auto& [off, s] : b.offsets) {
    if (off < req_first) continue;
    if (off > req_last) break;
    if (s.state != RecordState::kAvailable || s.rollback) continue;
    int32_t count = s.delivery_count;
    // A record on its last delivery attempt goes alone.
    if (max_delivery > 2 && count == max_delivery - 1 && acquired > 0) break;
    if (count >= limit && max_while_throttled < 0) {
      max_while_throttled = std::max<int64_t>(1, static_cast<int64_t>(b.offsets.size()) >> (count - limit + 1));
      throttled = true;
    }
    if (!s.try_update(RecordState::kAcquired, 1, max_delivery, member) || s.state != RecordState::kAcquired) continue;
    lock(s, member, off, off);
    offsets.push_back({off, off, static_cast<int16_t>(s.delivery_count)});
    ++acquired;
    if (s.delivery_count == max_delivery && max_delivery > 2) break;
    if (rl && acquired == max_records) break;
    if (throttled && acquired == max_while_throttled) break;
  }
  accumulate(out, offsets);
  return acquired;
}

// Kafka's shouldThrottleRecordsDelivery: records redelivered often are
// handed out in smaller and smaller sets, to isolate a poison record.
bool SharePartition::throttle(const InFlightBatch& b, int64_t req_first, int64_t req_last) const {
  const int32_t limit = throttle_limit(max_delivery_count());
  if (!b.tracked()) {
    return b.batch->state == RecordState::kAvailable && !b.batch->rollback && b.batch->delivery_count >= limit;
  }
  int32_t max_count = 0;
  for (const auto& [off, s] : b.offsets) {
    if (off < req_first || off > req_last) continue;
    if (s.state == RecordState::kAvailable && !s.rollback) max_count = std::max(max_count, s.delivery_count);
  }
  return max_count >= limit;
}

std::vector<AcquiredRecords> SharePartition::filter_aborted(std::span<const FetchedBatch> batches,
                                                            const std::vector<AcquiredRecords>& acquired,
                                                            std::span<const AbortedTransaction> aborted) {
  std::vector<AbortedTransaction> ordered(aborted.begin(), aborted.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const AbortedTransaction& a, const AbortedTransaction& b) {
    return a.first_offset < b.first_offset;
  });
  std::vector<int64_t> producers;  // aborted producers in scope
  std::vector<FetchedBatch> to_archive;
  size_t next = 0;
  for (const FetchedBatch& b : batches) {
    if (b.producer_id < 0) continue;
    while (next < ordered.size() && ordered[next].first_offset <= b.last_offset)
      producers.push_back(ordered[next++].producer_id);
    if (b.is_control && b.is_abort_marker) {
      std::erase(producers, b.producer_id);
      continue;
    }
    if (b.is_transactional && std::find(producers.begin(), producers.end(), b.producer_id) != producers.end())
      to_archive.push_back(b);
  }
  for (const FetchedBatch& b : to_archive) {
    auto it = cached_.upper_bound(b.base_offset);
    if (it == cached_.begin()) continue;
    archive_range(b.base_offset, b.last_offset + 1, std::prev(it)->first, RecordState::kAcquired, true);
  }
  return cut_out(acquired, to_archive);
}

// ---- acknowledgement and release ----

ShareResult SharePartition::sub_map_for_ack(const AcknowledgementBatch& ab, int64_t& from) {
  auto fl = cached_.upper_bound(ab.first_offset);
  if (fl == cached_.begin()) {
    fl = start_offset_within(ab.first_offset, ab.last_offset) ? cached_.upper_bound(start_offset_) : cached_.begin();
    if (fl == cached_.begin())
      return invalid_record_state("Batch record not found. The request batch offsets are not found in the cache.");
  }
  from = std::prev(fl)->first;
  const InFlightBatch& last = std::prev(cached_.upper_bound(ab.last_offset))->second;
  if (last.last_offset < ab.first_offset)
    return invalid_request("Batch record not found. The first offset in request is past acquired records.");
  if (ab.last_offset > last.last_offset)
    return invalid_request("Batch record not found. The last offset in request is past acquired records.");
  return {};
}

void SharePartition::acknowledge(const std::string& member, const std::vector<AcknowledgementBatch>& batches,
                                 std::function<void(ShareResult)> done) {
  if (state_ != State::kActive) {
    done({ErrorCode::kUnknownServerError, "The share partition is not active."});
    return;
  }
  ShareResult error;
  std::vector<PendingChange> changes;
  for (const AcknowledgementBatch& ab : batches) {
    bool bad_type = ab.acknowledge_types.empty();
    for (int8_t t : ab.acknowledge_types) bad_type |= t < 0 || t > 4;
    if (bad_type) {
      error = invalid_request("Invalid acknowledge type: " + types_to_string(ab.acknowledge_types));
      break;
    }
    if (ab.last_offset < start_offset_) continue;  // already archived
    int64_t from = 0;
    error = sub_map_for_ack(ab, from);
    if (!error.ok()) break;
    error = ack_batch(member, ab, from, changes);
    if (!error.ok()) break;
  }
  rollback_or_write(std::move(error), std::move(changes), std::move(done));
}

ShareResult SharePartition::ack_batch(const std::string& member, const AcknowledgementBatch& ab, int64_t from,
                                      std::vector<PendingChange>& changes) {
  for (auto it = cached_.find(from); it != cached_.end() && it->first <= ab.last_offset; ++it) {
    InFlightBatch& b = it->second;
    if (b.last_offset < start_offset_) continue;
    if (!b.tracked()) {
      if (b.batch->member_id.empty())
        return invalid_record_state("The batch cannot be acknowledged. The batch is not in the acquired state.");
      if (b.batch->member_id != member) return invalid_record_state("Member is not the owner of batch record");
      if (b.batch->rollback) return invalid_record_state(kInvalidRecordStateDefault);
    }
    bool full = b.first_offset >= ab.first_offset && b.last_offset <= ab.last_offset;
    bool per_offset_ack = ab.acknowledge_types.size() > 1;
    if (!full || b.tracked() || per_offset_ack || start_offset_within(b.first_offset, b.last_offset)) {
      if (!b.tracked()) {
        if (b.batch->state != RecordState::kAcquired)
          return invalid_record_state(
              "The batch cannot be acknowledged. The subset batch is not in the acquired state.");
        split(b);
      }
      ShareResult r = ack_per_offset(member, ab, b, changes);
      if (!r.ok()) return r;
      continue;
    }
    ShareResult r = ack_whole(member, ab, b, changes);
    if (!r.ok()) return r;
  }
  return {};
}

namespace {
// Kafka's recordStateWithDlq: a REJECT goes through ARCHIVING with a DLQ.
RecordState state_for_ack(int8_t type, bool dlq) {
  switch (type) {
    case 1:
      return RecordState::kAcknowledged;
    case 2:
      return RecordState::kAvailable;
    case 3:
      return dlq ? RecordState::kArchiving : RecordState::kArchived;
    default:
      return RecordState::kArchived;  // 0 gap
  }
}

// Why an acknowledgement left a record ARCHIVING: the client rejected it,
// or released it at the delivery limit.
const char* dlq_cause(RecordState requested, RecordState now) {
  if (now != RecordState::kArchiving) return nullptr;
  return requested == RecordState::kArchiving ? kDlqClientReject : kDlqDeliveryCountExceeded;
}
}  // namespace

ShareResult SharePartition::ack_per_offset(const std::string& member, const AcknowledgementBatch& ab, InFlightBatch& b,
                                           std::vector<PendingChange>& changes) {
  const int32_t max_delivery = max_delivery_count();
  for (auto& [off, s] : b.offsets) {
    if (off < ab.first_offset || off < start_offset_) continue;
    if (off > ab.last_offset) break;
    if (s.state != RecordState::kAcquired)
      return invalid_record_state("The offset cannot be acknowledged. The offset is not acquired.");
    if (s.rollback) return invalid_record_state(kInvalidRecordStateDefault);
    if (s.member_id != member) return invalid_record_state("Member is not the owner of offset");
    size_t index = ab.acknowledge_types.size() > 1 ? static_cast<size_t>(off - ab.first_offset) : 0;
    if (index >= ab.acknowledge_types.size())
      return invalid_request("Invalid acknowledge type: " + types_to_string(ab.acknowledge_types));
    int8_t type = ab.acknowledge_types[index];
    if (type == 4) {  // RENEW
      if (!settings().renew_acknowledge_enabled)
        return invalid_record_state("Renewing acquisition locks is not enabled for the group.");
      lock(s, member, off, off);
      continue;
    }
    const bool dlq = dlq_enabled();
    const RecordState requested = state_for_ack(type, dlq);
    if (!s.start_transition(requested, 0, max_delivery, "", dlq))
      return invalid_record_state("Unable to acknowledge records for the batch");
    changes.push_back({b.first_offset,
                       off,
                       off,
                       false,
                       {off, off, static_cast<int8_t>(s.state), static_cast<int16_t>(s.delivery_count)},
                       dlq_cause(requested, s.state)});
    if (terminal(s.state)) ++delivery_complete_count_;
  }
  return {};
}

ShareResult SharePartition::ack_whole(const std::string& member, const AcknowledgementBatch& ab, InFlightBatch& b,
                                      std::vector<PendingChange>& changes) {
  InFlightState& s = *b.batch;
  if (s.state != RecordState::kAcquired)
    return invalid_record_state("The batch cannot be acknowledged. The batch is not in the acquired state.");
  int8_t type = ab.acknowledge_types[0];
  if (type == 4) {
    if (!settings().renew_acknowledge_enabled)
      return invalid_record_state("Renewing acquisition locks is not enabled for the group.");
    lock(s, member, b.first_offset, b.last_offset);
    return {};
  }
  const bool dlq = dlq_enabled();
  const RecordState requested = state_for_ack(type, dlq);
  if (!s.start_transition(requested, 0, max_delivery_count(), "", dlq))
    return invalid_record_state("Unable to acknowledge records for the batch");
  changes.push_back(
      {b.first_offset,
       b.first_offset,
       b.last_offset,
       true,
       {b.first_offset, b.last_offset, static_cast<int8_t>(s.state), static_cast<int16_t>(s.delivery_count)},
       dlq_cause(requested, s.state)});
  if (terminal(s.state)) delivery_complete_count_ += static_cast<int32_t>(b.last_offset - b.first_offset + 1);
  return {};
}

void SharePartition::release_acquired_records(const std::string& member, std::function<void(ShareResult)> done) {
  ShareResult error;
  std::vector<PendingChange> changes;
  for (auto& [key, b] : cached_) {
    if (!b.tracked() && b.batch->state == RecordState::kAcquired && b.batch->member_id == member &&
        start_offset_within(b.first_offset, b.last_offset))
      split(b);
    error = release_batch(member, b, changes);
    if (!error.ok()) break;
  }
  rollback_or_write(std::move(error), std::move(changes), std::move(done));
}

// Releases member's acquired records of one batch (to AVAILABLE, or
// ARCHIVED below the start offset or at the delivery limit).
ShareResult SharePartition::release_batch(const std::string& member, InFlightBatch& b,
                                          std::vector<PendingChange>& changes) {
  const int32_t max_delivery = max_delivery_count();
  const bool dlq = dlq_enabled();
  auto mine = [&](const InFlightState& s) {
    return (s.member_id == member || s.member_id.empty()) && s.state == RecordState::kAcquired;
  };
  auto record = [&](InFlightState& s, int64_t f, int64_t l, bool whole) {
    changes.push_back({b.first_offset,
                       f,
                       l,
                       whole,
                       {f, l, static_cast<int8_t>(s.state), static_cast<int16_t>(s.delivery_count)},
                       s.state == RecordState::kArchiving ? kDlqDeliveryCountExceeded : nullptr});
    if (terminal(s.state)) delivery_complete_count_ += records_from_start(f, l);
  };
  if (b.tracked()) {
    for (auto& [off, s] : b.offsets) {
      if (!mine(s)) continue;
      RecordState next = off < start_offset_ ? RecordState::kArchived : RecordState::kAvailable;
      if (!s.start_transition(next, 0, max_delivery, "", dlq))
        return invalid_record_state("Unable to release acquired records for the offset");
      record(s, off, off, false);
    }
    return {};
  }
  InFlightState& s = *b.batch;
  if (!mine(s)) return {};
  RecordState next = b.last_offset < start_offset_ ? RecordState::kArchived : RecordState::kAvailable;
  if (!s.start_transition(next, 0, max_delivery, "", dlq))
    return invalid_record_state("Unable to release acquired records for the batch");
  record(s, b.first_offset, b.last_offset, true);
  return {};
}

}  // namespace skiff::share
