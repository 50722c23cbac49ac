#include "api/handlers/sasl_handshake_handler.h"

#include "api/api_log.h"
#include "common/log_escape.h"
#include "network/sasl_session.h"
#include "security/sasl/sasl_mechanisms.h"

namespace skiff::api {

using Stage = network::SaslSession::Stage;

void SaslHandshakeHandler::handle(ApiRequest& request, protocol::SaslHandshakeRequest& body, Responder& out) {
  const auto& ctx = request.context();
  protocol::SaslHandshakeResponse resp;
  if (!ctx.sasl || !services_.sasl) {
    resp.error_code = code(ErrorCode::kIllegalSaslState);
    out.send(resp);
    return;
  }
  resp.mechanisms = services_.sasl->enabled(ctx.listener_name);
  auto state = ctx.sasl->get();
  const bool reauth = state.stage == Stage::kAuthenticated;
  if (reauth && request.api_version() == 0) {
    refuse(request, resp, ErrorCode::kIllegalSaslState, "re-authentication needs SaslHandshake v1", out);
    return;
  }
  if (reauth && body.mechanism != state.mechanism) {
    refuse(request, resp, ErrorCode::kIllegalSaslState,
           fmt::format("re-authentication with mechanism '{}' where the session used {}", escaped(body.mechanism),
                       state.mechanism),
           out);
    return;
  }
  auto server = services_.sasl->start(ctx.listener_name, body.mechanism);
  if (!server) {
    refuse(request, resp, ErrorCode::kUnsupportedSaslMechanism,
           fmt::format("SASL mechanism '{}' is not enabled", escaped(body.mechanism)), out);
    return;
  }
  if (reauth)
    api_log().debug("re-authenticating {} from {} on listener {}", escaped(state.principal), ctx.peer_address,
                    ctx.listener_name);
  state.mechanism = body.mechanism;
  state.exchange = std::shared_ptr<sasl::SaslServer>(std::move(server));
  state.stage = request.api_version() == 0 ? Stage::kRawToken : Stage::kAuthenticate;
  ctx.sasl->set(std::move(state));  // before the answer: the next frame is read under the new stage
  out.send(resp);
}

void SaslHandshakeHandler::refuse(ApiRequest& request, protocol::SaslHandshakeResponse& resp, ErrorCode error,
                                  const std::string& why, Responder& out) {
  const auto& ctx = request.context();
  api_log().info("failed authentication with {} on listener {}: {}", ctx.peer_address, ctx.listener_name, why);
  resp.error_code = code(error);
  out.send_then_close(resp, std::chrono::milliseconds(services_.config.connection_failed_authentication_delay_ms));
}

protocol::SaslHandshakeResponse SaslHandshakeHandler::error_response(const protocol::SaslHandshakeRequest&,
                                                                     ErrorCode error) {
  protocol::SaslHandshakeResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
