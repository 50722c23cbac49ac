#include "coordinator/txn/txn_metadata.h"

#include <stdexcept>

#include "coordinator/txn/txn_log.h"

namespace skiff::txn {

TxnMetadata::TxnMetadata(std::string transactional_id, const TxnTransit& initial)
    : id_(std::move(transactional_id)), cur_(initial) {}

// As Kafka 4.4's TransitionData: a copy of the current state (client
// transaction version and next producer id included); the written
// PreviousProducerId is the producer id at the time of the change.
TxnTransit TxnMetadata::transit_to(TxnState to) const {
  TxnTransit t = cur_;
  t.state = to;
  t.previous_producer_id = cur_.producer_id;
  return t;
}

TxnTransit TxnMetadata::begin(TxnTransit t) {
  if (pending_) throw std::logic_error("transition prepared while another is pending");
  if (!is_valid_transition(cur_.state, t.state)) throw std::logic_error("illegal transaction state transition");
  if (t.producer_id < 0 || (t.state != TxnState::kDead && t.producer_epoch < 0)) {
    throw std::logic_error("transition to an invalid producer id or epoch");
  }
  pending_ = t.state;
  return t;
}

TxnTransit TxnMetadata::prepare_fence_epoch() {
  TxnTransit t = transit_to(TxnState::kPrepareEpochFence);
  if (cur_.producer_epoch == INT16_MAX) {  // as Kafka 4.4: log, and fence at the same epoch
    txn_log().error("transactional id {}: fencing producer id {} at epoch Short.MAX_VALUE; this is a bug",
                    loggable_id(id_), cur_.producer_id);
  } else if (!failed_epoch_fence_) {  // a fence whose write failed is retried at the same epoch
    t.producer_epoch = static_cast<int16_t>(cur_.producer_epoch + 1);
  }
  t.last_producer_epoch = kNoProducerEpoch;
  return begin(t);
}

std::optional<TxnTransit> TxnMetadata::prepare_increment_epoch(int32_t timeout_ms,
                                                               std::optional<int16_t> expected_epoch, int64_t now_ms) {
  int16_t epoch = static_cast<int16_t>(cur_.producer_epoch + 1);
  int16_t last = kNoProducerEpoch;
  if (expected_epoch) {
    if (cur_.producer_epoch == kNoProducerEpoch || *expected_epoch == cur_.producer_epoch) {
      last = cur_.producer_epoch;  // KIP-360: the producer continues after an error
    } else if (*expected_epoch == cur_.last_producer_epoch) {
      epoch = cur_.producer_epoch;  // a retry of a bump that succeeded: same answer
      last = cur_.last_producer_epoch;
    } else {
      return std::nullopt;  // PRODUCER_FENCED
    }
  }
  if (epoch != cur_.producer_epoch && epoch_exhausted()) {
    throw std::logic_error("epoch exhausted: rotate the producer id instead");
  }
  TxnTransit t = transit_to(TxnState::kEmpty);
  t.producer_epoch = epoch;
  t.last_producer_epoch = last;
  t.txn_timeout_ms = timeout_ms;
  t.partitions.clear();
  t.txn_start_ms = -1;
  t.txn_last_update_ms = now_ms;
  return begin(t);
}

TxnTransit TxnMetadata::prepare_rotate_producer_id(int64_t new_id, int32_t timeout_ms, int64_t now_ms,
                                                   bool record_last_epoch) {
  TxnTransit t = transit_to(TxnState::kEmpty);
  t.producer_id = new_id;
  t.producer_epoch = 0;
  t.last_producer_epoch = record_last_epoch ? cur_.producer_epoch : kNoProducerEpoch;
  t.txn_timeout_ms = timeout_ms;
  t.partitions.clear();
  t.txn_start_ms = -1;
  t.txn_last_update_ms = now_ms;
  return begin(t);
}

TxnTransit TxnMetadata::prepare_add_partitions(const std::set<TopicPartition>& added, int16_t client_tv,
                                               int64_t now_ms) {
  TxnTransit t = transit_to(TxnState::kOngoing);
  if (cur_.state != TxnState::kOngoing) t.txn_start_ms = now_ms;  // a new transaction starts
  t.partitions.insert(added.begin(), added.end());
  t.txn_last_update_ms = now_ms;
  t.client_transaction_version = client_tv;
  return begin(t);
}

TxnTransit TxnMetadata::prepare_end(TxnState prepare_state, int16_t client_tv, int64_t next_producer_id, int64_t now_ms,
                                    bool no_partition_added) {
  TxnTransit t = transit_to(prepare_state);
  // KIP-890: every EndTxn bumps the epoch. Only an abort after an epoch fence
  // can find Short.MAX_VALUE here; its markers fence every older epoch anyway.
  if (supports_epoch_bump(client_tv) && cur_.producer_epoch < INT16_MAX) {
    t.producer_epoch = static_cast<int16_t>(cur_.producer_epoch + 1);
    t.last_producer_epoch = cur_.producer_epoch;
  }
  t.next_producer_id = next_producer_id;
  if (no_partition_added) t.txn_start_ms = now_ms;
  t.txn_last_update_ms = now_ms;
  t.client_transaction_version = client_tv;
  return begin(t);
}

TxnTransit TxnMetadata::prepare_complete(int64_t now_ms) {
  const TxnState to = cur_.state == TxnState::kPrepareCommit ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
  failed_epoch_fence_ = false;    // the abort that followed a fence is durable
  TxnTransit t = transit_to(to);  // the last epoch stays: a TV2 end already recorded it
  if (supports_epoch_bump(cur_.client_transaction_version) && cur_.next_producer_id != kNoProducerId) {
    t.producer_id = cur_.next_producer_id;  // the epoch overflowed: the new id takes over now
    t.producer_epoch = 0;
  }
  t.next_producer_id = kNoProducerId;
  t.partitions.clear();
  t.txn_last_update_ms = now_ms;
  return begin(t);
}

TxnTransit TxnMetadata::prepare_dead() {
  TxnTransit t = transit_to(TxnState::kDead);
  t.partitions.clear();
  return begin(t);
}

void TxnMetadata::adopt_fence_epoch(int16_t fenced_epoch) {
  if (pending_ != TxnState::kPrepareEpochFence) throw std::logic_error("no epoch fence pending");
  pending_.reset();
  cur_.producer_epoch = fenced_epoch;
  cur_.last_producer_epoch = kNoProducerEpoch;
}

void TxnMetadata::complete_transition(const TxnTransit& t) {
  if (pending_ != t.state) throw std::logic_error("completing a transition that is not pending");
  if (t.state == TxnState::kDead || t.state == TxnState::kPrepareEpochFence) {
    throw std::logic_error("Dead and PrepareEpochFence are never completed");
  }
  // Kafka keeps the previous producer id of the metadata until the id can
  // change: InitProducerId (Empty) and a TV2 Complete* after an overflow.
  const int64_t previous = cur_.previous_producer_id;
  cur_ = t;
  const bool id_may_change =
      t.state == TxnState::kEmpty || ((t.state == TxnState::kCompleteCommit || t.state == TxnState::kCompleteAbort) &&
                                      supports_epoch_bump(t.client_transaction_version));
  if (!id_may_change) cur_.previous_producer_id = previous;
  pending_.reset();
}

}  // namespace skiff::txn
