// TxnState: the states of a transactional id at the coordinator, with Kafka's
// ids (the TransactionStatus byte of TransactionLogValue), names (what
// DescribeTransactions / ListTransactions answer and filter on) and legal
// transitions (TransactionState.validPreviousStates in Kafka).
//
// Threads: constants and pure functions only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::txn {

enum class TxnState : int8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};

std::string_view state_name(TxnState s);
std::optional<TxnState> state_from_name(std::string_view name);
std::optional<TxnState> state_from_id(int8_t id);

// Whether `to` may follow `from` (Kafka's validPreviousStates of `to`).
bool is_valid_transition(TxnState from, TxnState to);

// Whether a transactional id in this state may expire (transactional.id.expiration.ms).
bool is_expiration_allowed(TxnState s);
// Markers are being written: PrepareCommit / PrepareAbort.
inline bool is_prepare(TxnState s) { return s == TxnState::kPrepareCommit || s == TxnState::kPrepareAbort; }
inline bool is_complete(TxnState s) { return s == TxnState::kCompleteCommit || s == TxnState::kCompleteAbort; }

// Kafka's "TransactionVersion" feature levels as the client uses them: 0/1
// (explicit AddPartitionsToTxn, epoch bumped only by InitProducerId) and 2
// (KIP-890: the epoch is bumped by every EndTxn).
inline bool supports_epoch_bump(int16_t transaction_version) { return transaction_version >= 2; }

// A producer epoch this high cannot be bumped by a client operation: Kafka
// keeps Short.MAX_VALUE for the coordinator's fence (isEpochExhausted).
inline bool is_epoch_exhausted(int16_t epoch) { return epoch >= INT16_MAX - 1; }

inline constexpr int64_t kNoProducerId = -1;
inline constexpr int16_t kNoProducerEpoch = -1;

}  // namespace skiff::txn
