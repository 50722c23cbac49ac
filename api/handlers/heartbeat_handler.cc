#include "api/handlers/heartbeat_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {

void HeartbeatHandler::handle(ApiRequest& request, protocol::HeartbeatRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  group::HeartbeatParams p{body.group_id, body.generation_id, body.member_id, body.group_instance_id};
  out.send(error_response(body, services_.groups->heartbeat(p)));
}

protocol::HeartbeatResponse HeartbeatHandler::error_response(const protocol::HeartbeatRequest&, ErrorCode error) {
  protocol::HeartbeatResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
