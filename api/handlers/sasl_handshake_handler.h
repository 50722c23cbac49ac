// SaslHandshake (key 17), v0-1: the client names a SASL mechanism; the
// answer lists the listener's enabled ones. On a SASL listener it starts an
// exchange (security/sasl/sasl_mechanisms.h) in the connection's SaslSession: v1
// continues with SaslAuthenticate requests, v0 with bare tokens (the form
// old clients use). On an authenticated connection it starts a
// re-authentication (KIP-368), with the same mechanism. A mechanism not
// offered: UNSUPPORTED_SASL_MECHANISM, then the connection is closed after
// connection.failed.authentication.delay.ms. On a listener without SASL:
// ILLEGAL_SASL_STATE, as Kafka 4.4's KafkaApis.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "protocol/generated/sasl_handshake_request.h"
#include "protocol/generated/sasl_handshake_response.h"

namespace skiff::api {

class SaslHandshakeHandler : public TypedApiHandler<protocol::SaslHandshakeRequest, protocol::SaslHandshakeResponse> {
 public:
  explicit SaslHandshakeHandler(BrokerServices& services)
      : TypedApiHandler(protocol::SaslHandshakeRequest::kApiKey, 0, 1), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::SaslHandshakeRequest& body, Responder& out) override;
  protocol::SaslHandshakeResponse error_response(const protocol::SaslHandshakeRequest& body, ErrorCode error) override;

 private:
  void refuse(ApiRequest& request, protocol::SaslHandshakeResponse& resp, ErrorCode error, const std::string& why,
              Responder& out);
  BrokerServices& services_;
};

}  // namespace skiff::api
