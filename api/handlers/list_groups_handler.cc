#include "api/handlers/list_groups_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {

// DESCRIBE on the cluster lists every group; else only the groups the
// principal may DESCRIBE (KafkaApis.handleListGroupsRequest), without an error.
void ListGroupsHandler::handle(ApiRequest& request, protocol::ListGroupsRequest& body, Responder& out) {
  protocol::ListGroupsResponse resp;
  const bool all = authorized_cluster(services_, request, AclOperation::kDescribe);
  for (auto& g : services_.groups->list_groups(body.states_filter, body.types_filter)) {
    if (!all && !authorized_group(services_, request, AclOperation::kDescribe, g.group_id)) continue;
    auto& lg = resp.groups.emplace_back();
    lg.group_id = std::move(g.group_id);
    lg.protocol_type = std::move(g.protocol_type);
    lg.group_state = std::move(g.state);
    lg.group_type = std::move(g.group_type);
  }
  out.send(resp);
}

protocol::ListGroupsResponse ListGroupsHandler::error_response(const protocol::ListGroupsRequest&, ErrorCode error) {
  protocol::ListGroupsResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
