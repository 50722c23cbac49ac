#include "api/handlers/describe_configs_handler.h"

#include "api/admin/broker_loggers.h"
#include "api/admin/client_metrics_admin.h"
#include "api/admin/config_describer.h"
#include "api/admin/group_config_admin.h"
#include "api/authorize.h"

namespace skiff::api {
namespace {

using protocol::DescribeConfigsResponse;
using DescribedResource = DescribeConfigsResponse::DescribeConfigsResult;

template <class PerResource>
DescribeConfigsResponse mirror(const protocol::DescribeConfigsRequest& body, PerResource&& answer) {
  DescribeConfigsResponse resp;
  for (const auto& res : body.resources) {
    DescribedResource r = answer(res);
    r.resource_type = res.resource_type;
    r.resource_name = res.resource_name;
    resp.results.push_back(std::move(r));
  }
  return resp;
}

DescribedResource describe_failed(ErrorCode e, std::optional<std::string> message) {
  DescribedResource r;
  r.error_code = code(e);
  r.error_message = std::move(message);
  return r;
}

DescribeConfigsResponse::DescribeConfigsResourceResult to_wire(const admin::ConfigEntry& e, int16_t version,
                                                               bool synonyms, bool docs) {
  DescribeConfigsResponse::DescribeConfigsResourceResult c;
  c.name = e.name;
  c.value = e.sensitive ? std::nullopt : e.value;
  c.read_only = e.read_only;
  c.config_source = static_cast<int8_t>(e.source);
  c.is_sensitive = e.sensitive;
  if (synonyms && version >= 1)
    for (const auto& s : e.synonyms) {
      DescribeConfigsResponse::DescribeConfigsSynonym syn;
      syn.name = s.name;
      syn.value = s.value;
      syn.source = static_cast<int8_t>(s.source);
      c.synonyms.push_back(std::move(syn));
    }
  if (version >= 3) {
    c.config_type = static_cast<int8_t>(e.type);
    c.documentation = docs ? std::optional(e.documentation) : std::nullopt;
  }
  return c;
}

}  // namespace

void DescribeConfigsHandler::handle(ApiRequest& request, protocol::DescribeConfigsRequest& body, Responder& out) {
  const int16_t version = request.api_version();
  out.send(mirror(body, [&](const protocol::DescribeConfigsRequest::DescribeConfigsResource& res) -> DescribedResource {
    auto refused =
        config_refusal(services_, request, AclOperation::kDescribeConfigs, res.resource_type, res.resource_name);
    if (refused != ErrorCode::kNone) return describe_failed(refused, std::nullopt);
    std::optional<std::vector<admin::ConfigEntry>> entries;
    if (res.resource_type == admin::kResourceTopic) {
      entries = admin::describe_topic(services_, res.resource_name, res.configuration_keys);
      if (!entries)
        return describe_failed(ErrorCode::kUnknownTopicOrPartition,
                               "The topic '" + res.resource_name + "' does not exist.");
    } else if (res.resource_type == admin::kResourceBroker) {
      if (!res.resource_name.empty() && res.resource_name != std::to_string(services_.broker.node_id))
        return describe_failed(ErrorCode::kInvalidRequest, "Unexpected broker id, expected " +
                                                               std::to_string(services_.broker.node_id) +
                                                               " or empty string, but received " + res.resource_name);
      entries = admin::describe_broker(services_, res.configuration_keys, !res.resource_name.empty());
    } else if (res.resource_type == admin::kResourceBrokerLogger) {
      if (res.resource_name != std::to_string(services_.broker.node_id))
        return describe_failed(ErrorCode::kInvalidRequest, "Unexpected broker id, expected " +
                                                               std::to_string(services_.broker.node_id) +
                                                               ", but received " + res.resource_name);
      entries = admin::describe_loggers(services_, res.configuration_keys);
    } else if (res.resource_type == admin::kResourceGroup) {
      entries = admin::describe_group_configs(services_, res.resource_name, res.configuration_keys);
    } else if (res.resource_type == admin::kResourceClientMetrics) {
      std::string message;
      entries = admin::describe_client_metrics(services_, res.resource_name, res.configuration_keys, message);
      if (!entries) return describe_failed(ErrorCode::kInvalidRequest, message);
    } else {
      return describe_failed(ErrorCode::kInvalidRequest,
                             "Unsupported resource type " + std::to_string(res.resource_type));
    }
    DescribedResource r;
    r.error_message = std::nullopt;
    for (const auto& e : *entries)
      r.configs.push_back(to_wire(e, version, body.include_synonyms, body.include_documentation));
    return r;
  }));
}

DescribeConfigsResponse DescribeConfigsHandler::error_response(const protocol::DescribeConfigsRequest& body,
                                                               ErrorCode error) {
  return mirror(body, [&](const auto&) { return describe_failed(error, std::nullopt); });
}

}  // namespace skiff::api
