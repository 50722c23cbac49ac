// PushTelemetry (key 72), v0 (KIP-714): a client's metrics, an OTLP
// MetricsData (api/telemetry/otlp_metrics.h), checked and stored for
// /metrics by ClientMetricsManager, which also gives Kafka's error codes
// (INVALID_REQUEST, THROTTLING_QUOTA_EXCEEDED, UNKNOWN_SUBSCRIPTION_ID,
// UNSUPPORTED_COMPRESSION_TYPE, TELEMETRY_TOO_LARGE, INVALID_RECORD). No ACL
// check, as in Kafka.
// Threads: any handler thread; ClientMetricsManager is thread-safe.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/push_telemetry_request.h"
#include "protocol/generated/push_telemetry_response.h"

namespace skiff::api {

class PushTelemetryHandler : public TypedApiHandler<protocol::PushTelemetryRequest, protocol::PushTelemetryResponse> {
 public:
  explicit PushTelemetryHandler(BrokerServices& services)
      : TypedApiHandler(protocol::PushTelemetryRequest::kApiKey, 0, 0), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::PushTelemetryRequest& body, Responder& out) override;
  protocol::PushTelemetryResponse error_response(const protocol::PushTelemetryRequest& body, ErrorCode error) override;

 private:
  BrokerServices& services_;
};

}  // namespace skiff::api
