// TxnCoordinator: ending a transaction — EndTxn, and the aborts the
// coordinator starts itself (epoch fence, timeout) — then the markers and the
// Complete* state. See txn_coordinator.h.
#include "coordinator/txn/txn_coordinator.h"
#include "coordinator/txn/txn_log.h"

namespace skiff::txn {

namespace {

std::nullopt_t fail(TxnResult& early, ErrorCode e) {
  early = {.error = e};
  return std::nullopt;
}

std::nullopt_t answer_current(TxnResult& early, const TxnTransit& c) {  // a retry of an end that completed
  early = {.error = ErrorCode::kNone, .producer_id = c.producer_id, .epoch = c.producer_epoch};
  return std::nullopt;
}

// TV2's view of the client's producer id and epoch against the current state.
struct EpochCheckV2 {
  bool retry_on_overflow;  // a retry of the end that moved to a new producer id
  bool retry;              // a retry of the end that completed (epoch one below ours, or the overflow)
  bool valid;              // the epoch may end the transaction (else PRODUCER_FENCED)
};

EpochCheckV2 check_epoch_v2(const TxnTransit& c, bool fence, int64_t producer_id, int16_t epoch, bool from_client) {
  EpochCheckV2 r{};
  r.retry_on_overflow =
      !fence && c.previous_producer_id == producer_id && epoch == INT16_MAX - 1 && c.producer_epoch == 0;
  const bool retry_on_bump = !fence && c.producer_epoch == epoch + 1;
  r.retry = retry_on_bump || r.retry_on_overflow;
  if (fence) {
    r.valid = (!from_client || epoch == c.producer_epoch) && epoch >= c.producer_epoch;
  } else if (is_prepare(c.state)) {
    r.valid = retry_on_bump;
  } else if (is_complete(c.state)) {
    r.valid = r.retry || epoch == c.producer_epoch;
  } else {
    r.valid = epoch == c.producer_epoch;
  }
  return r;
}

// What a TV2 end does from the current state once the epoch is accepted: an
// abort with no partitions (Empty/Complete*) is a new, empty transaction.
struct EndStepV2 {
  enum Kind { kPrepare, kAbortEmpty, kAnswerCurrent, kFail, kNeverStored } kind;
  ErrorCode error = ErrorCode::kNone;  // for kFail
};

EndStepV2 decide_end_v2(TxnState state, bool commit, bool retry) {
  const EndStepV2 invalid{EndStepV2::kFail, ErrorCode::kInvalidTxnState};
  switch (state) {
    case TxnState::kOngoing:
      return {EndStepV2::kPrepare};
    case TxnState::kCompleteCommit:
      if (commit) return retry ? EndStepV2{EndStepV2::kAnswerCurrent} : invalid;
      return retry ? invalid : EndStepV2{EndStepV2::kAbortEmpty};
    case TxnState::kCompleteAbort:
      if (commit) return invalid;
      return retry ? EndStepV2{EndStepV2::kAnswerCurrent} : EndStepV2{EndStepV2::kAbortEmpty};
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      return (state == TxnState::kPrepareCommit) == commit
                 ? EndStepV2{EndStepV2::kFail, ErrorCode::kConcurrentTransactions}
                 : invalid;
    case TxnState::kEmpty:
      return commit ? invalid : EndStepV2{EndStepV2::kAbortEmpty};
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence:
      break;
  }
  return {EndStepV2::kNeverStored};
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
  const EpochCheckV2 e = check_epoch_v2(c, fence, producer_id, epoch, from_client);
  // Kafka 4.4's order (unlike TV1's): a transition in flight first, so a
  // client whose epoch that transition may move retries instead of being
  // told it is fenced.
  if (m.has_pending() && !fence) return fail(early, ErrorCode::kConcurrentTransactions);
  if (c.producer_id != producer_id && !e.retry_on_overflow) return fail(early, ErrorCode::kInvalidProducerIdMapping);
  if (!e.valid) return fail(early, ErrorCode::kProducerFenced);
  const EndStepV2 step = decide_end_v2(c.state, commit, e.retry);
  switch (step.kind) {
    case EndStepV2::kPrepare:
      return prepare_completion(m, commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort, epoch, client_tv, false,
                                early);
    case EndStepV2::kAbortEmpty:
      return prepare_completion(m, TxnState::kPrepareAbort, epoch, client_tv, true, early);
    case EndStepV2::kAnswerCurrent:
      return answer_current(early, c);
    case EndStepV2::kFail:
      return fail(early, step.error);
    case EndStepV2::kNeverStored:
      break;
  }
  txn_log().error("transactional id {} found in state {}, which is never stored", loggable_id(m.transactional_id()),
                  state_name(c.state));
  return fail(early, ErrorCode::kUnknownServerError);
}

void TxnCoordinator::on_prepare_written(const std::string& id, const TxnTransit& t, ErrorCode error, bool epoch_fence,
                                        const std::function<void(TxnResult)>& done) {
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
  // The markers are durable (TxnMarkerWriter): losing Complete* at a crash
  // leaves Prepare*, from which the markers are written again, so it does
  // not wait for its own fsync (the next durable write of the log covers it).
  const TxnTransit complete = m.prepare_complete(clock_.now_ms());
  write(
      m, complete,
      [id, complete](ErrorCode e) {
        if (e != ErrorCode::kNone) {
          txn_log().warn("transactional id {}: writing {} failed: error {}; retried by the abort timer",
                         loggable_id(id), state_name(complete.state), static_cast<int>(e));
        }
      },
      /*durable=*/false);
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

}  // namespace skiff::txn
