// SaslAuthenticate (key 36), v0-2: one SASL token of the exchange that
// SaslHandshake started, and the server's answer to it; also the bare
// tokens that follow a SaslHandshake v0 (handle_raw: a token in, a
// size-prefixed token out, no Kafka header). When the exchange completes,
// the connection's principal is "User:<name>" and (v1+) the session lives
// connections.max.reauth.ms (0: for ever); a re-authentication must name the
// same principal. A failed exchange: SASL_AUTHENTICATION_FAILED with the
// mechanism's message, one log line with the peer's address, and the
// connection closed after connection.failed.authentication.delay.ms. Outside
// an exchange (a listener without SASL, or already authenticated):
// ILLEGAL_SASL_STATE, as Kafka 4.4's KafkaApis.
#pragma once

#include <string_view>

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "network/request.h"
#include "protocol/generated/sasl_authenticate_request.h"
#include "protocol/generated/sasl_authenticate_response.h"
#include "security/sasl/sasl_server.h"

namespace skiff::api {

class SaslAuthenticateHandler
    : public TypedApiHandler<protocol::SaslAuthenticateRequest, protocol::SaslAuthenticateResponse> {
 public:
  explicit SaslAuthenticateHandler(BrokerServices& services)
      : TypedApiHandler(protocol::SaslAuthenticateRequest::kApiKey, 0, 2), services_(services) {}

  // A bare token after SaslHandshake v0.
  void handle_raw(network::Request request, network::ResponseSender& sender);

 protected:
  void handle(ApiRequest& request, protocol::SaslAuthenticateRequest& body, Responder& out) override;
  protocol::SaslAuthenticateResponse error_response(const protocol::SaslAuthenticateRequest& body,
                                                    ErrorCode error) override;

 private:
  // Feeds `token` to the session's exchange and records the outcome in the
  // session; `lifetime_ms` gets the new session's lifetime (0: unbounded).
  sasl::SaslStep advance(const network::RequestContext& ctx, std::string_view token, int64_t& lifetime_ms);
  std::chrono::milliseconds failure_delay() const;
  BrokerServices& services_;
};

}  // namespace skiff::api
