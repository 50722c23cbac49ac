// TxnMetadata: what the coordinator knows of one transactional id, and the
// two-step way it changes. Every change is first *prepared* (a TxnTransit,
// the would-be next state; the metadata records it as `pending` so that any
// other request meanwhile gets CONCURRENT_TRANSACTIONS), then written to
// __transaction_state, and *completed* (the transit becomes the state) only
// once that write is durable; a failed write *aborts* it (pending cleared).
// This is Kafka's TransactionMetadata prepare/complete discipline.
//
// Threads: not synchronised; owned by TxnCoordinator (see its header).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "coordinator/txn/txn_state.h"

namespace skiff::txn {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};

// The next state of a transactional id, as written to __transaction_state.
struct TxnTransit {
  int64_t producer_id = kNoProducerId;
  int64_t previous_producer_id = kNoProducerId;  // the id before the last rotation
  int64_t next_producer_id = kNoProducerId;      // TV2: id taking over once markers are written
  int16_t producer_epoch = kNoProducerEpoch;
  int16_t last_producer_epoch = kNoProducerEpoch;
  int16_t next_producer_epoch = kNoProducerEpoch;  // KIP-939 (two-phase commit, not served): kept as read
  int32_t txn_timeout_ms = 0;
  TxnState state = TxnState::kEmpty;
  std::set<TopicPartition> partitions;
  int64_t txn_start_ms = -1;
  int64_t txn_last_update_ms = -1;
  int16_t client_transaction_version = 0;
  bool operator==(const TxnTransit&) const = default;
};

class TxnMetadata {
 public:
  TxnMetadata(std::string transactional_id, const TxnTransit& initial);

  const std::string& transactional_id() const { return id_; }
  const TxnTransit& current() const { return cur_; }
  TxnState state() const { return cur_.state; }
  int64_t producer_id() const { return cur_.producer_id; }
  int16_t producer_epoch() const { return cur_.producer_epoch; }
  std::optional<TxnState> pending() const { return pending_; }
  bool has_pending() const { return pending_.has_value(); }
  // A transition or the markers are in flight: requests wait or get CONCURRENT_TRANSACTIONS.
  bool busy() const { return has_pending() || is_prepare(cur_.state); }
  bool epoch_exhausted() const { return is_epoch_exhausted(cur_.producer_epoch); }

  // Kafka's prepare* operations; each sets `pending`. Preconditions (legal
  // state, no pending transition) are the caller's; a breach throws
  // std::logic_error, never reaches the wire.
  TxnTransit prepare_fence_epoch();  // Ongoing -> PrepareEpochFence (epoch + 1, never returned)
  // InitProducerId in Empty/Complete*: epoch + 1 (KIP-360 retry rules); nullopt: PRODUCER_FENCED.
  std::optional<TxnTransit> prepare_increment_epoch(int32_t timeout_ms, std::optional<int16_t> expected_epoch,
                                                    int64_t now_ms);
  TxnTransit prepare_rotate_producer_id(int64_t new_id, int32_t timeout_ms, int64_t now_ms, bool record_last_epoch);
  TxnTransit prepare_add_partitions(const std::set<TopicPartition>& added, int16_t client_tv, int64_t now_ms);
  // no_partition_added: TV2's abort from Empty/Complete* (a transaction whose
  // partitions never reached us starts, and ends, now).
  TxnTransit prepare_end(TxnState prepare_state, int16_t client_tv, int64_t next_producer_id, int64_t now_ms,
                         bool no_partition_added = false);
  TxnTransit prepare_complete(int64_t now_ms);  // PrepareCommit/Abort -> CompleteCommit/Abort
  TxnTransit prepare_dead();

  // Turns the epoch fence into the PrepareAbort it leads to: the fenced epoch
  // becomes current (Kafka: the pending fence is replaced by the abort).
  void adopt_fence_epoch(int16_t fenced_epoch);

  void complete_transition(const TxnTransit& t);  // the write of `t` is durable
  void abort_transition() { pending_.reset(); }   // the write of the pending transit failed

  bool has_failed_epoch_fence() const { return failed_epoch_fence_; }
  void set_failed_epoch_fence() { failed_epoch_fence_ = true; }

 private:
  TxnTransit transit_to(TxnState to) const;  // a copy of the current state, moved to `to`
  TxnTransit begin(TxnTransit t);            // validates, sets pending_

  std::string id_;
  TxnTransit cur_;
  std::optional<TxnState> pending_;
  bool failed_epoch_fence_ = false;
};

}  // namespace skiff::txn
