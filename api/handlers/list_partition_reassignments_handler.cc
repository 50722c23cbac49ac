#include "api/handlers/list_partition_reassignments_handler.h"

namespace skiff::api {

void ListPartitionReassignmentsHandler::handle(ApiRequest&, protocol::ListPartitionReassignmentsRequest& body,
                                               Responder& out) {
  out.send(error_response(body, ErrorCode::kNone));
}

protocol::ListPartitionReassignmentsResponse ListPartitionReassignmentsHandler::error_response(
    const protocol::ListPartitionReassignmentsRequest&, ErrorCode error) {
  protocol::ListPartitionReassignmentsResponse resp;
  resp.error_code = code(error);
  resp.error_message = std::nullopt;
  return resp;
}

}  // namespace skiff::api
