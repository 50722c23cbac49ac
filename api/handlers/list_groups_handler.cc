#include "api/handlers/list_groups_handler.h"

#include "api/group/group_coordinator.h"

namespace skiff::api {

void ListGroupsHandler::handle(ApiRequest&, protocol::ListGroupsRequest& body, Responder& out) {
  protocol::ListGroupsResponse resp;
  for (auto& g : services_.groups->list_groups(body.states_filter, body.types_filter)) {
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
