#include "log/types.h"

#include <array>
#include <utility>

namespace skiff::storage {

namespace {
// Row i names LogErrc i (checked below), so a lookup is an index.
constexpr std::array<std::pair<LogErrc, std::string_view>, kLogErrcCount> kNames{{
    {LogErrc::kNone, "NONE"},
    {LogErrc::kCorruptMessage, "CORRUPT_MESSAGE"},
    {LogErrc::kInvalidRecord, "INVALID_RECORD"},
    {LogErrc::kMessageTooLarge, "MESSAGE_TOO_LARGE"},
    {LogErrc::kUnsupportedForMessageFormat, "UNSUPPORTED_FOR_MESSAGE_FORMAT"},
    {LogErrc::kInvalidTimestamp, "INVALID_TIMESTAMP"},
    {LogErrc::kStorageError, "KAFKA_STORAGE_ERROR"},
    {LogErrc::kOffsetOutOfRange, "OFFSET_OUT_OF_RANGE"},
    {LogErrc::kUnknownTopicOrPartition, "UNKNOWN_TOPIC_OR_PARTITION"},
    {LogErrc::kTopicAlreadyExists, "TOPIC_ALREADY_EXISTS"},
    {LogErrc::kInvalidPartitions, "INVALID_PARTITIONS"},
    {LogErrc::kInvalidConfig, "INVALID_CONFIG"},
    {LogErrc::kInvalidTopic, "INVALID_TOPIC_EXCEPTION"},
    {LogErrc::kInvalidRequest, "INVALID_REQUEST"},
    {LogErrc::kOutOfOrderSequence, "OUT_OF_ORDER_SEQUENCE_NUMBER"},
    {LogErrc::kInvalidProducerEpoch, "INVALID_PRODUCER_EPOCH"},
    {LogErrc::kPolicyViolation, "POLICY_VIOLATION"},
    {LogErrc::kInvalidTxnState, "INVALID_TXN_STATE"},
    {LogErrc::kTransactionCoordinatorFenced, "TRANSACTION_COORDINATOR_FENCED"},
    {LogErrc::kOffsetMovedToTieredStorage, "OFFSET_MOVED_TO_TIERED_STORAGE"},
}};

constexpr bool rows_in_order() {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (static_cast<size_t>(kNames[i].first) != i) return false;
  return true;
}
static_assert(rows_in_order(), "kNames: one row per LogErrc, in declaration order");
}  // namespace

std::string_view to_string(LogErrc e) {
  const auto i = static_cast<size_t>(e);
  return i < kNames.size() ? kNames[i].second : "UNKNOWN";
}

}  // namespace skiff::storage
