#include "api/topics.h"

#include "api/api_log.h"
#include "api/group/group_coordinator.h"
#include "api/txn_state_store.h"
#include "common/log_escape.h"

namespace skiff::api {

// The one place a storage outcome becomes a Kafka error code.
ErrorCode to_error_code(storage::LogErrc e) {
  using storage::LogErrc;
  switch (e) {
    case LogErrc::kNone:
      return ErrorCode::kNone;
    case LogErrc::kCorruptMessage:
      return ErrorCode::kCorruptMessage;
    case LogErrc::kInvalidRecord:
      return ErrorCode::kInvalidRecord;
    case LogErrc::kMessageTooLarge:
      return ErrorCode::kMessageTooLarge;
    case LogErrc::kUnsupportedForMessageFormat:
      return ErrorCode::kUnsupportedForMessageFormat;
    case LogErrc::kInvalidTimestamp:
      return ErrorCode::kInvalidTimestamp;
    case LogErrc::kStorageError:
      return ErrorCode::kKafkaStorageError;
    case LogErrc::kOffsetOutOfRange:
      return ErrorCode::kOffsetOutOfRange;
    case LogErrc::kUnknownTopicOrPartition:
      return ErrorCode::kUnknownTopicOrPartition;
    case LogErrc::kTopicAlreadyExists:
      return ErrorCode::kTopicAlreadyExists;
    case LogErrc::kInvalidPartitions:
      return ErrorCode::kInvalidPartitions;
    case LogErrc::kInvalidConfig:
      return ErrorCode::kInvalidConfig;
    case LogErrc::kInvalidTopic:
      return ErrorCode::kInvalidTopicException;
    case LogErrc::kInvalidRequest:
      return ErrorCode::kInvalidRequest;
    case LogErrc::kOutOfOrderSequence:
      return ErrorCode::kOutOfOrderSequenceNumber;
    case LogErrc::kInvalidProducerEpoch:
      return ErrorCode::kInvalidProducerEpoch;
    case LogErrc::kPolicyViolation:
      return ErrorCode::kPolicyViolation;
    case LogErrc::kInvalidTxnState:
      return ErrorCode::kInvalidTxnState;
    case LogErrc::kTransactionCoordinatorFenced:
      return ErrorCode::kTransactionCoordinatorFenced;
  }
  return ErrorCode::kUnknownServerError;
}

TopicLookup find_topic_by_name_or_id(BrokerServices& services, const std::string& name, const Uuid& id, bool by_id) {
  auto info = by_id ? services.logs.topic_by_id(id) : services.logs.topic(name);
  if (info) return {ErrorCode::kNone, std::move(info)};
  return {by_id ? ErrorCode::kUnknownTopicId : ErrorCode::kUnknownTopicOrPartition, std::nullopt};
}

TopicLookup find_topic(BrokerServices& services, const std::string& name, bool allow_create) {
  if (auto t = services.logs.topic(name)) return {ErrorCode::kNone, std::move(t)};
  if (!storage::LogManager::valid_topic_name(name)) return {ErrorCode::kInvalidTopicException, std::nullopt};
  // __transaction_state is the coordinator's to create, compacted and with
  // its own segment size (api/txn_state_store.h), never a client's default topic.
  if (!allow_create || !services.config.auto_create_topics_enable || name == kTransactionStateTopic)
    return {ErrorCode::kUnknownTopicOrPartition, std::nullopt};
  // __consumer_offsets is created as the group coordinator's (compacted,
  // offsets.topic.*), as Kafka's AutoTopicCreationManager does.
  if (name == group::kConsumerOffsetsTopic) {
    if (!services.groups || !services.groups->ensure_offsets_topic())
      return {ErrorCode::kCoordinatorNotAvailable, std::nullopt};
    if (auto t = services.logs.topic(name)) return {ErrorCode::kNone, std::move(t)};
    return {ErrorCode::kUnknownTopicOrPartition, std::nullopt};
  }
  auto created = services.logs.create_topic(name, services.config.num_partitions);
  if (created.error == storage::LogErrc::kNone) {
    api_log().info("auto-created topic {} with {} partition(s)", escaped(name), services.config.num_partitions);
  } else if (created.error != storage::LogErrc::kTopicAlreadyExists) {  // a racing creator is fine
    api_log().warn("auto-creating topic {} failed: {}", escaped(name), escaped(created.message));
    return {to_error_code(created.error), std::nullopt};
  }
  if (auto t = services.logs.topic(name)) return {ErrorCode::kNone, std::move(t)};
  return {ErrorCode::kUnknownTopicOrPartition, std::nullopt};
}

bool is_internal_topic(std::string_view name) {
  return name == group::kConsumerOffsetsTopic || name == kTransactionStateTopic;
}

std::shared_ptr<storage::Log> find_log(BrokerServices& services, const std::string& topic, int32_t partition) {
  return services.logs.get_log(topic, partition);
}

}  // namespace skiff::api
