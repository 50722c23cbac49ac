#include "log/types.h"

namespace skiff::storage {

std::string_view to_string(LogErrc e) {
  switch (e) {
    case LogErrc::kNone:
      return "NONE";
    case LogErrc::kCorruptMessage:
      return "CORRUPT_MESSAGE";
    case LogErrc::kInvalidRecord:
      return "INVALID_RECORD";
    case LogErrc::kMessageTooLarge:
      return "MESSAGE_TOO_LARGE";
    case LogErrc::kUnsupportedForMessageFormat:
      return "UNSUPPORTED_FOR_MESSAGE_FORMAT";
    case LogErrc::kInvalidTimestamp:
      return "INVALID_TIMESTAMP";
    case LogErrc::kStorageError:
      return "KAFKA_STORAGE_ERROR";
    case LogErrc::kOffsetOutOfRange:
      return "OFFSET_OUT_OF_RANGE";
    case LogErrc::kUnknownTopicOrPartition:
      return "UNKNOWN_TOPIC_OR_PARTITION";
    case LogErrc::kTopicAlreadyExists:
      return "TOPIC_ALREADY_EXISTS";
    case LogErrc::kInvalidPartitions:
      return "INVALID_PARTITIONS";
    case LogErrc::kInvalidConfig:
      return "INVALID_CONFIG";
    case LogErrc::kInvalidTopic:
      return "INVALID_TOPIC_EXCEPTION";
    case LogErrc::kInvalidRequest:
      return "INVALID_REQUEST";
    case LogErrc::kOutOfOrderSequence:
      return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case LogErrc::kInvalidProducerEpoch:
      return "INVALID_PRODUCER_EPOCH";
    case LogErrc::kPolicyViolation:
      return "POLICY_VIOLATION";
    case LogErrc::kInvalidTxnState:
      return "INVALID_TXN_STATE";
    case LogErrc::kTransactionCoordinatorFenced:
      return "TRANSACTION_COORDINATOR_FENCED";
  }
  return "UNKNOWN";
}

}  // namespace skiff::storage
