// TxnCoordinator: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn and
// EndTxn (the request paths). Views, timers and replay are in
// txn_coordinator_views.cc. See txn_coordinator.h.
#include "coordinator/txn/txn_coordinator.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "coordinator/runtime/storage_errors.h"
#include "coordinator/txn/txn_log.h"

namespace skiff::txn {

namespace {

// Kafka's TransactionStateManager.appendTransactionToLog error mapping.
ErrorCode map_append_error(ErrorCode e) {
  if (e == ErrorCode::kNone || e == ErrorCode::kCoordinatorNotAvailable || e == ErrorCode::kNotCoordinator) return e;
  return coordinator_append_error(e).value_or(ErrorCode::kUnknownServerError);
}

bool is_valid_producer_id(const TxnTransit& c, const ProducerIdAndEpoch& e) {
  return c.producer_epoch == kNoProducerEpoch || e.producer_id == c.producer_id ||
         (e.producer_id == c.previous_producer_id && is_epoch_exhausted(e.epoch));
}

}  // namespace

ErrorCode fenced_error_for_version(ErrorCode e, int16_t version, int16_t first_version_with_fenced) {
  if (e == ErrorCode::kProducerFenced && version < first_version_with_fenced) return ErrorCode::kInvalidProducerEpoch;
  return e;
}

TxnCoordinator::TxnCoordinator(TxnConfig config, TxnClock& clock, TxnStateLog& log, TxnProducerIdSource& ids,
                               TxnMarkerWriter& markers)
    : config_(std::move(config)), clock_(clock), log_(log), ids_(ids), markers_(markers) {}

const TxnMetadata* TxnCoordinator::find(const std::string& transactional_id) const {
  auto it = txns_.find(transactional_id);
  return it == txns_.end() ? nullptr : it->second.get();
}

TxnMetadata& TxnCoordinator::create(const std::string& id, int64_t producer_id, int32_t timeout_ms) {
  TxnTransit initial;
  initial.producer_id = producer_id;
  initial.txn_timeout_ms = timeout_ms;
  initial.txn_last_update_ms = clock_.now_ms();
  auto [it, inserted] = txns_.emplace(id, std::make_unique<TxnMetadata>(id, initial));
  return *it->second;
}

void TxnCoordinator::write(TxnMetadata& m, const TxnTransit& t, std::function<void(ErrorCode)> then, bool durable) {
  // A copy: a log that completes at once runs the callback below, which may
  // erase `m` (Dead) while append still holds its id argument.
  const std::string id = m.transactional_id();  // NOLINT(performance-unnecessary-copy-initialization)
  std::optional<std::vector<uint8_t>> value;
  if (t.state != TxnState::kDead) {
    value = encode_txn_log_value(t, txn_log_value_version(config_.transaction_version()));
  }
  auto append = durable ? &TxnStateLog::append : &TxnStateLog::append_written;
  (log_.*append)(id, encode_txn_log_key(id), std::move(value), [this, id, t, then = std::move(then)](ErrorCode e) {
    e = map_append_error(e);
    auto it = txns_.find(id);
    if (it == txns_.end() || it->second->pending() != t.state) {
      then(ErrorCode::kNotCoordinator);  // cannot happen on one strand; never apply a stale write
      return;
    }
    if (e != ErrorCode::kNone) {
      it->second->abort_transition();
    } else if (t.state == TxnState::kDead) {
      txns_.erase(it);
    } else {
      it->second->complete_transition(t);
    }
    then(e);
    wake(id);
  });
}

void TxnCoordinator::init_producer_id(const std::string& id, int32_t timeout_ms,
                                      std::optional<ProducerIdAndEpoch> expected, std::function<void(TxnResult)> done) {
  if (id.empty()) return done({.error = ErrorCode::kInvalidRequest});
  if (timeout_ms <= 0 || timeout_ms > config_.max_timeout_ms) {
    return done({.error = ErrorCode::kInvalidTransactionTimeout});
  }
  auto it = txns_.find(id);
  TxnMetadata* m = it == txns_.end() ? nullptr : it->second.get();
  if (m == nullptr) {
    const auto fresh = ids_.allocate();
    if (fresh.error != ErrorCode::kNone) return done({.error = fresh.error});
    m = &create(id, fresh.producer_id, timeout_ms);
  }
  ErrorCode error = ErrorCode::kNone;
  const auto t = prepare_init(*m, timeout_ms, expected, error);
  if (!t) return done({.error = error});
  if (t->state == TxnState::kPrepareEpochFence) {
    txn_log().info(
        "transactional id {}: InitProducerId fences producer id {} epoch {}; aborting its ongoing "
        "transaction at epoch {}",
        loggable_id(id), t->producer_id, m->producer_epoch(), t->producer_epoch);
    // The new producer retries on CONCURRENT_TRANSACTIONS and gets the next epoch once the abort completes.
    return end_internal(id, t->producer_id, t->producer_epoch, /*commit=*/false, /*from_client=*/false,
                        config_.transaction_version(), [done = std::move(done)](TxnResult r) {
                          done({.error = r.error == ErrorCode::kNone ? ErrorCode::kConcurrentTransactions : r.error});
                        });
  }
  write(*m, *t, [id, t = *t, done = std::move(done)](ErrorCode e) {
    if (e != ErrorCode::kNone) return done({.error = e});
    txn_log().info("transactional id {}: initialized producer id {} epoch {}", loggable_id(id), t.producer_id,
                   t.producer_epoch);
    done({.error = ErrorCode::kNone, .producer_id = t.producer_id, .epoch = t.producer_epoch});
  });
}

std::optional<TxnTransit> TxnCoordinator::prepare_init(TxnMetadata& m, int32_t timeout_ms,
                                                       std::optional<ProducerIdAndEpoch> expected, ErrorCode& error) {
  if (m.has_pending()) {
    error = ErrorCode::kConcurrentTransactions;
    return std::nullopt;
  }
  if (expected && !is_valid_producer_id(m.current(), *expected)) {
    error = ErrorCode::kProducerFenced;
    return std::nullopt;
  }
  const int64_t now = clock_.now_ms();
  switch (m.state()) {
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      error = ErrorCode::kConcurrentTransactions;  // markers are being written
      return std::nullopt;
    case TxnState::kEmpty:
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort: {
      if (m.epoch_exhausted() && (!expected || expected->epoch == m.producer_epoch())) {
        const auto fresh = ids_.allocate();
        if (fresh.error != ErrorCode::kNone) {
          error = fresh.error;
          return std::nullopt;
        }
        return m.prepare_rotate_producer_id(fresh.producer_id, timeout_ms, now, expected.has_value());
      }
      std::optional<int16_t> expected_epoch;
      if (expected) expected_epoch = expected->epoch;
      auto t = m.prepare_increment_epoch(timeout_ms, expected_epoch, now);
      if (!t) error = ErrorCode::kProducerFenced;
      return t;
    }
    case TxnState::kOngoing:
      return m.prepare_fence_epoch();
    case TxnState::kDead:
    case TxnState::kPrepareEpochFence:
      break;
  }
  txn_log().error("transactional id {} found in state {}, which is never stored", loggable_id(m.transactional_id()),
                  state_name(m.state()));
  error = ErrorCode::kUnknownServerError;
  return std::nullopt;
}

void TxnCoordinator::add_partitions(const std::string& id, int64_t producer_id, int16_t epoch,
                                    const std::set<TopicPartition>& partitions, int16_t client_tv,
                                    std::function<void(ErrorCode)> done) {
  add_partitions_until(id, producer_id, epoch, partitions, client_tv, clock_.now_ms() + config_.busy_wait_ms,
                       std::move(done));
}

void TxnCoordinator::add_partitions_until(const std::string& id, int64_t producer_id, int16_t epoch,
                                          const std::set<TopicPartition>& partitions, int16_t client_tv,
                                          int64_t deadline_ms, std::function<void(ErrorCode)> done) {
  if (id.empty()) return done(ErrorCode::kInvalidRequest);
  auto it = txns_.find(id);
  if (it == txns_.end()) return done(ErrorCode::kInvalidProducerIdMapping);
  TxnMetadata& m = *it->second;
  // Kafka 4.4's order: a transition in flight first, then id, epoch, state.
  // Where Kafka answers CONCURRENT_TRANSACTIONS, wait for the end to finish.
  auto concurrent = [&] {
    if (clock_.now_ms() >= deadline_ms) return done(ErrorCode::kConcurrentTransactions);
    park(id, deadline_ms, [=, this, done = std::move(done)](bool woke) {
      if (!woke) return done(ErrorCode::kConcurrentTransactions);
      add_partitions_until(id, producer_id, epoch, partitions, client_tv, deadline_ms, done);
    });
  };
  if (m.has_pending()) return concurrent();
  if (m.producer_id() != producer_id) return done(ErrorCode::kInvalidProducerIdMapping);
  if (m.producer_epoch() != epoch) return done(ErrorCode::kProducerFenced);
  if (is_prepare(m.state())) return concurrent();
  if (m.state() == TxnState::kOngoing && std::includes(m.current().partitions.begin(), m.current().partitions.end(),
                                                       partitions.begin(), partitions.end())) {
    return done(ErrorCode::kNone);  // already in the transaction: nothing to write
  }
  const TxnTransit t = m.prepare_add_partitions(partitions, client_tv, clock_.now_ms());
  write(m, t, std::move(done));
}

void TxnCoordinator::park(const std::string& id, int64_t deadline_ms, std::function<void(bool)> resume) {
  parked_[id].push_back({deadline_ms, std::move(resume)});
}

void TxnCoordinator::wake(const std::string& id) {
  auto pit = parked_.find(id);
  if (pit == parked_.end()) return;
  auto it = txns_.find(id);
  if (it != txns_.end() && it->second->busy()) return;
  auto waiting = std::move(pit->second);
  parked_.erase(pit);
  for (auto& p : waiting) p.resume(true);  // may park again: the first resumed may start a transition
}

std::optional<int64_t> TxnCoordinator::next_parked_deadline() const {
  std::optional<int64_t> next;
  for (const auto& [id, list] : parked_)
    for (const auto& p : list)
      if (!next || p.deadline_ms < *next) next = p.deadline_ms;
  return next;
}

size_t TxnCoordinator::expire_parked() {
  const int64_t now = clock_.now_ms();
  std::vector<std::function<void(bool)>> expired;
  for (auto it = parked_.begin(); it != parked_.end();) {
    auto& list = it->second;
    for (auto p = list.begin(); p != list.end();) {
      if (p->deadline_ms > now) {
        ++p;
        continue;
      }
      expired.push_back(std::move(p->resume));
      p = list.erase(p);
    }
    it = list.empty() ? parked_.erase(it) : std::next(it);
  }
  for (auto& resume : expired) resume(false);
  return expired.size();
}

PartitionErrors TxnCoordinator::verify_partitions(const std::string& id, int64_t producer_id, int16_t epoch,
                                                  const std::set<TopicPartition>& partitions) const {
  auto all = [&](ErrorCode e) {
    PartitionErrors out;
    for (const auto& tp : partitions) out[tp] = e;
    return out;
  };
  if (id.empty()) return all(ErrorCode::kInvalidRequest);
  const TxnMetadata* m = find(id);
  if (m == nullptr || m->producer_id() != producer_id) return all(ErrorCode::kInvalidProducerIdMapping);
  if (m->producer_epoch() != epoch) return all(ErrorCode::kProducerFenced);
  if (m->state() == TxnState::kPrepareCommit || m->state() == TxnState::kPrepareAbort) {
    return all(ErrorCode::kConcurrentTransactions);
  }
  PartitionErrors out;
  for (const auto& tp : partitions) {
    out[tp] = m->current().partitions.contains(tp) ? ErrorCode::kNone : ErrorCode::kTransactionAbortable;
  }
  return out;
}

void TxnCoordinator::add_partitions_batch(const std::vector<AddPartitionsEntry>& entries,
                                          std::function<void(std::map<std::string, PartitionErrors>)> done) {
  struct Join {
    size_t remaining;
    std::map<std::string, PartitionErrors> results;
    std::function<void(std::map<std::string, PartitionErrors>)> done;
  };
  auto join = std::make_shared<Join>(Join{entries.size() + 1, {}, std::move(done)});
  auto finish_one = [join] {
    if (--join->remaining == 0) join->done(std::move(join->results));
  };
  for (auto& e : entries) {
    if (e.verify_only) {
      join->results[e.transactional_id] = verify_partitions(e.transactional_id, e.producer_id, e.epoch, e.partitions);
      finish_one();
      continue;
    }
    add_partitions(e.transactional_id, e.producer_id, e.epoch, e.partitions, 0,
                   [join, finish_one, id = e.transactional_id, parts = e.partitions](ErrorCode err) {
                     for (const auto& tp : parts) join->results[id][tp] = err;
                     finish_one();
                   });
  }
  finish_one();  // the extra count keeps a synchronous completion from firing early
}

void TxnCoordinator::add_offsets(const std::string& id, int64_t producer_id, int16_t epoch, const std::string& group_id,
                                 std::function<void(ErrorCode)> done) {
  add_partitions(id, producer_id, epoch, {offsets_partition_for(group_id)}, 0, std::move(done));
}

void TxnCoordinator::end_txn(const std::string& id, int64_t producer_id, int16_t epoch, bool commit, int16_t client_tv,
                             std::function<void(TxnResult)> done) {
  end_internal(id, producer_id, epoch, commit, /*from_client=*/true, client_tv, std::move(done));
}

}  // namespace skiff::txn
