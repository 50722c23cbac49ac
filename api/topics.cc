#include "api/topics.h"

#include <array>
#include <utility>

#include "api/api_log.h"
#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/storage_errors.h"
#include "coordinator/share/share_types.h"
#include "coordinator/txn/txn_state_store.h"

namespace skiff::api {

TopicLookup find_topic_by_name_or_id(BrokerServices& services, const std::string& name, const Uuid& id, bool by_id) {
  auto info = by_id ? services.logs.topic_by_id(id) : services.logs.topic(name);
  if (info) return {ErrorCode::kNone, std::move(info)};
  return {by_id ? ErrorCode::kUnknownTopicId : ErrorCode::kUnknownTopicOrPartition, std::nullopt};
}

TopicLookup find_topic(BrokerServices& services, const std::string& name, bool allow_create) {
  if (auto t = services.logs.topic(name)) return {ErrorCode::kNone, std::move(t)};
  if (!storage::LogManager::valid_topic_name(name)) return {ErrorCode::kInvalidTopicException, std::nullopt};
  // __transaction_state is the coordinator's to create, compacted and with
  // its own segment size (coordinator/txn/txn_state_store.h), never a client's default topic.
  if (!allow_create || !services.config.auto_create_topics_enable || name == txn::kTransactionStateTopic)
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
  if (created) {
    api_log().info("auto-created topic {} with {} partition(s)", escaped(name), services.config.num_partitions);
  } else if (created.error().code != storage::LogErrc::kTopicAlreadyExists) {  // a racing creator is fine
    api_log().warn("auto-creating topic {} failed: {}", escaped(name), escaped(created.error().message));
    return {to_error_code(created.error()), std::nullopt};
  }
  if (auto t = services.logs.topic(name)) return {ErrorCode::kNone, std::move(t)};
  return {ErrorCode::kUnknownTopicOrPartition, std::nullopt};
}

bool is_internal_topic(std::string_view name) {
  return name == group::kConsumerOffsetsTopic || name == txn::kTransactionStateTopic ||
         name == sharecoord::kShareGroupStateTopic;
}

std::shared_ptr<storage::Log> find_log(BrokerServices& services, const std::string& topic, int32_t partition) {
  return services.logs.get_log(topic, partition);
}

}  // namespace skiff::api
