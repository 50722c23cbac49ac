// Small value types shared by the storage layer: strong offset type, error
// outcomes that the API layer maps to Kafka error codes, timestamp types.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace skiff::storage {

// A Kafka offset (position of a record in a partition). Strong type so that
// offsets are not confused with byte positions or sizes.
struct Offset {
  int64_t value = 0;
  constexpr Offset() = default;
  constexpr explicit Offset(int64_t v) : value(v) {}
  constexpr auto operator<=>(const Offset&) const = default;
  constexpr Offset operator+(int64_t d) const { return Offset(value + d); }
  constexpr Offset operator-(int64_t d) const { return Offset(value - d); }
};

// Outcomes of log operations (Error::code, result.h). The layers above map
// them to Kafka error codes (to_error_code in
// coordinator/runtime/storage_errors.h; the code each becomes is in the
// comment), so log/ needs nothing of the protocol.
enum class LogErrc : int {
  kNone = 0,
  kCorruptMessage,                // 2  CORRUPT_MESSAGE: CRC or size mismatch
  kInvalidRecord,                 // 87 INVALID_RECORD: record-level structure invalid
  kMessageTooLarge,               // 10 MESSAGE_TOO_LARGE: batch > max.message.bytes
  kUnsupportedForMessageFormat,   // 43 UNSUPPORTED_FOR_MESSAGE_FORMAT: magic != 2
  kInvalidTimestamp,              // 32 INVALID_TIMESTAMP
  kStorageError,                  // 56 KAFKA_STORAGE_ERROR: I/O failure (ENOSPC, EIO)
  kOffsetOutOfRange,              // 1  OFFSET_OUT_OF_RANGE
  kUnknownTopicOrPartition,       // 3  UNKNOWN_TOPIC_OR_PARTITION
  kTopicAlreadyExists,            // 36 TOPIC_ALREADY_EXISTS
  kInvalidPartitions,             // 37 INVALID_PARTITIONS
  kInvalidConfig,                 // 40 INVALID_CONFIG
  kInvalidTopic,                  // 17 INVALID_TOPIC_EXCEPTION
  kInvalidRequest,                // 42 INVALID_REQUEST (e.g. empty produce payload)
  kOutOfOrderSequence,            // 45 OUT_OF_ORDER_SEQUENCE_NUMBER (idempotent producer)
  kInvalidProducerEpoch,          // 47 INVALID_PRODUCER_EPOCH (a fenced, older epoch)
  kPolicyViolation,               // 44 POLICY_VIOLATION (a broker limit, e.g. on partitions)
  kInvalidTxnState,               // 48 INVALID_TXN_STATE (plain write while the producer's transaction is open)
  kTransactionCoordinatorFenced,  // 52 TRANSACTION_COORDINATOR_FENCED (a marker from an older coordinator epoch)
  // 109 OFFSET_MOVED_TO_TIERED_STORAGE: a read at or above the log start but
  // below the local log start (tiered storage): the data is in remote
  // storage only. Kafka answers a follower with this code and routes a
  // consumer's fetch to a remote read instead.
  kOffsetMovedToTieredStorage,
};
// How many outcomes there are: one more than the last. Adding an outcome
// means raising it; then the tables indexed by LogErrc (to_string here,
// to_error_code) stop compiling until they have its row.
inline constexpr size_t kLogErrcCount = static_cast<size_t>(LogErrc::kOffsetMovedToTieredStorage) + 1;

// The outcome's name, for log lines and tests.
std::string_view to_string(LogErrc e);

enum class TimestampType : int8_t { kCreateTime = 0, kLogAppendTime = 1 };

constexpr int64_t kNoTimestamp = -1;

}  // namespace skiff::storage
