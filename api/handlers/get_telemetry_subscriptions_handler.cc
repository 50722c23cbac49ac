#include "api/handlers/get_telemetry_subscriptions_handler.h"

#include "api/telemetry/client_metrics_manager.h"

namespace skiff::api {

void GetTelemetrySubscriptionsHandler::handle(ApiRequest& request, protocol::GetTelemetrySubscriptionsRequest& body,
                                              Responder& out) {
  auto* manager = services_.client_metrics;  // set by KafkaApis before this handler is registered
  const auto& ctx = request.context();
  auto client = manager->context(ctx.connection_id, request.header.client_id.value_or(""), ctx.peer_address);
  auto answer = manager->get_subscriptions(body.client_instance_id, client);
  if (answer.error != ErrorCode::kNone) {
    out.send(error_response(body, answer.error));
    return;
  }
  protocol::GetTelemetrySubscriptionsResponse resp;
  resp.client_instance_id = answer.client_instance_id;
  resp.subscription_id = answer.subscription_id;
  resp.accepted_compression_types.assign(std::begin(telemetry::ClientMetricsManager::kAcceptedCompression),
                                         std::end(telemetry::ClientMetricsManager::kAcceptedCompression));
  resp.push_interval_ms = answer.push_interval_ms;
  resp.telemetry_max_bytes = telemetry::ClientMetricsManager::kTelemetryMaxBytes;
  resp.delta_temporality = true;  // as Kafka: sums and histograms as deltas
  resp.requested_metrics = std::move(answer.requested_metrics);
  out.send(resp);
}

// Kafka's GetTelemetrySubscriptionsRequest.getErrorResponse: only the error.
protocol::GetTelemetrySubscriptionsResponse GetTelemetrySubscriptionsHandler::error_response(
    const protocol::GetTelemetrySubscriptionsRequest&, ErrorCode error) {
  protocol::GetTelemetrySubscriptionsResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
