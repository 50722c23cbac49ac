#include "api/handlers/describe_groups_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"
#include "security/acl/authorized_operations.h"

namespace skiff::api {

void DescribeGroupsHandler::handle(ApiRequest& request, protocol::DescribeGroupsRequest& body, Responder& out) {
  protocol::DescribeGroupsResponse resp;
  for (const auto& id : body.groups) {
    if (!authorized_group(services_, request, AclOperation::kDescribe, id)) {  // as Kafka: nothing else said
      auto& g = resp.groups.emplace_back();
      g.group_id = id;
      g.error_code = code(ErrorCode::kGroupAuthorizationFailed);
      continue;
    }
    auto d = services_.groups->describe_group(id);
    auto& g = resp.groups.emplace_back();
    g.error_code = code(d.error);
    if (request.api_version() >= 6 && d.error == ErrorCode::kNone && !d.found) {
      // KIP-1043, as Kafka 4.4's GroupMetadataManager: still Dead, now an error.
      g.error_code = code(ErrorCode::kGroupIdNotFound);
      g.error_message = d.error_message.value_or("Group " + id + " not found.");
    }
    g.group_id = d.group_id;
    g.group_state = d.state;
    g.protocol_type = d.protocol_type;
    g.protocol_data = d.protocol_name;
    if (body.include_authorized_operations)
      g.authorized_operations = authorized_ops(services_, request, ResourceType::kGroup, id);
    for (auto& m : d.members) {
      auto& dm = g.members.emplace_back();
      dm.member_id = m.member_id;
      dm.group_instance_id = m.group_instance_id;
      dm.client_id = m.client_id;
      dm.client_host = m.client_host;
      dm.member_metadata = std::move(m.metadata);
      dm.member_assignment = std::move(m.assignment);
    }
  }
  out.send(resp);
}

protocol::DescribeGroupsResponse DescribeGroupsHandler::error_response(const protocol::DescribeGroupsRequest& body,
                                                                       ErrorCode error) {
  protocol::DescribeGroupsResponse resp;
  for (const auto& id : body.groups) {
    auto& g = resp.groups.emplace_back();
    g.group_id = id;
    g.error_code = code(error);
  }
  return resp;
}

}  // namespace skiff::api
