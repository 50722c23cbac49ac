#include "api/handlers/consumer_group_heartbeat_handler.h"

#include "api/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::ConsumerGroupHeartbeatRequest;
using protocol::ConsumerGroupHeartbeatResponse;

group::ConsumerHeartbeatParams to_params(ApiRequest& request, ConsumerGroupHeartbeatRequest& body,
                                         storage::LogManager& logs) {
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
  p.resolve = [&logs](const std::string& name) -> std::optional<group::consumer::TopicMetadata> {
    auto t = logs.topic(name);
    if (!t) return std::nullopt;
    return group::consumer::TopicMetadata{t->topic_id, name, t->partitions};
  };
  p.topics_version = logs.topics_generation();  // before any listing: a later change is seen next time
  p.list_topics = [&logs] {
    std::vector<std::string> names;
    for (const auto& t : logs.list_topics()) names.push_back(t.name);
    return names;
  };
  return p;
}

}  // namespace

void ConsumerGroupHeartbeatHandler::handle(ApiRequest& request, ConsumerGroupHeartbeatRequest& body, Responder& out) {
  auto r = services_.groups->consumer_heartbeat(to_params(request, body, services_.logs));
  ConsumerGroupHeartbeatResponse resp;
  resp.error_code = code(r.error);
  resp.error_message = std::move(r.message);
  if (r.error == ErrorCode::kNone) {
    resp.member_id = std::move(r.member_id);
    resp.member_epoch = r.member_epoch;
    resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
  }
  if (r.assignment) {
    auto& a = resp.assignment.emplace();
    for (const auto& [id, parts] : *r.assignment) {
      auto& tp = a.topic_partitions.emplace_back();
      tp.topic_id = id;
      tp.partitions.assign(parts.begin(), parts.end());
    }
  }
  out.send(resp);
}

ConsumerGroupHeartbeatResponse ConsumerGroupHeartbeatHandler::error_response(const ConsumerGroupHeartbeatRequest&,
                                                                             ErrorCode error) {
  ConsumerGroupHeartbeatResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
