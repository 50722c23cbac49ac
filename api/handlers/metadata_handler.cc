#include "api/handlers/metadata_handler.h"

#include "api/authorize.h"
#include "api/broker_info.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::MetadataResponse;

MetadataResponse::MetadataResponseTopic describe(const storage::TopicInfo& info, int32_t node_id) {
  MetadataResponse::MetadataResponseTopic t;
  t.name = info.name;
  t.topic_id = info.topic_id;
  t.is_internal = is_internal_topic(info.name);
  for (int32_t p = 0; p < info.partitions; ++p) {
    MetadataResponse::MetadataResponsePartition part;
    part.partition_index = p;
    part.leader_id = node_id;
    part.leader_epoch = kLeaderEpoch;
    part.replica_nodes = {node_id};
    part.isr_nodes = {node_id};
    t.partitions.push_back(std::move(part));
  }
  return t;
}

MetadataResponse::MetadataResponseTopic topic_metadata_failed(const std::optional<std::string>& name,
                                                              const protocol::Uuid& id, ErrorCode error) {
  MetadataResponse::MetadataResponseTopic t;
  t.error_code = code(error);
  t.name = name;
  t.topic_id = id;
  return t;
}

}  // namespace

MetadataResponse MetadataHandler::base_response(const ApiRequest& request) const {
  MetadataResponse resp;
  const auto& ep = services_.broker.endpoint_for(request.context().listener_name);
  MetadataResponse::MetadataResponseBroker b;
  b.node_id = services_.broker.node_id;
  b.host = ep.host;
  b.port = ep.port;
  resp.brokers.push_back(std::move(b));
  resp.cluster_id = services_.broker.cluster_id;
  resp.controller_id = services_.broker.node_id;
  return resp;
}

// As KafkaApis.handleTopicMetadataRequest with an authorizer: topics the
// principal may not DESCRIBE are left out of an all-topics answer and
// answered TOPIC_AUTHORIZATION_FAILED when named (by id: with a null name);
// auto-creation needs CREATE on the cluster or the topic, else
// TOPIC_AUTHORIZATION_FAILED.
MetadataResponse::MetadataResponseTopic MetadataHandler::answer_topic(const ApiRequest& request,
                                                                      const protocol::MetadataRequest& body,
                                                                      const MetadataRequestTopic& requested) {
  // By topic id (v10+) when one is given: the Java client sends the id
  // with the name left at its default "" (MetadataRequest.Builder.forTopicIds,
  // used by a consumer with a SubscriptionPattern); Kafka looks up the id.
  if (!requested.name || !requested.topic_id.is_zero()) {
    auto info = services_.logs.topic_by_id(requested.topic_id);
    if (!info) return topic_metadata_failed(std::nullopt, requested.topic_id, ErrorCode::kUnknownTopicId);
    if (!authorized_topic(services_, request, AclOperation::kDescribe, info->name))
      return topic_metadata_failed(std::nullopt, requested.topic_id, ErrorCode::kTopicAuthorizationFailed);
    return describe(*info, services_.broker.node_id);
  }
  const std::string& name = *requested.name;
  auto unauthorized = [&] {
    auto t = topic_metadata_failed(name, protocol::Uuid{}, ErrorCode::kTopicAuthorizationFailed);
    t.is_internal = is_internal_topic(name);
    return t;
  };
  if (!authorized_topic(services_, request, AclOperation::kDescribe, name)) return unauthorized();
  // Before v4 a client could not ask, and Kafka auto-created by broker config alone.
  const bool allow_create = request.api_version() < 4 || body.allow_auto_topic_creation;
  auto found = find_topic(services_, name, /*allow_create=*/false);
  if (!found.topic && found.error == ErrorCode::kUnknownTopicOrPartition && allow_create &&
      services_.config.auto_create_topics_enable) {
    if (!may_create_topic(services_, request, name)) return unauthorized();
    found = find_topic(services_, name, /*allow_create=*/true);
  }
  return found.topic ? describe(*found.topic, services_.broker.node_id)
                     : topic_metadata_failed(requested.name, requested.topic_id, found.error);
}

void MetadataHandler::handle(ApiRequest& request, protocol::MetadataRequest& body, Responder& out) {
  auto resp = base_response(request);
  const int16_t version = request.api_version();
  if (version >= 8 && version <= 10 && body.include_cluster_authorized_operations)
    resp.cluster_authorized_operations =
        authorized_cluster(services_, request, AclOperation::kDescribe)
            ? authorized_ops(services_, request, ResourceType::kCluster, kClusterResourceName)
            : 0;
  // v0: an empty list means every topic; v1+: null means every topic.
  const bool all_topics = !body.topics || (version == 0 && body.topics->empty());
  if (all_topics) {
    for (const auto& info : services_.logs.list_topics())
      if (authorized_topic(services_, request, AclOperation::kDescribe, info.name))
        resp.topics.push_back(describe(info, services_.broker.node_id));
  } else {
    for (const auto& requested : *body.topics) resp.topics.push_back(answer_topic(request, body, requested));
  }
  if (version >= 8 && body.include_topic_authorized_operations)
    for (auto& t : resp.topics)
      if (t.error_code == 0)
        t.topic_authorized_operations = authorized_ops(services_, request, ResourceType::kTopic, *t.name);
  out.send(resp);
}

MetadataResponse MetadataHandler::error_response(const protocol::MetadataRequest& body, ErrorCode error) {
  MetadataResponse resp;
  resp.error_code = code(error);  // v13+ (ignorable: dropped below)
  if (body.topics)
    for (const auto& t : *body.topics) resp.topics.push_back(topic_metadata_failed(t.name, t.topic_id, error));
  return resp;
}

}  // namespace skiff::api
