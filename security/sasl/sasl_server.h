// SaslServer: the server side of one SASL exchange (RFC 4422) for one
// mechanism: the client's tokens in, the server's challenges out, until the
// client is authenticated or refused. PLAIN (plain_server.h), SCRAM
// (scram_server.h) and OAUTHBEARER (oauthbearer_server.h) implement it; the SaslHandshake and SaslAuthenticate
// handlers drive it (api/handlers/sasl_*_handler.h), keeping the exchange in
// the connection's network::SaslSession.
// Thread rules: one exchange is driven by one request at a time (a
// connection has one request in flight), never concurrently; implementations
// only read shared state (users, credentials) through thread-safe stores.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace skiff::sasl {

struct SaslStep {
  enum class Outcome { kChallenge, kComplete, kFailed };
  Outcome outcome = Outcome::kFailed;
  std::string token;                 // bytes for the client: a challenge or the final server message; may be empty
  std::string user;                  // kComplete: the authenticated user name (the principal is "User:" + user)
  std::string error;                 // kFailed: the message the client gets with SASL_AUTHENTICATION_FAILED
  std::string log_detail;            // kFailed: what the broker logs besides (never a password)
  int64_t expires_at_ms = 0;         // kComplete: when the credential expires (wall clock); 0: never
  bool token_authenticated = false;  // kComplete: a delegation token's login (KafkaPrincipal.tokenAuthenticated)

  static SaslStep challenge(std::string token) { return {Outcome::kChallenge, std::move(token), "", "", ""}; }
  static SaslStep complete(std::string user, std::string token = "") {
    return {Outcome::kComplete, std::move(token), std::move(user), "", ""};
  }
  static SaslStep failed(std::string error, std::string log_detail = "") {
    return {Outcome::kFailed, "", "", std::move(error), std::move(log_detail)};
  }
};

// Kafka's message when an exchange fails on a malformed message or wrong
// credentials (its SaslServerAuthenticator's answer to a SaslException).
inline std::string invalid_credentials_message(std::string_view mechanism) {
  return "Authentication failed during authentication due to invalid credentials with SASL mechanism " +
         std::string(mechanism);
}

class SaslServer {
 public:
  virtual ~SaslServer() = default;
  // The next client token. After kComplete or kFailed the exchange is over.
  virtual SaslStep step(std::string_view client_token) = 0;
};

}  // namespace skiff::sasl
