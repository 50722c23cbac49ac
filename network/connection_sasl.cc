// Connection on a SASL_PLAINTEXT or SASL_SSL listener: what may pass before
// and after authentication (sasl_session.h gives the stages), decided before
// a request is handed on, as Kafka's SaslServerAuthenticator decides it. The
// SaslHandshake and SaslAuthenticate handlers do the authenticating; here a
// client that sends anything else first is disconnected, and one whose
// session has expired (connections.max.reauth.ms) is disconnected at its
// next request unless that request re-authenticates. Processor thread only.
#include <fmt/format.h>

#include "common/byte_order.h"
#include "common/log_escape.h"
#include "network/connection.h"
#include "network/net_log.h"
#include "network/processor.h"

namespace skiff::network {
namespace {

constexpr int16_t kSaslHandshake = 17;
constexpr int16_t kApiVersions = 18;
constexpr int16_t kSaslAuthenticate = 36;

}  // namespace

// The session may have moved on since the last request (a handler
// authenticated it): take its stage, and its principal when that changed.
void Connection::refresh_sasl() {
  const auto previous = sasl_gate_.generation;
  sasl_gate_ = context_.sasl->gate();
  if (sasl_gate_.generation != previous) {
    context_.principal = context_.sasl->principal();
    context_.token_authenticated = context_.sasl->token_authenticated();
  }
}

// Before authentication a frame may be no larger than sasl.server.max.receive.size.
int32_t Connection::max_frame_bytes() {
  if (!context_.sasl) return processor_.config().max_request_bytes;
  refresh_sasl();
  if (sasl_gate_.stage == SaslSession::Stage::kAuthenticated) return processor_.config().max_request_bytes;
  return std::min(processor_.config().sasl_max_receive_bytes, processor_.config().max_request_bytes);
}

bool Connection::sasl_admits(const Frame& frame, bool& raw_token) {
  using Stage = SaslSession::Stage;
  refresh_sasl();
  if (sasl_gate_.stage == Stage::kRawToken) {
    raw_token = true;
    return true;
  }
  const int16_t api = frame.size() >= 2 ? load_be<int16_t>(frame.data()) : -1;
  std::string why;
  switch (sasl_gate_.stage) {
    case Stage::kHandshake:
      if (api == kApiVersions || api == kSaslHandshake) return true;
      why = fmt::format("a request with API key {} before SASL authentication (expected SaslHandshake)", api);
      break;
    case Stage::kAuthenticate:
      if (api == kSaslAuthenticate) return true;
      why = fmt::format("a request with API key {} during SASL authentication (expected SaslAuthenticate)", api);
      break;
    default:
      if (api == kSaslHandshake || api == kSaslAuthenticate) return true;
      if (SaslSession::Clock::now() < sasl_gate_.expires_at) return true;
      why = fmt::format(
          "its SASL session expired (connections.max.reauth.ms or the credential's lifetime) and it did not "
          "re-authenticate");
      break;
  }
  net_log().info("closing connection from {} on listener {}: {}", context_.peer_address, context_.listener_name, why);
  close("");
  return false;
}

void Connection::close_after(std::chrono::milliseconds delay) {
  retry_timer_.expires_after(delay);
  retry_timer_.async_wait([self = shared_from_this()](const boost::system::error_code&) { self->close(""); });
}

}  // namespace skiff::network
