// OAUTHBEARER (RFC 7628). By default with unsecured JWS tokens (RFC
// 7515/7519, "alg":"none"): what Kafka's broker does when a listener enables
// OAUTHBEARER without a server callback handler (OAuthBearerUnsecuredValidator-
// CallbackHandler); any client can claim any principal: for local development
// only. With a TokenCheck, as Kafka's OAuthBearerValidatorCallbackHandler:
// signed JWTs checked by security/oauth's JwtValidator.
//
// The exchange:
//   client-first  "n,[a=<authzid>],\x01auth=Bearer <jws>\x01[<key>=<value>\x01]*\x01"
//   valid token   complete, the principal from its principal claim ("sub"),
//                 the session ending at its "exp" (expires_at_ms);
//   invalid       challenge {"status":"invalid_token"} (or "insufficient_scope"
//                 with the missing "scope"); the client answers "\x01" and the
//                 exchange fails with that JSON as the message, as Kafka's.
// A malformed client-first message fails at once. Extensions are accepted and
// ignored (Kafka's unsecured validator accepts every extension).
// Thread rules: see sasl_server.h; the options are immutable and shared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "config/sasl_settings.h"
#include "security/sasl/sasl_server.h"

namespace skiff::sasl {

// What validating one unsecured JWS found.
struct JwsCheck {
  bool ok = false;
  std::string principal;
  int64_t expires_at_ms = 0;
  std::string reason;         // !ok: why, for the broker's log
  std::string missing_scope;  // !ok because a required scope is missing: that scope
};

JwsCheck check_unsecured_jws(std::string_view jws, const config::OAuthBearerOptions& options, int64_t now_ms);

using ClockMs = std::function<int64_t()>;
// Validates one token at a time in ms (must be thread-safe: exchanges run on
// every handler thread).
using TokenCheck = std::function<JwsCheck(std::string_view token, int64_t now_ms)>;

// With the unsecured validator and its options.
std::unique_ptr<SaslServer> make_oauthbearer_server(std::shared_ptr<const config::OAuthBearerOptions> options,
                                                    ClockMs now_ms);
// With another validator (the JWT validator of security/oauth).
std::unique_ptr<SaslServer> make_oauthbearer_server(TokenCheck check, ClockMs now_ms);

}  // namespace skiff::sasl
