#include "api/handlers/describe_topic_partitions_handler.h"

#include <algorithm>

#include "api/authorize.h"
#include "api/broker_info.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::DescribeTopicPartitionsResponse;
using Topic = DescribeTopicPartitionsResponse::DescribeTopicPartitionsResponseTopic;

// Requested names (sorted, as Kafka answers), or every topic.
std::vector<std::string> requested_names(BrokerServices& services,
                                         const protocol::DescribeTopicPartitionsRequest& body) {
  std::vector<std::string> names;
  if (body.topics.empty()) {
    for (const auto& t : services.logs.list_topics()) names.push_back(t.name);
  } else {
    for (const auto& t : body.topics) names.push_back(t.name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

// DESCRIBE on each topic: the others are left out of an all-topics answer
// and answered TOPIC_AUTHORIZATION_FAILED when named (KafkaApis).
void DescribeTopicPartitionsHandler::handle(ApiRequest& request, protocol::DescribeTopicPartitionsRequest& body,
                                            Responder& out) {
  const auto names = requested_names(services_, body);
  const int32_t node = services_.broker.node_id;
  int32_t budget = std::max(1, body.response_partition_limit);
  DescribeTopicPartitionsResponse resp;
  for (const auto& name : names) {
    int32_t first = 0;
    if (body.cursor) {
      if (name < body.cursor->topic_name) continue;
      if (name == body.cursor->topic_name) first = body.cursor->partition_index;
    }
    Topic t;
    t.name = name;
    if (!authorized_topic(services_, request, AclOperation::kDescribe, name)) {
      if (body.topics.empty()) continue;
      t.error_code = code(ErrorCode::kTopicAuthorizationFailed);
      t.is_internal = is_internal_topic(name);
      resp.topics.push_back(std::move(t));
      continue;
    }
    auto info = services_.logs.topic(name);
    if (!info) {
      t.error_code = code(ErrorCode::kUnknownTopicOrPartition);
      resp.topics.push_back(std::move(t));
      continue;
    }
    if (budget <= 0) {
      resp.next_cursor = DescribeTopicPartitionsResponse::Cursor{name, first};
      break;
    }
    t.topic_id = info->topic_id;
    t.is_internal = is_internal_topic(name);
    t.topic_authorized_operations = authorized_ops(services_, request, ResourceType::kTopic, name);
    for (int32_t p = first; p < info->partitions; ++p) {
      if (budget <= 0) {
        resp.next_cursor = DescribeTopicPartitionsResponse::Cursor{name, p};
        break;
      }
      DescribeTopicPartitionsResponse::DescribeTopicPartitionsResponsePartition part;
      part.partition_index = p;
      part.leader_id = node;
      part.leader_epoch = kLeaderEpoch;
      part.replica_nodes = {node};
      part.isr_nodes = {node};
      part.eligible_leader_replicas = std::vector<int32_t>{};
      part.last_known_elr = std::vector<int32_t>{};
      t.partitions.push_back(std::move(part));
      --budget;
    }
    resp.topics.push_back(std::move(t));
    if (resp.next_cursor) break;
  }
  out.send(resp);
}

DescribeTopicPartitionsResponse DescribeTopicPartitionsHandler::error_response(
    const protocol::DescribeTopicPartitionsRequest& body, ErrorCode error) {
  DescribeTopicPartitionsResponse resp;
  for (const auto& t : body.topics) {
    Topic r;
    r.name = t.name;
    r.error_code = code(error);
    resp.topics.push_back(std::move(r));
  }
  return resp;
}

}  // namespace skiff::api
