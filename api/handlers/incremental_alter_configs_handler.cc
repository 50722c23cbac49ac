#include "api/handlers/incremental_alter_configs_handler.h"

#include "api/admin/resource_responses.h"
#include "api/admin/topic_config_change.h"
#include "api/authorize.h"

namespace skiff::api {
namespace {

using protocol::IncrementalAlterConfigsResponse;
using IncrementalResult = IncrementalAlterConfigsResponse::AlterConfigsResourceResponse;

IncrementalAlterConfigsResponse mirror(const protocol::IncrementalAlterConfigsRequest& body, auto&& answer) {
  return admin::mirror_resources<IncrementalAlterConfigsResponse>(body, answer);
}

IncrementalResult incremental_result(ErrorCode e, std::optional<std::string> message) {
  return admin::resource_result<IncrementalResult>(e, std::move(message));
}

}  // namespace

// ALTER_CONFIGS on each resource (config_refusal), as KafkaApis.
void IncrementalAlterConfigsHandler::handle(ApiRequest& request, protocol::IncrementalAlterConfigsRequest& body,
                                            Responder& out) {
  out.send(mirror(body, [&](const protocol::IncrementalAlterConfigsRequest::AlterConfigsResource& res) {
    auto refused =
        config_refusal(services_, request, AclOperation::kAlterConfigs, res.resource_type, res.resource_name);
    if (refused != ErrorCode::kNone) return incremental_result(refused, std::nullopt);
    std::vector<admin::ConfigChange> changes;
    for (const auto& c : res.configs)
      changes.push_back({c.name, static_cast<admin::AlterOp>(c.config_operation), c.value});
    auto r = admin::alter_resource(services_, res.resource_type, res.resource_name, changes,
                                   /*incremental=*/true, body.validate_only);
    return incremental_result(r.error, r.message);
  }));
}

IncrementalAlterConfigsResponse IncrementalAlterConfigsHandler::error_response(
    const protocol::IncrementalAlterConfigsRequest& body, ErrorCode error) {
  return mirror(body, [&](const auto&) { return incremental_result(error, std::nullopt); });
}

}  // namespace skiff::api
