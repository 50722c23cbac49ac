#include "coordinator/txn/txn_state.h"

#include <array>

namespace skiff::txn {

namespace {

constexpr std::array<std::string_view, 8> kNames = {"Empty",        "Ongoing",          "PrepareCommit",
                                                    "PrepareAbort", "CompleteCommit",   "CompleteAbort",
                                                    "Dead",         "PrepareEpochFence"};

bool is_complete_or_empty(TxnState s) {
  return s == TxnState::kEmpty || s == TxnState::kCompleteCommit || s == TxnState::kCompleteAbort;
}

}  // namespace

std::string_view state_name(TxnState s) {
  const auto i = static_cast<size_t>(s);
  return i < kNames.size() ? kNames[i] : std::string_view("Unknown");
}

std::optional<TxnState> state_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<TxnState>(i);
  }
  return std::nullopt;
}

std::optional<TxnState> state_from_id(int8_t id) {
  if (id < 0 || id >= static_cast<int8_t>(kNames.size())) return std::nullopt;
  return static_cast<TxnState>(id);
}

bool is_valid_transition(TxnState from, TxnState to) {
  switch (to) {
    case TxnState::kEmpty:
    case TxnState::kDead:
      return is_complete_or_empty(from);
    case TxnState::kOngoing:
      return from == TxnState::kOngoing || is_complete_or_empty(from);
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareEpochFence:
      return from == TxnState::kOngoing;
    case TxnState::kPrepareAbort:  // from Empty/Complete*: TV2's abort of a transaction with no partitions
      return from == TxnState::kOngoing || from == TxnState::kPrepareEpochFence || is_complete_or_empty(from);
    case TxnState::kCompleteCommit:
      return from == TxnState::kPrepareCommit;
    case TxnState::kCompleteAbort:
      return from == TxnState::kPrepareAbort;
  }
  return false;
}

bool is_expiration_allowed(TxnState s) { return is_complete_or_empty(s); }

}  // namespace skiff::txn
