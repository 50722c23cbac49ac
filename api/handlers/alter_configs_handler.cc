#include "api/handlers/alter_configs_handler.h"

#include "api/admin/resource_responses.h"
#include "api/admin/topic_config_change.h"
#include "api/authorize.h"

namespace skiff::api {
namespace {

using protocol::AlterConfigsResponse;
using AlterResult = AlterConfigsResponse::AlterConfigsResourceResponse;

AlterConfigsResponse mirror(const protocol::AlterConfigsRequest& body, auto&& answer) {
  return admin::mirror_resources<AlterConfigsResponse>(body, answer);
}

AlterResult alter_result(ErrorCode e, std::optional<std::string> message) {
  return admin::resource_result<AlterResult>(e, std::move(message));
}

}  // namespace

// ALTER_CONFIGS on each resource (config_refusal), as KafkaApis.
void AlterConfigsHandler::handle(ApiRequest& request, protocol::AlterConfigsRequest& body, Responder& out) {
  out.send(mirror(body, [&](const protocol::AlterConfigsRequest::AlterConfigsResource& res) {
    auto refused =
        config_refusal(services_, request, AclOperation::kAlterConfigs, res.resource_type, res.resource_name);
    if (refused != ErrorCode::kNone) return alter_result(refused, std::nullopt);
    std::vector<admin::ConfigChange> changes;
    for (const auto& c : res.configs) changes.push_back({c.name, admin::AlterOp::kSet, c.value});
    auto r = admin::alter_resource(services_, res.resource_type, res.resource_name, changes,
                                   /*incremental=*/false, body.validate_only);
    return alter_result(r.error, r.message);
  }));
}

AlterConfigsResponse AlterConfigsHandler::error_response(const protocol::AlterConfigsRequest& body, ErrorCode error) {
  return mirror(body, [&](const auto&) { return alter_result(error, std::nullopt); });
}

}  // namespace skiff::api
