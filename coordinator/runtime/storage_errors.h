// to_error_code: the one place a storage outcome (log/'s LogErrc, or the
// outcome of a storage::Error) becomes a Kafka error code. Shared by the
// coordinators, which write their internal topics, and by the API
// handlers. In namespace skiff, beside ErrorCode (protocol/error_codes.h),
// so every layer above log/ and protocol/ calls it unqualified. Pure
// function; any thread.
#pragma once

#include <optional>

#include "log/result.h"
#include "log/types.h"
#include "protocol/error_codes.h"

namespace skiff {

ErrorCode to_error_code(storage::LogErrc e);
// The same for a storage::Result's error: its outcome's code.
inline ErrorCode to_error_code(const storage::Error& e) { return to_error_code(e.code); }

// What a coordinator answers when the append to its state topic failed with
// `e`, as Kafka maps it (TransactionStateManager.appendTransactionToLog,
// CoordinatorOperationExceptionHelper): UNKNOWN_TOPIC_OR_PARTITION,
// NOT_ENOUGH_REPLICAS and REQUEST_TIMED_OUT are COORDINATOR_NOT_AVAILABLE,
// NOT_LEADER_OR_FOLLOWER and KAFKA_STORAGE_ERROR are NOT_COORDINATOR;
// nullopt for any other code (each caller has its own rule for the rest).
inline std::optional<ErrorCode> coordinator_append_error(ErrorCode e) {
  switch (e) {
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kRequestTimedOut:
      return ErrorCode::kCoordinatorNotAvailable;
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kKafkaStorageError:
      return ErrorCode::kNotCoordinator;
    default:
      return std::nullopt;
  }
}

}  // namespace skiff
