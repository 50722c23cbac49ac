// Topic look-ups shared by the handlers: by name or id, auto-creation when
// the broker allows it. (Storage outcomes become Kafka errors in
// coordinator/runtime/storage_errors.h.)
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/broker_services.h"
#include "coordinator/runtime/storage_errors.h"
#include "log/topic_store.h"
#include "log/types.h"
#include "protocol/error_codes.h"
#include "protocol/types.h"

namespace skiff::api {

// Most partitions one CreateTopics or CreatePartitions request may add, as
// Kafka's controller (ReplicationControlManager.MAX_PARTITIONS_PER_BATCH):
// beyond it every topic of the request gets POLICY_VIOLATION, before anything
// is created. The broker-wide total is skiff.max.partitions (LogManager).
inline constexpr int64_t kMaxPartitionsPerRequest = 10000;

struct TopicLookup {
  ErrorCode error = ErrorCode::kNone;
  std::optional<storage::TopicInfo> topic;
};

// The topic, creating it with num.partitions when `allow_create` and
// auto.create.topics.enable are set. An illegal name: INVALID_TOPIC_EXCEPTION;
// absent: UNKNOWN_TOPIC_OR_PARTITION.
TopicLookup find_topic(BrokerServices& services, const std::string& name, bool allow_create);

// A topic a request names by id (`by_id`: the versions that carry topic ids)
// or by name. Unknown: UNKNOWN_TOPIC_ID for an id (the zero id included),
// UNKNOWN_TOPIC_OR_PARTITION for a name, as Kafka 4.4's offset handlers.
TopicLookup find_topic_by_name_or_id(BrokerServices& services, const std::string& name, const Uuid& id, bool by_id);

// Kafka's internal topics (Topic.isInternal): __consumer_offsets,
// __transaction_state and __share_group_state. Listed with is_internal=true; clients may read them,
// never produce to them (INVALID_TOPIC_EXCEPTION, as Kafka's ReplicaManager).
bool is_internal_topic(std::string_view name);

// The topic's partition log, or nothing (UNKNOWN_TOPIC_OR_PARTITION).
std::shared_ptr<storage::Log> find_log(BrokerServices& services, const std::string& topic, int32_t partition);

}  // namespace skiff::api
