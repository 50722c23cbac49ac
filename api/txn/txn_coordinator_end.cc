// TxnCoordinator: ending a transaction — EndTxn, and the aborts the
// coordinator starts itself (epoch fence, timeout) — then the markers and the
// Complete* state. See txn_coordinator.h.
#include "api/txn/txn_coordinator.h"
#include "api/txn/txn_log.h"

namespace skiff::api::txn {

namespace {

bool is_prepare(TxnState s) { return s == TxnState::kPrepareCommit || s == TxnState::kPrepareAbort; }
bool is_complete(TxnState s) { return s == TxnState::kCompleteCommit || s == TxnState::kCompleteAbort; }

}  // namespace

void TxnCoordinator::end_internal(const std::string& id, int64_t producer_id, int16_t epoch, bool commit,
                                  bool from_client, int16_t client_tv, std::function<void(TxnResult)> done) {
  if (id.empty()) return done({.error = ErrorCode::kInvalidRequest});
  auto it = txns_.find(id);
  if (it == txns_.end()) return done({.error = ErrorCode::kInvalidProducerIdMapping});
  TxnMetadata& m = *it->second;
  const bool epoch_fence = m.pending() == TxnState::kPrepareEpochFence;
  TxnResult early;
  const auto t = prepare_end(m, producer_id, epoch, commit, from_client, client_tv, early);
  if (!t) {
    if (epoch_fence && !from_client && m.pending() == TxnState::kPrepareEpochFence) m.abort_transition();
    return done(early);
  }
  write(m, *t, [this, id, t = *t, epoch_fence, done = std::move(done)](ErrorCode e) {
    on_prepare_written(id, t, e, epoch_fence, done);
  });
}

// Kafka's endTransaction checks, in its order; nullopt with `early` set when
// nothing is written (an error, or the answer to a retry).
std::optional<TxnTransit> TxnCoordinator::prepare_end(TxnMetadata& m, int64_t producer_id, int16_t epoch,
                                                      bool commit, bool from_client, int16_t client_tv,
                                                      TxnResult& early) {
  const TxnTransit& c = m.current();
  const bool fence = m.pending() == TxnState::kPrepareEpochFence;
  const bool v2 = !fence && supports_epoch_bump(c.client_transaction_version);
  // TV2 retries: the epoch the client holds is one below ours (we bumped it),
  // or the id rotated on overflow and the client still holds the old one.
  const bool retry_on_bump = v2 && c.producer_epoch == epoch + 1;
  const bool retry_on_overflow =
      v2 && c.previous_producer_id == producer_id && epoch == INT16_MAX - 1 && c.producer_epoch == 0;
  bool valid_epoch = false;
  if (!v2) {
    valid_epoch = (!from_client || epoch == c.producer_epoch) && epoch >= c.producer_epoch;
  } else if (is_prepare(c.state)) {
    valid_epoch = retry_on_bump;
  } else if (is_complete(c.state)) {
    valid_epoch = retry_on_bump || retry_on_overflow;
  } else {
    valid_epoch = epoch == c.producer_epoch;
  }
  auto fail = [&](ErrorCode e) {
    early = {.error = e};
    return std::nullopt;
  };
  if (c.producer_id != producer_id && !retry_on_overflow) return fail(ErrorCode::kInvalidProducerIdMapping);
  if (!valid_epoch) return fail(ErrorCode::kProducerFenced);
  if (m.has_pending() && !fence) return fail(ErrorCode::kConcurrentTransactions);
  switch (c.state) {
    case TxnState::kOngoing: {
      int64_t next_producer_id = kNoProducerId;
      if (supports_epoch_bump(client_tv) && !fence && m.epoch_exhausted()) {
        const auto fresh = ids_.allocate();  // the bump would overflow: a new id takes over after the markers
        if (fresh.error != ErrorCode::kNone) return fail(fresh.error);
        next_producer_id = fresh.producer_id;
      }
      if (fence && commit) return fail(ErrorCode::kConcurrentTransactions);  // never: fences only abort
      if (fence) m.adopt_fence_epoch(epoch);
      return m.prepare_end(commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort, client_tv, next_producer_id,
                           clock_.now_ms());
    }
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort:
      if (commit != (c.state == TxnState::kCompleteCommit)) return fail(ErrorCode::kInvalidTxnState);
      early = {.error = ErrorCode::kNone, .producer_id = c.producer_id, .epoch = c.producer_epoch};
      return std::nullopt;  // a retry of an end that completed
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      if (commit != (c.state == TxnState::kPrepareCommit)) return fail(ErrorCode::kInvalidTxnState);
      return fail(ErrorCode::kConcurrentTransactions);  // a retry while the markers are written
    case TxnState::kEmpty:
      return fail(ErrorCode::kInvalidTxnState);
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence:
      break;
  }
  txn_log().error("transactional id {} found in state {}, which is never stored", loggable_id(m.transactional_id()),
                  state_name(c.state));
  return fail(ErrorCode::kUnknownServerError);
}

void TxnCoordinator::on_prepare_written(const std::string& id, const TxnTransit& t, ErrorCode error,
                                        bool epoch_fence, std::function<void(TxnResult)> done) {
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
      txn_log().warn("transactional id {}: writing {} failed: error {}; retried by the abort timer",
                     loggable_id(id), state_name(complete.state), static_cast<int>(e));
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
