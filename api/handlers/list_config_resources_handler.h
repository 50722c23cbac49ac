// ListConfigResources (key 74), v0-1 (KIP-1142; v0 was
// ListClientMetricsResources): the config resources that exist, by type, as
// Kafka 4.4 lists them: TOPIC every topic (internal ones too), BROKER and
// BROKER_LOGGER this broker's id, GROUP the groups that have dynamic configs
// (not every group), CLIENT_METRICS the client-metrics subscriptions
// (api/telemetry/client_metrics_subscriptions.h). No types asked: all of them; a type
// outside these five: UNSUPPORTED_VERSION. v0 asks for client metrics only.
// Needs DESCRIBE_CONFIGS on the cluster (CLUSTER_AUTHORIZATION_FAILED).
// Threads: any handler thread; reads thread-safe services only.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/list_config_resources_request.h"
#include "protocol/generated/list_config_resources_response.h"

namespace skiff::api {

class ListConfigResourcesHandler
    : public TypedApiHandler<protocol::ListConfigResourcesRequest, protocol::ListConfigResourcesResponse> {
 public:
  explicit ListConfigResourcesHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ListConfigResourcesRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ListConfigResourcesRequest& body, Responder& out) override;
  protocol::ListConfigResourcesResponse error_response(const protocol::ListConfigResourcesRequest& body,
                                                       ErrorCode error) override;

 private:
  void add_resources(int8_t type, protocol::ListConfigResourcesResponse& resp) const;

  BrokerServices& services_;
};

}  // namespace skiff::api
