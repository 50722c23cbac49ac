// SaslSettings: one listener's SASL configuration, as Kafka's keys give it
// (config/sasl_config_def.cc): the broker-wide sasl.* values with the
// listener's listener.name.<name>.* overrides applied. Plain data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
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

  bool operator==(const SaslSettings&) const = default;
};

}  // namespace skiff::config
