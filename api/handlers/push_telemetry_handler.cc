#include "api/handlers/push_telemetry_handler.h"

#include "api/telemetry/client_metrics_manager.h"

namespace skiff::api {

void PushTelemetryHandler::handle(ApiRequest& request, protocol::PushTelemetryRequest& body, Responder& out) {
  auto* manager = services_.client_metrics;  // set by KafkaApis before this handler is registered
  const auto& ctx = request.context();
  auto client = manager->context(ctx.connection_id, request.header.client_id.value_or(""), ctx.peer_address);
  telemetry::PushRequest push{body.client_instance_id, body.subscription_id, body.terminating, body.compression_type,
                              body.metrics};
  out.send(error_response(body, manager->push(push, client)));
}

protocol::PushTelemetryResponse PushTelemetryHandler::error_response(const protocol::PushTelemetryRequest&,
                                                                     ErrorCode error) {
  protocol::PushTelemetryResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
