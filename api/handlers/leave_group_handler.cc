#include "api/handlers/leave_group_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

std::vector<group::MemberIdentity> identities(const protocol::LeaveGroupRequest& body, int16_t version) {
  std::vector<group::MemberIdentity> out;
  if (version < 3) {
    out.push_back({body.member_id, std::nullopt});
  } else {
    for (const auto& m : body.members) out.push_back({m.member_id, m.group_instance_id});
  }
  return out;
}

}  // namespace

void LeaveGroupHandler::handle(ApiRequest& request, protocol::LeaveGroupRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  const auto version = request.api_version();
  auto who = identities(body, version);
  auto r = services_.groups->leave_group(body.group_id, who);
  protocol::LeaveGroupResponse resp;
  resp.error_code = code(r.error);
  if (version < 3) {
    // One member: its outcome is the request's.
    if (r.error == ErrorCode::kNone && !r.members.empty()) resp.error_code = code(r.members.front());
  } else {
    for (size_t i = 0; i < who.size(); ++i) {
      protocol::LeaveGroupResponse::MemberResponse m;
      m.member_id = who[i].member_id;
      m.group_instance_id = who[i].group_instance_id;
      m.error_code = code(r.members[i]);
      resp.members.push_back(std::move(m));
    }
  }
  out.send(resp);
}

protocol::LeaveGroupResponse LeaveGroupHandler::error_response(const protocol::LeaveGroupRequest&, ErrorCode error) {
  protocol::LeaveGroupResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
