#include "api/handlers/create_topics_handler.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/admin/config_describer.h"
#include "api/admin/topic_config_change.h"
#include "api/api_log.h"
#include "api/authorize.h"
#include "api/topics.h"
#include "common/log_escape.h"

namespace skiff::api {
namespace {

using protocol::CreateTopicsResponse;
using TopicResult = CreateTopicsResponse::CreatableTopicResult;

template <class PerTopic>
CreateTopicsResponse mirror(const protocol::CreateTopicsRequest& body, PerTopic&& answer) {
  CreateTopicsResponse resp;
  for (const auto& t : body.topics) {
    TopicResult r = answer(t);
    r.name = t.name;
    resp.topics.push_back(std::move(r));
  }
  return resp;
}

// The partitions a request asks for, counted as Kafka's
// validateTotalNumberOfPartitions counts them.
int64_t requested_partitions(const protocol::CreateTopicsRequest& body, int32_t default_partitions) {
  int64_t total = 0;
  for (const auto& t : body.topics) {
    if (!t.assignments.empty())
      total += static_cast<int64_t>(t.assignments.size());
    else if (t.num_partitions == -1)
      total += default_partitions;
    else if (t.num_partitions > 0)
      total += t.num_partitions;
  }
  return total;
}

TopicResult topic_failed(ErrorCode error, std::string message, int16_t version) {
  TopicResult r;
  r.error_code = code(error);
  r.error_message = std::move(message);
  if (version >= 5) r.topic_config_error_code = code(error);
  return r;
}

// The topic's partition count and replication factor from the request and
// the broker's defaults (explicit assignments must all name this broker; a
// factor above 1 only with skiff.accept.replication.factor.enable, as 1).
// A failure: the topic's answer.
std::optional<TopicResult> resolve_layout(BrokerServices& services,
                                          const protocol::CreateTopicsRequest::CreatableTopic& t, int16_t version,
                                          int32_t& partitions, int16_t& replication) {
  partitions = t.num_partitions;
  replication = t.replication_factor;
  if (!t.assignments.empty()) {
    if (partitions != -1 || replication != -1)
      return topic_failed(ErrorCode::kInvalidRequest,
                          "Both numPartitions or replicationFactor and replicasAssignments were set.", version);
    for (const auto& a : t.assignments) {
      if (a.broker_ids.size() != 1 || a.broker_ids[0] != services.broker.node_id)
        return topic_failed(ErrorCode::kInvalidReplicaAssignment,
                            "Skiff is a single broker: every partition's only replica must be broker " +
                                std::to_string(services.broker.node_id) + ".",
                            version);
    }
    partitions = static_cast<int32_t>(t.assignments.size());
    replication = 1;
  }
  if (partitions == -1) partitions = services.config.num_partitions;
  if (partitions <= 0)
    return topic_failed(ErrorCode::kInvalidPartitions, "Number of partitions must be larger than 0.", version);
  if (replication == -1) replication = services.config.default_replication_factor;
  if (replication <= 0)
    return topic_failed(ErrorCode::kInvalidReplicationFactor, "Replication factor must be larger than 0.", version);
  if (replication > 1) {
    if (!services.config.accept_replication_factor) {
      return topic_failed(ErrorCode::kInvalidReplicationFactor,
                          "Unable to replicate the partition " + std::to_string(replication) +
                              " time(s): Skiff is a single broker. Use replication factor 1, or set "
                              "skiff.accept.replication.factor.enable=true to accept it as 1.",
                          version);
    }
    api_log().warn("topic {}: replication factor {} requested; a single broker keeps one replica", escaped(t.name),
                   replication);
    replication = 1;
  }
  return std::nullopt;
}

// v5+: the new topic's configs, as DescribeConfigs would show them.
std::vector<CreateTopicsResponse::CreatableTopicConfigs> new_topic_configs(
    BrokerServices& services, const std::map<std::string, std::string>& overrides) {
  std::vector<CreateTopicsResponse::CreatableTopicConfigs> configs;
  for (auto& e : admin::describe_new_topic(services, overrides)) {
    CreateTopicsResponse::CreatableTopicConfigs c;
    c.name = e.name;
    c.value = e.value;
    c.read_only = e.read_only;
    c.config_source = static_cast<int8_t>(e.source);
    c.is_sensitive = e.sensitive;
    configs.push_back(std::move(c));
  }
  return configs;
}

}  // namespace

TopicResult create_topic_as_requested(BrokerServices& services, const protocol::CreateTopicsRequest::CreatableTopic& t,
                                      bool validate_only, int16_t version) {
  int32_t partitions = 0;
  int16_t replication = 0;
  if (auto bad = resolve_layout(services, t, version, partitions, replication)) return std::move(*bad);
  std::map<std::string, std::string> overrides;
  for (const auto& c : t.configs) {
    if (!c.value)
      return topic_failed(ErrorCode::kInvalidConfig, "Null value not supported for topic configs: " + c.name, version);
    overrides[c.name] = *c.value;
  }
  if (auto r = admin::check_topic_configs_in_context(services, overrides, {}); r.error != ErrorCode::kNone)
    return topic_failed(r.error, r.message.value_or(""), version);
  auto created = services.logs.create_topic(t.name, partitions, overrides, validate_only);
  if (!created) return topic_failed(to_error_code(created.error()), created.error().message, version);
  if (!validate_only)
    api_log().info("created topic {} with {} partition(s){}", escaped(t.name), partitions,
                   overrides.empty() ? "" : " and config overrides");
  TopicResult r;
  r.error_message = std::nullopt;
  r.topic_id = created->topic_id;
  r.num_partitions = partitions;
  r.replication_factor = replication;
  if (version >= 5) r.configs = new_topic_configs(services, overrides);
  return r;
}

void CreateTopicsHandler::handle(ApiRequest& request, protocol::CreateTopicsRequest& body, Responder& out) {
  const int16_t version = request.api_version();
  if (requested_partitions(body, services_.config.num_partitions) > kMaxPartitionsPerRequest) {
    out.send(mirror(body, [&](const auto&) {
      return topic_failed(ErrorCode::kPolicyViolation, "Excessively large number of partitions per request.", version);
    }));
    return;
  }
  std::map<std::string, int> seen;
  for (const auto& t : body.topics) ++seen[t.name];
  // CREATE on the cluster, or else on each topic; the new topic's configs are
  // shown only with DESCRIBE_CONFIGS on it (KafkaApis.handleCreateTopicsRequest).
  const bool cluster_create = authorized_cluster(services_, request, AclOperation::kCreate);
  out.send(mirror(body, [&](const protocol::CreateTopicsRequest::CreatableTopic& t) -> TopicResult {
    if (seen[t.name] > 1)
      return topic_failed(ErrorCode::kInvalidRequest, "Duplicate topic name in the request.", version);
    if (!cluster_create && !authorized_topic(services_, request, AclOperation::kCreate, t.name))
      return topic_failed(ErrorCode::kTopicAuthorizationFailed, "Authorization failed.", version);
    auto r = create_topic_as_requested(services_, t, body.validate_only, version);
    if (version >= 5 && r.error_code == 0 &&
        !authorized_topic(services_, request, AclOperation::kDescribeConfigs, t.name)) {
      r.configs = std::nullopt;
      r.topic_config_error_code = code(ErrorCode::kTopicAuthorizationFailed);
    }
    return r;
  }));
}

CreateTopicsResponse CreateTopicsHandler::error_response(const protocol::CreateTopicsRequest& body, ErrorCode error) {
  return mirror(body, [&](const auto&) { return topic_failed(error, "", 7); });
}

}  // namespace skiff::api
