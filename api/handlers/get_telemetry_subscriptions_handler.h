// GetTelemetrySubscriptions (key 71), v0 (KIP-714): which metrics the client
// should push and how often, its client instance id (a new one for the zero
// id), the subscription id to push with, the compression types accepted and
// telemetry_max_bytes (api/telemetry/client_metrics_manager.h). No ACL check,
// as in Kafka. With no subscription, the requested metrics are empty: the
// client pushes nothing.
// Threads: any handler thread; ClientMetricsManager is thread-safe.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/get_telemetry_subscriptions_request.h"
#include "protocol/generated/get_telemetry_subscriptions_response.h"

namespace skiff::api {

class GetTelemetrySubscriptionsHandler
    : public TypedApiHandler<protocol::GetTelemetrySubscriptionsRequest, protocol::GetTelemetrySubscriptionsResponse> {
 public:
  explicit GetTelemetrySubscriptionsHandler(BrokerServices& services)
      : TypedApiHandler(protocol::GetTelemetrySubscriptionsRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::GetTelemetrySubscriptionsRequest& body, Responder& out) override;
  protocol::GetTelemetrySubscriptionsResponse error_response(const protocol::GetTelemetrySubscriptionsRequest& body,
                                                             ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
