#include "api/handlers/streams_group_heartbeat_handler.h"

#include "api/authorize.h"
#include "api/handlers/modern_group_support.h"
#include "api/handlers/streams_group_support.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::StreamsGroupHeartbeatRequest;
using protocol::StreamsGroupHeartbeatResponse;

group::StreamsHeartbeatParams to_params(ApiRequest& request, const StreamsGroupHeartbeatRequest& body,
                                        BrokerServices& services) {
  group::StreamsHeartbeatParams p;
  p.version = request.api_version();
  p.request = &body;
  p.client_id = request.header.client_id.value_or("");
  p.client_host = "/" + request.context().peer_address;
  p.resolve = modern_group::topic_resolver(services.logs);
  return p;
}

}  // namespace

void StreamsGroupHeartbeatHandler::handle(ApiRequest& request, StreamsGroupHeartbeatRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  if (body.topology) {
    const auto topics = streams_group::required_topics(*body.topology);
    auto refused = streams_group::topology_refusal(
        topics, [&](const std::string& t) { return authorized_topic(services_, request, AclOperation::kDescribe, t); });
    if (refused) {
      StreamsGroupHeartbeatResponse resp;
      resp.error_code = code(refused->error);
      resp.error_message = std::move(refused->message);
      out.send(resp);
      return;
    }
  }
  const auto params = to_params(request, body, services_);
  auto result = services_.groups->streams_heartbeat(params);
  if (!result.to_create.empty()) {
    const bool cluster_create = authorized_cluster(services_, request, AclOperation::kCreate);
    const bool created = streams_group::create_internal_topics(
        services_,
        [&](const std::string& t) {
          return cluster_create || authorized_topic(services_, request, AclOperation::kCreate, t);
        },
        body.group_id, result);
    // A joining member is answered once its topics exist: the coordinator
    // sees them now rather than at the member's next heartbeat (5 s on), so
    // the first join already carries tasks. A join may be repeated (the
    // coordinator takes a rejoin at epoch 0); a later heartbeat may not.
    if (created && body.member_epoch == 0) {
      auto again = services_.groups->streams_heartbeat(params);
      if (again.response.error_code == code(ErrorCode::kNone)) result = std::move(again);
    }
  }
  out.send(result.response);
}

StreamsGroupHeartbeatResponse StreamsGroupHeartbeatHandler::error_response(const StreamsGroupHeartbeatRequest&,
                                                                           ErrorCode error) {
  StreamsGroupHeartbeatResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
