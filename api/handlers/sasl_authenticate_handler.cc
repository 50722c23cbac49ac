#include "api/handlers/sasl_authenticate_handler.h"

#include <algorithm>

#include "api/api_log.h"
#include "common/byte_order.h"
#include "common/log_escape.h"
#include "common/wall_clock.h"
#include "network/sasl_session.h"
#include "security/sasl/sasl_mechanisms.h"

namespace skiff::api {
namespace {

using Stage = network::SaslSession::Stage;
using StepOutcome = sasl::SaslStep::Outcome;

std::string_view as_text(const std::vector<uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The session lifetime Kafka's SaslServerAuthenticator gives: the listener's
// connections.max.reauth.ms, cut short by the credential's expiry (an
// OAUTHBEARER token's exp); 0: the session never expires.
int64_t session_lifetime_ms(int64_t max_reauth_ms, int64_t expires_at_ms) {
  if (expires_at_ms == 0) return max_reauth_ms;
  const int64_t left = std::max<int64_t>(1, expires_at_ms - wall_clock_ms());
  return max_reauth_ms > 0 ? std::min(max_reauth_ms, left) : left;
}

}  // namespace

void SaslAuthenticateHandler::handle(ApiRequest& request, protocol::SaslAuthenticateRequest& body, Responder& out) {
  const auto& ctx = request.context();
  protocol::SaslAuthenticateResponse resp;
  if (!ctx.sasl || ctx.sasl->gate().stage != Stage::kAuthenticate) {
    resp.error_code = code(ErrorCode::kIllegalSaslState);
    resp.error_message = "SaslAuthenticate request received after successful authentication";
    out.send(resp);
    return;
  }
  int64_t lifetime_ms = 0;
  auto step = advance(ctx, as_text(body.auth_bytes), lifetime_ms);
  resp.auth_bytes.assign(step.token.begin(), step.token.end());
  if (step.outcome == StepOutcome::kFailed) {
    resp.error_code = code(ErrorCode::kSaslAuthenticationFailed);
    resp.error_message = step.error;
    out.send_then_close(resp, failure_delay());
    return;
  }
  // As Kafka 4.4 on the wire: its SaslAuthenticateResponseData keeps the
  // default "" (not null) for a challenge and for success.
  resp.error_message = std::string();
  resp.session_lifetime_ms = lifetime_ms;
  out.send(resp);
}

void SaslAuthenticateHandler::handle_raw(network::Request request, network::ResponseSender& sender) {
  const auto& ctx = request.context;
  int64_t lifetime_ms = 0;
  std::string_view token(reinterpret_cast<const char*>(request.frame.data()), request.frame.size());
  auto step = advance(ctx, token, lifetime_ms);
  network::Response r;
  r.context = ctx;
  if (step.outcome == StepOutcome::kFailed) {  // v0 has no way to say why: the connection just closes
    r.action = network::Response::Action::kSendThenClose;
    r.close_delay = failure_delay();
    sender.send_response(std::move(r));
    return;
  }
  std::vector<uint8_t> frame(4 + step.token.size());
  store_be<int32_t>(frame.data(), static_cast<int32_t>(step.token.size()));
  std::copy(step.token.begin(), step.token.end(), frame.begin() + 4);
  r.chunks.emplace_back(std::move(frame));
  sender.send_response(std::move(r));
}

sasl::SaslStep SaslAuthenticateHandler::advance(const network::RequestContext& ctx, std::string_view token,
                                                int64_t& lifetime_ms) {
  auto state = ctx.sasl->get();
  auto exchange = std::static_pointer_cast<sasl::SaslServer>(state.exchange);
  auto step = exchange ? exchange->step(token) : sasl::SaslStep::failed("No SASL exchange in progress");
  const bool reauth = !state.principal.empty();
  if (step.outcome == StepOutcome::kComplete) {
    auto principal = "User:" + step.user;
    if (reauth && state.principal != principal) {
      step = sasl::SaslStep::failed(
          fmt::format("Cannot change principals during re-authentication from {}: {}", state.principal, principal));
    } else {
      lifetime_ms = session_lifetime_ms(services_.sasl ? services_.sasl->max_reauth_ms(ctx.listener_name) : 0,
                                        step.expires_at_ms);
      auto expires = lifetime_ms > 0 ? network::SaslSession::Clock::now() + std::chrono::milliseconds(lifetime_ms)
                                     : network::SaslSession::Clock::time_point::max();
      api_log().debug("{} authenticated {} from {} on listener {}", state.mechanism, escaped(principal),
                      ctx.peer_address, ctx.listener_name);
      ctx.sasl->set_authenticated(std::move(principal), expires, step.token_authenticated);
      return step;
    }
  }
  if (step.outcome == StepOutcome::kFailed) {
    if (const auto at = step.error.find(" during authentication "); at != std::string::npos && reauth)
      step.error.replace(at, 23, " during re-authentication ");  // Kafka's wording when re-authenticating
    api_log().info("failed authentication with {} on listener {} ({}): {}{}{}", ctx.peer_address, ctx.listener_name,
                   state.mechanism, escaped(step.error), step.log_detail.empty() ? "" : "; ", escaped(step.log_detail));
  }
  return step;
}

std::chrono::milliseconds SaslAuthenticateHandler::failure_delay() const {
  return std::chrono::milliseconds(services_.config.connection_failed_authentication_delay_ms);
}

protocol::SaslAuthenticateResponse SaslAuthenticateHandler::error_response(const protocol::SaslAuthenticateRequest&,
                                                                           ErrorCode error) {
  protocol::SaslAuthenticateResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
