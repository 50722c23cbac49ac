#include "api/handlers/list_partition_reassignments_handler.h"

#include "api/authorize.h"
namespace skiff::api {

void ListPartitionReassignmentsHandler::handle(ApiRequest& request, protocol::ListPartitionReassignmentsRequest& body,
                                               Responder& out) {
  const bool allowed = authorized_cluster(services_, request, AclOperation::kDescribe);  // as ControllerApis
  out.send(error_response(body, allowed ? ErrorCode::kNone : ErrorCode::kClusterAuthorizationFailed));
}

protocol::ListPartitionReassignmentsResponse ListPartitionReassignmentsHandler::error_response(
    const protocol::ListPartitionReassignmentsRequest&, ErrorCode error) {
  protocol::ListPartitionReassignmentsResponse resp;
  resp.error_code = code(error);
  resp.error_message = std::nullopt;
  return resp;
}

}  // namespace skiff::api
