#include "api/handlers/delete_groups_handler.h"

#include "api/group/group_coordinator.h"

namespace skiff::api {

void DeleteGroupsHandler::handle(ApiRequest&, protocol::DeleteGroupsRequest& body, Responder& out) {
  auto errors = services_.groups->delete_groups(body.groups_names);
  protocol::DeleteGroupsResponse resp;
  for (size_t i = 0; i < body.groups_names.size(); ++i) {
    auto& r = resp.results.emplace_back();
    r.group_id = body.groups_names[i];
    r.error_code = code(errors[i]);
  }
  out.send(resp);
}

protocol::DeleteGroupsResponse DeleteGroupsHandler::error_response(const protocol::DeleteGroupsRequest& body,
                                                                   ErrorCode error) {
  protocol::DeleteGroupsResponse resp;
  for (const auto& id : body.groups_names) {
    auto& r = resp.results.emplace_back();
    r.group_id = id;
    r.error_code = code(error);
  }
  return resp;
}

}  // namespace skiff::api
