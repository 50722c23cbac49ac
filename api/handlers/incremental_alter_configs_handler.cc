#include "api/handlers/incremental_alter_configs_handler.h"

#include "api/admin/topic_config_change.h"

namespace skiff::api {
namespace {

using protocol::IncrementalAlterConfigsResponse;
using Result = IncrementalAlterConfigsResponse::AlterConfigsResourceResponse;

template <class PerResource>
IncrementalAlterConfigsResponse mirror(const protocol::IncrementalAlterConfigsRequest& body, PerResource&& answer) {
  IncrementalAlterConfigsResponse resp;
  for (const auto& res : body.resources) {
    Result r = answer(res);
    r.resource_type = res.resource_type;
    r.resource_name = res.resource_name;
    resp.responses.push_back(std::move(r));
  }
  return resp;
}

Result result(ErrorCode e, std::optional<std::string> message) {
  Result r;
  r.error_code = code(e);
  r.error_message = std::move(message);
  return r;
}

}  // namespace

void IncrementalAlterConfigsHandler::handle(ApiRequest&, protocol::IncrementalAlterConfigsRequest& body, Responder& out) {
  out.send(mirror(body, [&](const protocol::IncrementalAlterConfigsRequest::AlterConfigsResource& res) {
    std::vector<admin::ConfigChange> changes;
    for (const auto& c : res.configs) changes.push_back({c.name, static_cast<admin::AlterOp>(c.config_operation), c.value});
    auto r = admin::alter_resource(services_, res.resource_type, res.resource_name, changes,
                                   /*incremental=*/true, body.validate_only);
    return result(r.error, r.message);
  }));
}

IncrementalAlterConfigsResponse IncrementalAlterConfigsHandler::error_response(const protocol::IncrementalAlterConfigsRequest& body, ErrorCode error) {
  return mirror(body, [&](const auto&) { return result(error, std::nullopt); });
}

}  // namespace skiff::api
