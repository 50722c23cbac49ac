#include "api/handlers/create_partitions_handler.h"

#include "api/api_log.h"
#include "api/authorize.h"
#include "api/topics.h"
#include "common/log_escape.h"

namespace skiff::api {
namespace {

using protocol::CreatePartitionsResponse;
using PartitionsResult = CreatePartitionsResponse::CreatePartitionsTopicResult;

template <class PerTopic>
CreatePartitionsResponse mirror(const protocol::CreatePartitionsRequest& body, PerTopic&& answer) {
  CreatePartitionsResponse resp;
  for (const auto& t : body.topics) {
    PartitionsResult r = answer(t);
    r.name = t.name;
    resp.results.push_back(std::move(r));
  }
  return resp;
}

PartitionsResult partitions_failed(ErrorCode e, std::optional<std::string> message = std::nullopt) {
  PartitionsResult r;
  r.error_code = code(e);
  r.error_message = std::move(message);
  return r;
}

// The partitions the request would add to existing topics.
int64_t added_partitions(BrokerServices& services, const protocol::CreatePartitionsRequest& body) {
  int64_t total = 0;
  for (const auto& t : body.topics) {
    auto topic = services.logs.topic(t.name);
    if (topic && t.count > topic->partitions) total += t.count - topic->partitions;
  }
  return total;
}

}  // namespace

// ALTER on each topic, else TOPIC_AUTHORIZATION_FAILED (KafkaApis.handleCreatePartitionsRequest).
void CreatePartitionsHandler::handle(ApiRequest& request, protocol::CreatePartitionsRequest& body, Responder& out) {
  if (added_partitions(services_, body) > kMaxPartitionsPerRequest) {
    out.send(mirror(body, [](const auto&) {
      return partitions_failed(ErrorCode::kPolicyViolation,
                               "Excessively large number of additional partitions per request.");
    }));
    return;
  }
  out.send(mirror(body, [&](const protocol::CreatePartitionsRequest::CreatePartitionsTopic& t) -> PartitionsResult {
    if (!authorized_topic(services_, request, AclOperation::kAlter, t.name))
      return partitions_failed(ErrorCode::kTopicAuthorizationFailed, "The topic authorization is failed.");
    auto topic = services_.logs.topic(t.name);
    if (!topic)
      return partitions_failed(ErrorCode::kUnknownTopicOrPartition, "The topic '" + t.name + "' does not exist.");
    if (t.count <= topic->partitions)
      return partitions_failed(ErrorCode::kInvalidPartitions,
                               "Topic currently has " + std::to_string(topic->partitions) +
                                   " partitions, which is higher than the requested " + std::to_string(t.count) + ".");
    if (t.assignments) {
      if (static_cast<int32_t>(t.assignments->size()) != t.count - topic->partitions)
        return partitions_failed(ErrorCode::kInvalidReplicaAssignment,
                                 "Increasing the number of partitions by " +
                                     std::to_string(t.count - topic->partitions) + " but " +
                                     std::to_string(t.assignments->size()) + " assignments provided.");
      for (const auto& a : *t.assignments)
        if (a.broker_ids.size() != 1 || a.broker_ids[0] != services_.broker.node_id)
          return partitions_failed(ErrorCode::kInvalidReplicaAssignment,
                                   "Skiff is a single broker: the only replica must be broker " +
                                       std::to_string(services_.broker.node_id) + ".");
    }
    if (auto r = services_.logs.create_partitions(t.name, t.count, body.validate_only); !r) {
      const std::string& message = r.error().message;
      return partitions_failed(to_error_code(r.error().code), message.empty() ? std::nullopt : std::optional(message));
    }
    if (body.validate_only) return partitions_failed(ErrorCode::kNone);
    api_log().info("topic {} grown from {} to {} partitions", escaped(t.name), topic->partitions, t.count);
    return partitions_failed(ErrorCode::kNone);
  }));
}

CreatePartitionsResponse CreatePartitionsHandler::error_response(const protocol::CreatePartitionsRequest& body,
                                                                 ErrorCode error) {
  return mirror(body, [&](const auto&) { return partitions_failed(error); });
}

}  // namespace skiff::api
