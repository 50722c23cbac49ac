#include "api/handlers/join_group_handler.h"

#include "api/authorize.h"
#include "api/handlers/modern_group_support.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::JoinGroupResponse;

JoinGroupResponse to_wire(const group::JoinGroupResult& r, int16_t version) {
  JoinGroupResponse resp;
  resp.error_code = code(r.error);
  resp.generation_id = r.generation_id;
  resp.protocol_type = r.protocol_type;
  // Nullable only from v7; before that an empty string.
  resp.protocol_name =
      r.protocol_name ? r.protocol_name : (version >= 7 ? std::nullopt : std::optional<std::string>(""));
  resp.leader = r.leader;
  resp.skip_assignment = version >= 9 && r.skip_assignment;  // not in the wire format before v9
  resp.member_id = r.member_id;
  for (const auto& m : r.members) {
    JoinGroupResponse::JoinGroupResponseMember jm;
    jm.member_id = m.member_id;
    jm.group_instance_id = m.group_instance_id;
    jm.metadata = m.metadata;
    resp.members.push_back(std::move(jm));
  }
  return resp;
}

}  // namespace

void JoinGroupHandler::handle(ApiRequest& request, protocol::JoinGroupRequest& body, Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  group::JoinGroupParams p;
  p.group_id = std::move(body.group_id);
  p.member_id = std::move(body.member_id);
  p.group_instance_id = std::move(body.group_instance_id);
  p.client_id = request.header.client_id.value_or("");
  p.client_host = "/" + request.context().peer_address;
  p.session_timeout_ms = body.session_timeout_ms;
  p.rebalance_timeout_ms = request.api_version() >= 1 ? body.rebalance_timeout_ms : body.session_timeout_ms;
  p.protocol_type = std::move(body.protocol_type);
  for (auto& proto : body.protocols) p.protocols.push_back({std::move(proto.name), std::move(proto.metadata)});
  p.require_known_member_id = request.api_version() >= 4;
  p.resolve = modern_group::topic_resolver(services_.logs);
  const int16_t version = request.api_version();
  services_.groups->join_group(
      std::move(p), [out, version](const group::JoinGroupResult& r) mutable { out.send(to_wire(r, version)); });
}

JoinGroupResponse JoinGroupHandler::error_response(const protocol::JoinGroupRequest& body, ErrorCode error) {
  group::JoinGroupResult r;
  r.error = error;
  r.member_id = body.member_id;
  return to_wire(r, 0);
}

}  // namespace skiff::api
