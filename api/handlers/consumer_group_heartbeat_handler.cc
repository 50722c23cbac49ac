#include "api/handlers/consumer_group_heartbeat_handler.h"

#include "api/authorize.h"
#include "api/handlers/modern_group_support.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::ConsumerGroupHeartbeatRequest;
using protocol::ConsumerGroupHeartbeatResponse;

group::ConsumerHeartbeatParams to_params(ApiRequest& request, ConsumerGroupHeartbeatRequest& body,
                                         BrokerServices& services) {
  auto& logs = services.logs;
  group::ConsumerHeartbeatParams p;
  p.version = request.api_version();
  p.group_id = std::move(body.group_id);
  p.member_id = std::move(body.member_id);
  p.member_epoch = body.member_epoch;
  p.instance_id = std::move(body.instance_id);
  p.rack_id = std::move(body.rack_id);
  p.rebalance_timeout_ms = body.rebalance_timeout_ms;
  p.subscribed_names = std::move(body.subscribed_topic_names);
  p.subscribed_regex = std::move(body.subscribed_topic_regex);
  p.server_assignor = std::move(body.server_assignor);
  if (body.topic_partitions) {
    p.owned.emplace();
    for (const auto& t : *body.topic_partitions)
      (*p.owned)[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
  }
  p.client_id = request.header.client_id.value_or("");
  p.client_host = "/" + request.context().peer_address;
  p.resolve = modern_group::topic_resolver(logs);
  p.topics_version = logs.topics_generation();  // before any listing: a later change is seen next time
  // A regex subscription sees only the topics this member may DESCRIBE.
  p.list_topics = [&logs, &services, &request] {
    std::vector<std::string> names;
    for (const auto& t : logs.list_topics())
      if (authorized_topic(services, request, AclOperation::kDescribe, t.name)) names.push_back(t.name);
    return names;
  };
  return p;
}

}  // namespace

// READ on the group, else GROUP_AUTHORIZATION_FAILED; DESCRIBE on every
// subscribed topic name, else TOPIC_AUTHORIZATION_FAILED (KafkaApis).
void ConsumerGroupHeartbeatHandler::handle(ApiRequest& request, ConsumerGroupHeartbeatRequest& body, Responder& out) {
  if (auto refused = modern_group::refusal(services_, request, body)) {
    out.send(error_response(body, *refused));
    return;
  }
  out.send(modern_group::response<ConsumerGroupHeartbeatResponse>(
      services_.groups->consumer_heartbeat(to_params(request, body, services_))));
}

ConsumerGroupHeartbeatResponse ConsumerGroupHeartbeatHandler::error_response(const ConsumerGroupHeartbeatRequest&,
                                                                             ErrorCode error) {
  ConsumerGroupHeartbeatResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
