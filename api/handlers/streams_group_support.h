// What the streams-group handlers (KIP-1071) check and add around the group
// coordinator, as Kafka 4.4's KafkaApis does: the topology's topic names
// before a StreamsGroupHeartbeat reaches the coordinator, and the
// MISSING_INTERNAL_TOPICS status detail after it, when the member may not
// create the internal topics the group needs or their creation failed.
//
// Functions on the generated messages (no authorizer: the handlers pass the
// ACL answers in, so the checks and messages are tested alone,
// tests/api/streams_group_api_test.cc); create_internal_topics also creates
// topics through CreateTopics' path.
//
// Threads: plain functions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/broker_services.h"
#include "coordinator/group/streams/topic_configuration.h"
#include "coordinator/group/streams_group_types.h"
#include "protocol/error_codes.h"
#include "protocol/generated/streams_group_heartbeat_request.h"
#include "protocol/generated/streams_group_heartbeat_response.h"

namespace skiff::api::streams_group {

inline constexpr auto kMissingInternalTopicsStatus =
    static_cast<int8_t>(group::streams::StreamsStatus::kMissingInternalTopics);

// Every topic a topology names, as KafkaApis gathers them: per subtopology its
// source topics, repartition sink topics, repartition source topics and
// changelog topics, in that order, each name once (its first place).
std::vector<std::string> required_topics(const protocol::StreamsGroupHeartbeatRequest::Topology& topology);

struct TopologyRefusal {
  ErrorCode error = ErrorCode::kNone;
  std::optional<std::string> message;  // Kafka sends none with TOPIC_AUTHORIZATION_FAILED
};

// The checks of KafkaApis.handleStreamsGroupHeartbeat on `topics`
// (required_topics), in Kafka's order: Kafka's internal topics, then invalid
// names (STREAMS_INVALID_TOPOLOGY with Kafka's messages, the names joined
// with ","), then DESCRIBE on each (TOPIC_AUTHORIZATION_FAILED).
// `may_describe(name)`: the principal's DESCRIBE on that topic.
template <typename MayDescribe>
std::optional<TopologyRefusal> topology_refusal(const std::vector<std::string>& topics, MayDescribe&& may_describe);

// "a,b": the names joined as Scala's mkString(sep).
std::string joined(const std::vector<std::string>& names, const char* sep);

std::optional<TopologyRefusal> internal_or_invalid_topics(const std::vector<std::string>& topics);

template <typename MayDescribe>
std::optional<TopologyRefusal> topology_refusal(const std::vector<std::string>& topics, MayDescribe&& may_describe) {
  if (auto bad = internal_or_invalid_topics(topics)) return bad;
  for (const auto& t : topics)
    if (!may_describe(t)) return TopologyRefusal{ErrorCode::kTopicAuthorizationFailed, std::nullopt};
  return std::nullopt;
}

// Appends `detail_suffix` to the MISSING_INTERNAL_TOPICS status detail
// ("<detail>; <suffix>"), or adds that status with `new_detail` when the
// response has none (Kafka's handling of CREATE denied).
void note_missing_internal_topics(protocol::StreamsGroupHeartbeatResponse& response, const std::string& new_detail,
                                  const std::string& detail_suffix);

// CREATE denied on `topics` (in the order the coordinator listed them):
// "Unauthorized to CREATE on topics a, b." as Kafka words it.
void note_create_denied(protocol::StreamsGroupHeartbeatResponse& response, const std::vector<std::string>& topics);

// Creations that failed (topic, message), when the response carries the
// MISSING_INTERNAL_TOPICS status: "; Creation failed: a (msg), b (msg)." with
// at most three named and " and N more" after them, as Kafka's.
void note_creation_failures(protocol::StreamsGroupHeartbeatResponse& response,
                            const std::vector<std::pair<std::string, std::string>>& failures);

// After the coordinator: the internal topics `result.to_create` names. If the
// principal may not CREATE one of them (`may_create`: CREATE on the cluster
// or on that topic), none is created and the denied ones are named in the
// status (note_create_denied), as Kafka; else each is created as CreateTopics
// creates it (partitions, replication factor -1 = the broker's default, the
// topology's configs), an existing one is no failure, and the failures are
// noted (note_creation_failures) and logged. The caller holds no group lock.
// True when every topic exists now.
bool create_internal_topics(BrokerServices& services, const std::function<bool(const std::string&)>& may_create,
                            const std::string& group_id, group::StreamsHeartbeatResult& result);

}  // namespace skiff::api::streams_group
