#include "api/handlers/alter_client_quotas_handler.h"

#include <map>

#include "api/api_log.h"
#include "api/authorize.h"
#include "api/handlers/scram_wire.h"
#include "api/quota/client_quota_store.h"
#include "common/log_escape.h"

namespace skiff::api {
namespace {

using QuotasRequest = protocol::AlterClientQuotasRequest;
using Response = protocol::AlterClientQuotasResponse;

// Kafka's AlterClientQuotasRequest.entries(): the entity is a map, a type
// named twice keeps its last name.
quota::QuotaAlteration alteration(const QuotasRequest::EntryData& entry) {
  quota::QuotaAlteration alt;
  for (const auto& e : entry.entity) alt.entity.insert_or_assign(e.entity_type, e.entity_name);
  for (const auto& op : entry.ops) alt.ops.push_back({op.key, op.remove ? 0.0 : op.value, op.remove});
  return alt;
}

std::string entity_log_text(const quota::QuotaEntity& entity) {
  std::string out;
  for (const auto& [type, name] : entity)
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", escaped(type),
                       name ? escape_for_log(*name) : std::string("<default>"));
  return out;
}

}  // namespace

void AlterClientQuotasHandler::handle(ApiRequest& request, QuotasRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kAlterConfigs)) {
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  std::vector<quota::QuotaAlteration> alterations;
  alterations.reserve(body.entries.size());
  for (const auto& entry : body.entries) alterations.push_back(alteration(entry));
  const auto results = services_.client_quotas->alter(alterations, body.validate_only);
  Response resp;
  std::map<quota::QuotaEntity, size_t> answered;  // entity -> its entry in resp
  for (size_t i = 0; i < alterations.size(); ++i) {
    const auto& entity = alterations[i].entity;
    const auto& result = results[i];
    if (result.error == ErrorCode::kNone && !body.validate_only)
      api_log().info("client quotas of {} altered", entity_log_text(entity));
    auto [it, fresh] = answered.try_emplace(entity, resp.entries.size());
    if (fresh) {
      auto& e = resp.entries.emplace_back();
      for (const auto& [type, name] : entity) e.entity.push_back({type, name, {}});
    }
    auto& e = resp.entries[it->second];
    e.error_code = code(result.error);
    e.error_message = result.error == ErrorCode::kNone ? std::nullopt : std::optional<std::string>(result.message);
  }
  out.send(resp);
}

// Kafka's AlterClientQuotasRequest.getErrorResponse: every entry, its entity
// as sent, with the error and its default message.
Response AlterClientQuotasHandler::error_response(const QuotasRequest& body, ErrorCode error) {
  Response resp;
  for (const auto& entry : body.entries) {
    auto& e = resp.entries.emplace_back();
    for (const auto& entity : entry.entity) e.entity.push_back({entity.entity_type, entity.entity_name, {}});
    e.error_code = code(error);
    e.error_message = kafka_error_message(error);
  }
  return resp;
}

}  // namespace skiff::api
