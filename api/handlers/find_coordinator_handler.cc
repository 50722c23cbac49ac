#include "api/handlers/find_coordinator_handler.h"

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::api {
namespace {

using protocol::FindCoordinatorResponse;

constexpr int8_t kGroupKey = 0;
constexpr int8_t kTransactionKey = 1;

FindCoordinatorResponse::Coordinator locate(BrokerServices& services, const std::string& listener,
                                            const std::string& key, int8_t key_type) {
  FindCoordinatorResponse::Coordinator c;
  c.key = key;
  c.error_message = std::nullopt;
  if (key_type == kGroupKey && services.groups && !services.groups->ensure_offsets_topic()) {
    // Kafka creates __consumer_offsets on the first FindCoordinator for a group.
    c.node_id = -1;
    c.port = -1;
    c.error_code = code(ErrorCode::kCoordinatorNotAvailable);
    return c;
  }
  if (key_type == kGroupKey) {
    const auto& e = services.broker.endpoint_for(listener);
    c.node_id = services.broker.node_id;
    c.host = e.host;
    c.port = e.port;
    return c;
  }
  c.node_id = -1;
  c.port = -1;
  if (key_type == kTransactionKey && key.empty()) {
    c.error_code = code(ErrorCode::kInvalidRequest);
    c.error_message = "the transactional id must not be empty";
  } else if (key_type == kTransactionKey && !services.txn) {
    c.error_code = code(ErrorCode::kCoordinatorNotAvailable);
  } else if (key_type == kTransactionKey) {
    const auto& e = services.broker.endpoint_for(listener);
    c.node_id = services.broker.node_id;
    c.host = e.host;
    c.port = e.port;
  } else {
    c.error_code = code(ErrorCode::kInvalidRequest);
    c.error_message = "unknown key type " + std::to_string(key_type);
  }
  return c;
}

}  // namespace

void FindCoordinatorHandler::handle(ApiRequest& request, protocol::FindCoordinatorRequest& body, Responder& out) {
  FindCoordinatorResponse resp;
  const auto& listener = request.context().listener_name;
  // DESCRIBE on the group or the transactional id, as KafkaApis: refused
  // keys get no node and the error's own message.
  auto answer = [&](const std::string& key) {
    const bool refused =
        (body.key_type == kGroupKey && !authorized_group(services_, request, AclOperation::kDescribe, key)) ||
        (body.key_type == kTransactionKey &&
         !authorized(services_, request, AclOperation::kDescribe, ResourceType::kTransactionalId, key));
    if (!refused) return locate(services_, listener, key, body.key_type);
    FindCoordinatorResponse::Coordinator c;
    c.key = key;
    c.node_id = -1;
    c.port = -1;
    const bool group = body.key_type == kGroupKey;
    c.error_code = code(group ? ErrorCode::kGroupAuthorizationFailed : ErrorCode::kTransactionalIdAuthorizationFailed);
    c.error_message = group ? "Group authorization failed." : "Transactional Id authorization failed.";
    return c;
  };
  if (request.api_version() >= 4) {
    for (const auto& key : body.coordinator_keys) resp.coordinators.push_back(answer(key));
  } else {
    auto c = answer(body.key);
    resp.error_code = c.error_code;
    resp.error_message = c.error_message;
    resp.node_id = c.node_id;
    resp.host = c.host;
    resp.port = c.port;
  }
  out.send(resp);
}

FindCoordinatorResponse FindCoordinatorHandler::error_response(const protocol::FindCoordinatorRequest& body,
                                                               ErrorCode error) {
  FindCoordinatorResponse resp;
  if (body.coordinator_keys.empty()) {  // v0-3: one coordinator, at the top level
    resp.error_code = code(error);
    resp.node_id = -1;
    resp.port = -1;
  }
  for (const auto& key : body.coordinator_keys) {
    FindCoordinatorResponse::Coordinator c;
    c.key = key;
    c.node_id = -1;
    c.port = -1;
    c.error_code = code(error);
    resp.coordinators.push_back(std::move(c));
  }
  return resp;
}

}  // namespace skiff::api
