#include "api/handlers/streams_group_topology_description_update_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::StreamsGroupTopologyDescriptionUpdateRequest;
using protocol::StreamsGroupTopologyDescriptionUpdateResponse;

// Kafka's Utils.throwIfEmptyString: empty once trimmed (Java's String.trim
// drops every character up to ' ').
bool blank(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) > ' ') return false;
  return true;
}

}  // namespace

void StreamsGroupTopologyDescriptionUpdateHandler::handle(ApiRequest& request,
                                                          StreamsGroupTopologyDescriptionUpdateRequest& body,
                                                          Responder& out) {
  if (!authorized_group(services_, request, AclOperation::kRead, body.group_id)) {
    out.send(error_response(body, ErrorCode::kGroupAuthorizationFailed));
    return;
  }
  StreamsGroupTopologyDescriptionUpdateResponse resp;
  const char* invalid = blank(body.member_id)  ? "MemberId can't be empty."
                        : blank(body.group_id) ? "GroupId can't be empty."
                                               : nullptr;
  if (invalid) {
    resp.error_code = code(ErrorCode::kInvalidRequest);
    resp.error_message = invalid;
    out.send(resp);
    return;
  }
  auto r = services_.groups->update_streams_topology_description(body);
  resp.error_code = code(r.error);
  resp.error_message = std::move(r.message);
  out.send(resp);
}

StreamsGroupTopologyDescriptionUpdateResponse StreamsGroupTopologyDescriptionUpdateHandler::error_response(
    const StreamsGroupTopologyDescriptionUpdateRequest&, ErrorCode error) {
  StreamsGroupTopologyDescriptionUpdateResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
