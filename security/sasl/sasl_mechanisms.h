// SaslMechanisms: which SASL mechanisms each SASL listener offers, and a new
// server-side exchange for one of them. Built once from the configuration
// (sasl.enabled.mechanisms, the JAAS entries and OAUTHBEARER's validator
// options per listener; for a listener whose OAUTHBEARER validates signed
// JWTs, the JWKS is read or fetched here, at startup, and the constructor
// throws std::runtime_error when it cannot be), then
// immutable: safe to use from every handler thread. SCRAM exchanges come
// from `scram`, which reads the credentials (null: SCRAM is not offered).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/broker_config.h"
#include "security/oauth/jwt_validator.h"
#include "security/sasl/oauthbearer_server.h"
#include "security/sasl/plain_server.h"
#include "security/sasl/sasl_server.h"

namespace skiff::sasl {

// A new SCRAM exchange for "SCRAM-SHA-256" or "SCRAM-SHA-512".
using ScramFactory = std::function<std::unique_ptr<SaslServer>(const std::string& mechanism)>;

class SaslMechanisms {
 public:
  SaslMechanisms(const config::BrokerConfig& config, ScramFactory scram);

  // The mechanisms `listener` offers, as configured (empty: not SASL).
  const std::vector<std::string>& enabled(const std::string& listener) const;
  // A new exchange, or null when `listener` does not offer `mechanism`.
  std::unique_ptr<SaslServer> start(const std::string& listener, const std::string& mechanism) const;
  // connections.max.reauth.ms of `listener` (0: sessions never expire).
  int64_t max_reauth_ms(const std::string& listener) const;

 private:
  struct Listener {
    std::vector<std::string> mechanisms;
    std::shared_ptr<const PlainUsers> plain_users;
    std::shared_ptr<const config::OAuthBearerOptions> oauthbearer;
    std::shared_ptr<const oauth::JwtValidator> jwt;  // set: OAuthBearerValidatorCallbackHandler
    int64_t max_reauth_ms = 0;
  };
  std::map<std::string, Listener> listeners_;
  ScramFactory scram_;
};

}  // namespace skiff::sasl
