#include "api/handlers/describe_client_quotas_handler.h"

#include "api/authorize.h"
#include "api/handlers/scram_wire.h"
#include "api/quota/client_quota_store.h"

namespace skiff::api {

void DescribeClientQuotasHandler::handle(ApiRequest& request, protocol::DescribeClientQuotasRequest& body,
                                         Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kDescribeConfigs)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  std::vector<quota::QuotaFilterComponent> components;
  components.reserve(body.components.size());
  for (const auto& c : body.components) components.push_back({c.entity_type, c.match_type, c.match});
  auto described = services_.client_quotas->describe(components, body.strict);
  protocol::DescribeClientQuotasResponse resp;
  if (described.error.error != ErrorCode::kNone) {
    // Kafka's getErrorResponse of the exception ClientQuotasImage threw.
    resp.error_code = code(described.error.error);
    resp.error_message = described.error.message;
    resp.entries = std::nullopt;
    out.send(resp);
    return;
  }
  resp.error_message = std::nullopt;
  auto& entries = resp.entries.emplace();
  for (const auto& [entity, values] : described.entries) {
    auto& e = entries.emplace_back();
    for (const auto& [type, name] : entity) e.entity.push_back({type, name, {}});
    for (const auto& [key, value] : values) e.values.push_back({key, value, {}});
  }
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
