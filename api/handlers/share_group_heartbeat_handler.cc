#include "api/handlers/share_group_heartbeat_handler.h"

#include "api/authorize.h"
#include "api/handlers/modern_group_support.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::ShareGroupHeartbeatRequest;
using protocol::ShareGroupHeartbeatResponse;

group::ShareHeartbeatParams to_params(ApiRequest& request, ShareGroupHeartbeatRequest& body, BrokerServices& services) {
  group::ShareHeartbeatParams p;
  p.group_id = std::move(body.group_id);
  p.member_id = std::move(body.member_id);
  p.member_epoch = body.member_epoch;
  p.rack_id = std::move(body.rack_id);
  p.subscribed_names = std::move(body.subscribed_topic_names);
  p.client_id = request.header.client_id.value_or("");
  p.client_host = "/" + request.context().peer_address;
  p.resolve = modern_group::topic_resolver(services.logs);
  return p;
}

}  // namespace

// READ on the group, else GROUP_AUTHORIZATION_FAILED; DESCRIBE on every
// subscribed topic name, else TOPIC_AUTHORIZATION_FAILED (KafkaApis).
void ShareGroupHeartbeatHandler::handle(ApiRequest& request, ShareGroupHeartbeatRequest& body, Responder& out) {
  if (auto refused = modern_group::refusal(services_, request, body)) {
    out.send(error_response(body, *refused));
    return;
  }
  out.send(modern_group::response<ShareGroupHeartbeatResponse>(
      services_.groups->share_heartbeat(to_params(request, body, services_))));
}

ShareGroupHeartbeatResponse ShareGroupHeartbeatHandler::error_response(const ShareGroupHeartbeatRequest&,
                                                                       ErrorCode error) {
  ShareGroupHeartbeatResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
