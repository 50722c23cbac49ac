#include "api/handlers/delete_groups_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {

// DELETE on each group, else GROUP_AUTHORIZATION_FAILED for that group.
void DeleteGroupsHandler::handle(ApiRequest& request, protocol::DeleteGroupsRequest& body, Responder& out) {
  std::vector<std::string> allowed;
  for (const auto& id : body.groups_names)
    if (authorized_group(services_, request, AclOperation::kDelete, id)) allowed.push_back(id);
  auto errors = services_.groups->delete_groups(allowed);
  protocol::DeleteGroupsResponse resp;
  for (size_t i = 0, done = 0; i < body.groups_names.size(); ++i) {
    auto& r = resp.results.emplace_back();
    r.group_id = body.groups_names[i];
    const bool ok = done < allowed.size() && allowed[done] == r.group_id;
    r.error_code = ok ? code(errors[done++]) : code(ErrorCode::kGroupAuthorizationFailed);
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
