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
  static const std::vector<std::string> names{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
  return names;
}

struct SaslSettings {
  std::vector<std::string> enabled_mechanisms{"GSSAPI"};  // Kafka's default; upper-cased
  // listener.name.<l>.<mechanism>.sasl.jaas.config, by upper-case mechanism:
  // the JAAS text (for PLAIN its user_<name>="<password>" options are the users).
  std::map<std::string, std::string> jaas_config;
  int64_t connections_max_reauth_ms = 0;  // 0: sessions never expire (KIP-368)

  bool operator==(const SaslSettings&) const = default;
};

}  // namespace skiff::config
