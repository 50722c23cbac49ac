#include "api/handlers/list_config_resources_handler.h"

#include <algorithm>
#include <string>

#include "api/admin/config_describer.h"
#include "api/authorize.h"
#include "api/telemetry/client_metrics_manager.h"
#include "coordinator/group/group_coordinator.h"
#include "log/log_manager.h"

namespace skiff::api {

namespace {

using namespace admin;

constexpr int8_t kServedTypes[] = {kResourceTopic, kResourceBroker, kResourceBrokerLogger, kResourceClientMetrics,
                                   kResourceGroup};

bool served(int8_t type) {
  return std::find(std::begin(kServedTypes), std::end(kServedTypes), type) != std::end(kServedTypes);
}

}  // namespace

void ListConfigResourcesHandler::add_resources(int8_t type, protocol::ListConfigResourcesResponse& resp) const {
  auto add = [&](std::string name) {
    auto& r = resp.config_resources.emplace_back();
    r.resource_name = std::move(name);
    r.resource_type = type;
  };
  switch (type) {
    case kResourceTopic:
      for (auto& t : services_.logs.list_topics()) add(std::move(t.name));
      break;
    case kResourceBroker:
    case kResourceBrokerLogger:
      add(std::to_string(services_.broker.node_id));
      break;
    case kResourceGroup:
      if (services_.groups)
        for (auto& g : services_.groups->groups_with_configs()) add(std::move(g));
      break;
    default:  // kResourceClientMetrics: the subscriptions
      if (services_.client_metrics)
        for (auto& name : services_.client_metrics->subscriptions().names()) add(std::move(name));
      break;
  }
}

void ListConfigResourcesHandler::handle(ApiRequest& request, protocol::ListConfigResourcesRequest& body,
                                        Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kDescribeConfigs)) {  // as Kafka's KafkaApis
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  protocol::ListConfigResourcesResponse resp;
  std::vector<int8_t> types(body.resource_types.begin(), body.resource_types.end());
  if (request.api_version() == 0) types.assign(1, kResourceClientMetrics);
  if (types.empty()) types.assign(std::begin(kServedTypes), std::end(kServedTypes));
  if (!std::all_of(types.begin(), types.end(), served)) {
    out.send(error_response(body, ErrorCode::kUnsupportedVersion));
    return;
  }
  std::sort(types.begin(), types.end());
  types.erase(std::unique(types.begin(), types.end()), types.end());
  for (int8_t t : types) add_resources(t, resp);
  out.send(resp);
}

protocol::ListConfigResourcesResponse ListConfigResourcesHandler::error_response(
    const protocol::ListConfigResourcesRequest&, ErrorCode error) {
  protocol::ListConfigResourcesResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
