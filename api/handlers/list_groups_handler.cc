#include "api/handlers/list_groups_handler.h"

#include <algorithm>

#include "api/group/group_coordinator.h"

namespace skiff::api {
namespace {

constexpr const char* kClassicGroupType = "classic";

bool wants_classic(const std::vector<std::string>& types) {
  if (types.empty()) return true;
  return std::any_of(types.begin(), types.end(), [](std::string t) {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t == kClassicGroupType;
  });
}

}  // namespace

void ListGroupsHandler::handle(ApiRequest&, protocol::ListGroupsRequest& body, Responder& out) {
  protocol::ListGroupsResponse resp;
  if (wants_classic(body.types_filter)) {
    for (auto& g : services_.groups->list_groups(body.states_filter)) {
      auto& lg = resp.groups.emplace_back();
      lg.group_id = std::move(g.group_id);
      lg.protocol_type = std::move(g.protocol_type);
      lg.group_state = std::move(g.state);
      lg.group_type = kClassicGroupType;
    }
  }
  out.send(resp);
}

protocol::ListGroupsResponse ListGroupsHandler::error_response(const protocol::ListGroupsRequest&, ErrorCode error) {
  protocol::ListGroupsResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
