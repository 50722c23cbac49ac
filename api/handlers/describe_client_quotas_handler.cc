#include "api/handlers/describe_client_quotas_handler.h"

#include "api/authorize.h"
#include "api/handlers/scram_wire.h"

namespace skiff::api {

void DescribeClientQuotasHandler::handle(ApiRequest& request, protocol::DescribeClientQuotasRequest& body,
                                         Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kDescribeConfigs)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  protocol::DescribeClientQuotasResponse resp;
  resp.error_message = std::nullopt;
  resp.entries.emplace();  // no quotas: an empty list
  out.send(resp);
}

// Kafka's DescribeClientQuotasRequest.getErrorResponse: the error, no entries.
protocol::DescribeClientQuotasResponse DescribeClientQuotasHandler::error_response(
    const protocol::DescribeClientQuotasRequest&, ErrorCode error) {
  protocol::DescribeClientQuotasResponse resp;
  resp.error_code = code(error);
  resp.error_message = kafka_error_message(error);
  resp.entries = std::nullopt;
  return resp;
}

}  // namespace skiff::api
