// to_error_code (coordinator/runtime/storage_errors.h): the one mapping of storage outcomes (log/types.h) to
// Kafka error codes, with the numbers Kafka's Errors.java gives them.
#include "coordinator/runtime/storage_errors.h"

#include <catch2/catch.hpp>
#include <set>

using skiff::ErrorCode;
using skiff::to_error_code;
using skiff::storage::LogErrc;

TEST_CASE("storage outcomes map to Kafka's error codes", "[api][errors]") {
  const std::pair<LogErrc, int16_t> expected[] = {
      {LogErrc::kNone, 0},
      {LogErrc::kCorruptMessage, 2},
      {LogErrc::kInvalidRecord, 87},
      {LogErrc::kMessageTooLarge, 10},
      {LogErrc::kUnsupportedForMessageFormat, 43},
      {LogErrc::kInvalidTimestamp, 32},
      {LogErrc::kStorageError, 56},
      {LogErrc::kOffsetOutOfRange, 1},
      {LogErrc::kUnknownTopicOrPartition, 3},
      {LogErrc::kTopicAlreadyExists, 36},
      {LogErrc::kInvalidPartitions, 37},
      {LogErrc::kInvalidConfig, 40},
      {LogErrc::kInvalidTopic, 17},
      {LogErrc::kInvalidRequest, 42},
      {LogErrc::kOutOfOrderSequence, 45},
      {LogErrc::kInvalidProducerEpoch, 47},
      {LogErrc::kPolicyViolation, 44},
      {LogErrc::kInvalidTxnState, 48},
      {LogErrc::kTransactionCoordinatorFenced, 52},
      {LogErrc::kOffsetMovedToTieredStorage, 109},  // Errors.OFFSET_MOVED_TO_TIERED_STORAGE
  };
  std::set<int16_t> seen;
  for (const auto& [e, code] : expected) {
    INFO(to_string(e));
    CHECK(static_cast<int16_t>(to_error_code(e)) == code);
    seen.insert(code);
  }
  CHECK(seen.size() == std::size(expected));  // no two outcomes share a code
  CHECK(to_error_code(static_cast<LogErrc>(1000)) == ErrorCode::kUnknownServerError);
}
