#include "coordinator/runtime/storage_errors.h"

#include <array>
#include <utility>

namespace skiff {

namespace {
using storage::LogErrc;
// Row i maps LogErrc i (checked below), so the mapping is an index.
constexpr std::array<std::pair<LogErrc, ErrorCode>, storage::kLogErrcCount> kStorageErrors{{
    {LogErrc::kNone, ErrorCode::kNone},
    {LogErrc::kCorruptMessage, ErrorCode::kCorruptMessage},
    {LogErrc::kInvalidRecord, ErrorCode::kInvalidRecord},
    {LogErrc::kMessageTooLarge, ErrorCode::kMessageTooLarge},
    {LogErrc::kUnsupportedForMessageFormat, ErrorCode::kUnsupportedForMessageFormat},
    {LogErrc::kInvalidTimestamp, ErrorCode::kInvalidTimestamp},
    {LogErrc::kStorageError, ErrorCode::kKafkaStorageError},
    {LogErrc::kOffsetOutOfRange, ErrorCode::kOffsetOutOfRange},
    {LogErrc::kUnknownTopicOrPartition, ErrorCode::kUnknownTopicOrPartition},
    {LogErrc::kTopicAlreadyExists, ErrorCode::kTopicAlreadyExists},
    {LogErrc::kInvalidPartitions, ErrorCode::kInvalidPartitions},
    {LogErrc::kInvalidConfig, ErrorCode::kInvalidConfig},
    {LogErrc::kInvalidTopic, ErrorCode::kInvalidTopicException},
    {LogErrc::kInvalidRequest, ErrorCode::kInvalidRequest},
    {LogErrc::kOutOfOrderSequence, ErrorCode::kOutOfOrderSequenceNumber},
    {LogErrc::kInvalidProducerEpoch, ErrorCode::kInvalidProducerEpoch},
    {LogErrc::kPolicyViolation, ErrorCode::kPolicyViolation},
    {LogErrc::kInvalidTxnState, ErrorCode::kInvalidTxnState},
    {LogErrc::kTransactionCoordinatorFenced, ErrorCode::kTransactionCoordinatorFenced},
    {LogErrc::kOffsetMovedToTieredStorage, ErrorCode::kOffsetMovedToTieredStorage},
}};

constexpr bool rows_in_order() {
  for (size_t i = 0; i < kStorageErrors.size(); ++i)
    if (static_cast<size_t>(kStorageErrors[i].first) != i) return false;
  return true;
}
static_assert(rows_in_order(), "kStorageErrors: one row per LogErrc, in declaration order");
}  // namespace

// The one place a storage outcome becomes a Kafka error code.
ErrorCode to_error_code(storage::LogErrc e) {
  const auto i = static_cast<size_t>(e);
  return i < kStorageErrors.size() ? kStorageErrors[i].second : ErrorCode::kUnknownServerError;
}

}  // namespace skiff
