#include "api/handlers/sync_group_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {

void SyncGroupHandler::handle(ApiRequest& request, protocol::SyncGroupRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  group::SyncGroupParams p;
  p.group_id = std::move(body.group_id);
  p.generation_id = body.generation_id;
  p.member_id = std::move(body.member_id);
  p.group_instance_id = std::move(body.group_instance_id);
  p.protocol_type = std::move(body.protocol_type);
  p.protocol_name = std::move(body.protocol_name);
  for (auto& a : body.assignments) p.assignments.emplace_back(std::move(a.member_id), std::move(a.assignment));
  services_.groups->sync_group(std::move(p), [out](group::SyncGroupResult r) mutable {
    protocol::SyncGroupResponse resp;
    resp.error_code = code(r.error);
    resp.protocol_type = std::move(r.protocol_type);
    resp.protocol_name = std::move(r.protocol_name);
    resp.assignment = std::move(r.assignment);
    out.send(resp);
  });
}

protocol::SyncGroupResponse SyncGroupHandler::error_response(const protocol::SyncGroupRequest&, ErrorCode error) {
  protocol::SyncGroupResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
