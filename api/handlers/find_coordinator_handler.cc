#include "api/handlers/find_coordinator_handler.h"

#include <climits>
#include <string>
#include <vector>

#include "api/authorize.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/share/share_coordinator.h"

namespace skiff::api {
namespace {

using protocol::FindCoordinatorResponse;

constexpr int8_t kGroupKey = 0;
constexpr int8_t kTransactionKey = 1;
constexpr int8_t kShareKey = 2;
constexpr const char* kInvalidRequestMessage =
    "This most likely occurs because of a request being malformed by the client library or the message was sent to "
    "an incompatible broker. See the broker logs for more details.";

// Kafka's SharePartitionKey.getInstance(String): split on ':' (trailing empty
// parts dropped, as Java's split), the last part a partition number, the one
// before a topic id, the rest (joined) a group id that is not blank.
bool valid_share_key(const std::string& key) {
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t at; (at = key.find(':', from)) != std::string::npos; from = at + 1)
    parts.push_back(key.substr(from, at - from));
  parts.push_back(key.substr(from));
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  if (parts.size() < 3) return false;
  const auto& partition = parts.back();
  const auto& topic = parts[parts.size() - 2];
  bool group_blank = true;
  for (size_t i = 0; i + 2 < parts.size(); ++i)
    for (char ch : parts[i]) group_blank = group_blank && static_cast<unsigned char>(ch) <= ' ';
  if (group_blank && parts.size() == 3) return false;
  if (!Uuid::parse(topic)) return false;
  size_t digits = partition[0] == '-' || partition[0] == '+' ? 1 : 0;
  if (digits == partition.size() || partition.size() - digits > 10) return false;
  for (size_t i = digits; i < partition.size(); ++i)
    if (partition[i] < '0' || partition[i] > '9') return false;
  const long long n = std::stoll(partition);
  return n >= INT32_MIN && n <= INT32_MAX;
}

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
  } else if (key_type == kShareKey && !valid_share_key(key)) {
    c.error_code = code(ErrorCode::kInvalidRequest);
    c.error_message = kInvalidRequestMessage;
  } else if ((key_type == kTransactionKey && !services.txn) || (key_type == kShareKey && !services.share_coordinator)) {
    c.error_code = code(ErrorCode::kCoordinatorNotAvailable);
  } else if (key_type == kTransactionKey || key_type == kShareKey) {
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
  if (body.key_type == kShareKey && request.api_version() < 6) {  // KafkaApis: INVALID_REQUEST, no node
    auto refused = error_response(body, ErrorCode::kInvalidRequest);
    for (auto& c : refused.coordinators) c.error_message = kInvalidRequestMessage;
    if (refused.coordinators.empty()) refused.error_message = kInvalidRequestMessage;
    out.send(refused);
    return;
  }
  // Share keys: CLUSTER_ACTION on the cluster, else the whole request fails.
  if (body.key_type == kShareKey && !authorized_cluster(services_, request, AclOperation::kClusterAction)) {
    auto refused = error_response(body, ErrorCode::kClusterAuthorizationFailed);
    for (auto& c : refused.coordinators) c.error_message = "Cluster authorization failed.";
    out.send(refused);
    return;
  }
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
