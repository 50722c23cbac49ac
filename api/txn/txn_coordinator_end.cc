// TxnCoordinator: ending a transaction — EndTxn, and the aborts the
// coordinator starts itself (epoch fence, timeout) — then the markers and the
// Complete* state. See txn_coordinator.h.
#include "api/txn/txn_coordinator.h"
#include "api/txn/txn_log.h"

namespace skiff::api::txn {

namespace {

std::nullopt_t fail(TxnResult& early, ErrorCode e) {
  early = {.error = e};
  return std::nullopt;
}

std::nullopt_t answer_current(TxnResult& early, const TxnTransit& c) {  // a retry of an end that completed
  early = {.error = ErrorCode::kNone, .producer_id = c.producer_id, .epoch = c.producer_epoch};
  return std::nullopt;
}

}  // namespace

void TxnCoordinator::end_internal(const std::string& id, int64_t producer_id, int16_t epoch, bool commit,
                                  bool from_client, int16_t client_tv, std::function<void(TxnResult)> done) {
  if (id.empty()) return done({.error = ErrorCode::kInvalidRequest});
  auto it = txns_.find(id);
  if (it == txns_.end()) return done({.error = ErrorCode::kInvalidProducerIdMapping});
  TxnMetadata& m = *it->second;
  const bool epoch_fence = m.pending() == TxnState::kPrepareEpochFence;
  TxnResult early;
  const auto t = supports_epoch_bump(client_tv)
                     ? prepare_end_v2(m, producer_id, epoch, commit, from_client, client_tv, early)
                     : prepare_end_v1(m, producer_id, epoch, commit, from_client, early);
  if (!t) {
    if (epoch_fence && !from_client && m.pending() == TxnState::kPrepareEpochFence) m.abort_transition();
    return done(early);
  }
  write(m, *t, [this, id, t = *t, epoch_fence, done = std::move(done)](ErrorCode e) {
    on_prepare_written(id, t, e, epoch_fence, done);
  });
}

// Ongoing (or, with TV2, an abort with no partitions) -> Prepare*. A pending
// epoch fence becomes the abort's epoch; TV2 at an exhausted epoch hands over
// to a new producer id once the markers are written.
std::optional<TxnTransit> TxnCoordinator::prepare_completion(TxnMetadata& m, TxnState next, int16_t epoch,
                                                             int16_t client_tv, bool no_partition_added,
                                                             TxnResult& early) {
  const bool fence = m.pending() == TxnState::kPrepareEpochFence;
  int64_t next_producer_id = kNoProducerId;
  if (supports_epoch_bump(client_tv) && !fence && m.epoch_exhausted()) {
    const auto fresh = ids_.allocate();
    if (fresh.error != ErrorCode::kNone) return fail(early, fresh.error);
    next_producer_id = fresh.producer_id;
  }
  if (fence) {
    if (next != TxnState::kPrepareAbort) return fail(early, ErrorCode::kConcurrentTransactions);  // fences only abort
    m.adopt_fence_epoch(epoch);
  }
  return m.prepare_end(next, client_tv, next_producer_id, clock_.now_ms(), no_partition_added);
}

// Transaction version 0/1 (EndTxn v0-4): the epoch never moves on an end;
// a client must send exactly the current epoch.
std::optional<TxnTransit> TxnCoordinator::prepare_end_v1(TxnMetadata& m, int64_t producer_id, int16_t epoch,
                                                         bool commit, bool from_client, TxnResult& early) {
  const TxnTransit& c = m.current();
  const bool fence = m.pending() == TxnState::kPrepareEpochFence;
  if (c.producer_id != producer_id) return fail(early, ErrorCode::kInvalidProducerIdMapping);
  if ((from_client && epoch != c.producer_epoch) || epoch < c.producer_epoch) {
    return fail(early, ErrorCode::kProducerFenced);
  }
  if (m.has_pending() && !fence) return fail(early, ErrorCode::kConcurrentTransactions);
  const TxnState decided = commit ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
  switch (c.state) {
    case TxnState::kOngoing:
      return prepare_completion(m, commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort, epoch, 0, false, early);
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort:
      return c.state == decided ? answer_current(early, c) : fail(early, ErrorCode::kInvalidTxnState);
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:  // a retry while the markers are written
      return (c.state == TxnState::kPrepareCommit) == commit ? fail(early, ErrorCode::kConcurrentTransactions)
                                                             : fail(early, ErrorCode::kInvalidTxnState);
    case TxnState::kEmpty:
      return fail(early, ErrorCode::kInvalidTxnState);
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence:
      break;
  }
  txn_log().error("transactional id {} found in state {}, which is never stored", loggable_id(m.transactional_id()),
                  state_name(c.state));
  return fail(early, ErrorCode::kUnknownServerError);
}

// Transaction version 2 (EndTxn v5, and the coordinator's own aborts under a
// TV2 server): every end bumps the epoch, so a retry is recognised by the
// client's epoch being one below ours (or by the overflow to a new id); an
// abort with no partitions (Empty/Complete*) is a new, empty transaction.
std::optional<TxnTransit> TxnCoordinator::prepare_end_v2(TxnMetadata& m, int64_t producer_id, int16_t epoch,
                                                         bool commit, bool from_client, int16_t client_tv,
                                                         TxnResult& early) {
  const TxnTransit& c = m.current();
  const bool fence = m.pending() == TxnState::kPrepareEpochFence;
  const bool retry_on_overflow =
      !fence && c.previous_producer_id == producer_id && epoch == INT16_MAX - 1 && c.producer_epoch == 0;
  const bool retry_on_bump = !fence && c.producer_epoch == epoch + 1;
  const bool retry = retry_on_bump || retry_on_overflow;
  bool valid_epoch = false;
  if (fence) {
    valid_epoch = (!from_client || epoch == c.producer_epoch) && epoch >= c.producer_epoch;
  } else if (is_prepare(c.state)) {
    valid_epoch = retry_on_bump;
  } else if (is_complete(c.state)) {
    valid_epoch = retry || epoch == c.producer_epoch;
  } else {
    valid_epoch = epoch == c.producer_epoch;
  }
  if (c.producer_id != producer_id && !retry_on_overflow) return fail(early, ErrorCode::kInvalidProducerIdMapping);
  if (!valid_epoch) return fail(early, ErrorCode::kProducerFenced);
  if (m.has_pending() && !fence) return fail(early, ErrorCode::kConcurrentTransactions);
  auto abort_empty = [&] { return prepare_completion(m, TxnState::kPrepareAbort, epoch, client_tv, true, early); };
  switch (c.state) {
    case TxnState::kOngoing:
      return prepare_completion(m, commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort, epoch, client_tv, false,
                                early);
    case TxnState::kCompleteCommit:
      if (commit) return retry ? answer_current(early, c) : fail(early, ErrorCode::kInvalidTxnState);
      return retry ? fail(early, ErrorCode::kInvalidTxnState) : abort_empty();
    case TxnState::kCompleteAbort:
      if (commit) return fail(early, ErrorCode::kInvalidTxnState);
      return retry ? answer_current(early, c) : abort_empty();
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      return (c.state == TxnState::kPrepareCommit) == commit ? fail(early, ErrorCode::kConcurrentTransactions)
                                                             : fail(early, ErrorCode::kInvalidTxnState);
    case TxnState::kEmpty:
      return commit ? fail(early, ErrorCode::kInvalidTxnState) : abort_empty();
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence:
      break;
  }
  txn_log().error("transactional id {} found in state {}, which is never stored", loggable_id(m.transactional_id()),
                  state_name(c.state));
  return fail(early, ErrorCode::kUnknownServerError);
}

void TxnCoordinator::on_prepare_written(const std::string& id, const TxnTransit& t, ErrorCode error, bool epoch_fence,
                                        std::function<void(TxnResult)> done) {
  if (error != ErrorCode::kNone) {
    if (epoch_fence) {
      auto it = txns_.find(id);
      if (it != txns_.end()) it->second->set_failed_epoch_fence();
      txn_log().warn("transactional id {}: writing the epoch fence (producer id {} epoch {}) failed: error {}",
                     loggable_id(id), t.producer_id, t.producer_epoch, static_cast<int>(error));
    }
    return done({.error = error});
  }
  // The decision is durable: answer now, then write the markers.
  if (t.next_producer_id != kNoProducerId) {
    done({.error = ErrorCode::kNone, .producer_id = t.next_producer_id, .epoch = 0});
  } else {
    done({.error = ErrorCode::kNone, .producer_id = t.producer_id, .epoch = t.producer_epoch});
  }
  send_markers(id, t);
}

void TxnCoordinator::send_markers(const std::string& id, const TxnTransit& prepared) {
  const bool commit = prepared.state == TxnState::kPrepareCommit;
  markers_in_flight_.insert(id);
  markers_.write_markers(prepared.producer_id, prepared.producer_epoch, commit, prepared.partitions,
                         [this, id, prepared](ErrorCode e) { on_markers_written(id, prepared, e); });
}

void TxnCoordinator::on_markers_written(const std::string& id, const TxnTransit& prepared, ErrorCode error) {
  markers_in_flight_.erase(id);
  auto it = txns_.find(id);
  if (it == txns_.end() || it->second->state() != prepared.state || it->second->has_pending()) return;
  TxnMetadata& m = *it->second;
  if (error != ErrorCode::kNone) {
    // The id stays in Prepare*: retry_pending_markers() (run by the abort timer) tries again.
    txn_log().warn("transactional id {}: writing {} markers for producer id {} epoch {} failed: error {}",
                   loggable_id(id), prepared.state == TxnState::kPrepareCommit ? "COMMIT" : "ABORT",
                   prepared.producer_id, prepared.producer_epoch, static_cast<int>(error));
    return;
  }
  const TxnTransit complete = m.prepare_complete(clock_.now_ms());
  write(m, complete, [id, complete](ErrorCode e) {
    if (e != ErrorCode::kNone) {
      txn_log().warn("transactional id {}: writing {} failed: error {}; retried by the abort timer", loggable_id(id),
                     state_name(complete.state), static_cast<int>(e));
    }
  });
}

size_t TxnCoordinator::retry_pending_markers() {
  size_t n = 0;
  for (auto& [id, m] : txns_) {
    if (is_prepare(m->state()) && !m->has_pending() && !markers_in_flight_.contains(id)) {
      send_markers(id, m->current());
      ++n;
    }
  }
  return n;
}

}  // namespace skiff::api::txn
