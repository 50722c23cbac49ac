// SaslSettings: one listener's SASL configuration, as Kafka's keys give it
// (config/sasl_config_def.cc): the broker-wide sasl.* values with the
// listener's listener.name.<name>.* overrides applied. Plain data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::config {

// The mechanisms Skiff implements (names as in sasl.enabled.mechanisms).
inline const std::vector<std::string>& supported_sasl_mechanisms() {
  static const std::vector<std::string> names{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"};
  return names;
}

// How OAUTHBEARER's unsecured tokens are validated: the unsecuredValidator*
// options of the listener's oauthbearer.sasl.jaas.config, with Kafka's
// defaults (OAuthBearerUnsecuredValidatorCallbackHandler).
struct OAuthBearerOptions {
  std::string principal_claim = "sub";      // unsecuredValidatorPrincipalClaimName
  std::string scope_claim = "scope";        // unsecuredValidatorScopeClaimName
  std::vector<std::string> required_scope;  // unsecuredValidatorRequiredScope, space-separated
  int64_t clock_skew_ms = 0;                // unsecuredValidatorAllowableClockSkewMs

  bool operator==(const OAuthBearerOptions&) const = default;
};

// OAUTHBEARER with signed JWTs, Kafka's OAuthBearerValidatorCallbackHandler
// (BrokerJwtValidator): the sasl.oauthbearer.* keys with Kafka's defaults,
// and the TLS options of the JWKS fetch (the ssl.* options of the listener's
// OAUTHBEARER JAAS entry, as Kafka's JaasOptionsUtils reads them).
struct OAuthBearerJwtOptions {
  std::string jwks_endpoint_url;  // https://, http:// or file:
  int64_t jwks_refresh_ms = 3600000;
  int64_t jwks_retry_backoff_ms = 100;
  int64_t jwks_retry_backoff_max_ms = 10000;
  std::vector<std::string> expected_audience;
  std::string expected_issuer;
  bool allow_unverified_audience = false;
  bool allow_unverified_issuer = false;
  std::string sub_claim = "sub";
  std::string scope_claim = "scope";
  int32_t clock_skew_s = 30;
  std::string jwt_validator_class = "org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator";
  std::string truststore_location;      // JAAS ssl.truststore.location (PEM)
  std::string truststore_certificates;  // JAAS ssl.truststore.certificates (PEM text)
  bool verify_hostname = true;          // JAAS ssl.endpoint.identification.algorithm ("https"; empty: off)

  bool operator==(const OAuthBearerJwtOptions&) const = default;
};

// listener.name.<l>.oauthbearer.sasl.server.callback.handler.class values.
inline constexpr std::string_view kOAuthBearerValidatorCallbackHandler =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
inline constexpr std::string_view kOAuthBearerUnsecuredValidatorCallbackHandler =
    "org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler";

// The options of an OAUTHBEARER JAAS entry (throws std::invalid_argument
// naming the option that is wrong).
OAuthBearerOptions oauthbearer_options_from_jaas(const std::string& jaas_config);

struct SaslSettings {
  std::vector<std::string> enabled_mechanisms{"GSSAPI"};  // Kafka's default; upper-cased
  // listener.name.<l>.<mechanism>.sasl.jaas.config, by upper-case mechanism:
  // the JAAS text (for PLAIN its user_<name>="<password>" options are the users).
  std::map<std::string, std::string> jaas_config;
  int64_t connections_max_reauth_ms = 0;  // 0: sessions never expire (KIP-368)
  OAuthBearerOptions oauthbearer;         // from jaas_config["OAUTHBEARER"], when OAUTHBEARER is enabled
  // OAUTHBEARER's server callback handler (per listener only; empty: Kafka's
  // default, the unsecured validator) and, when it is the JWT validator, its options.
  std::string oauthbearer_callback_handler;
  OAuthBearerJwtOptions oauthbearer_jwt;
  // listener.name.<l>.oauthbearer.sasl.oauthbearer.<key> values by
  // sasl.oauthbearer.<key>: applied over the others once all are read, as
  // Kafka's ConfigurationUtils prefers the mechanism-prefixed key.
  std::map<std::string, std::string> oauthbearer_prefixed;

  bool operator==(const SaslSettings&) const = default;
};

}  // namespace skiff::config
