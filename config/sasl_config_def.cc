// The SASL keys of the one configuration table (config_def.h), Kafka's
// names: sasl.enabled.mechanisms and connections.max.reauth.ms (broker-wide
// or per listener), sasl.mechanism.inter.broker.protocol (accepted), and the
// per-listener-only <mechanism>.sasl.jaas.config (with OAUTHBEARER's
// validator options read from it). Values are checked for
// form here; which mechanisms a SASL listener can serve is checked when the
// whole configuration is (config_loader.cc).
#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "config/config_def.h"
#include "config/jaas.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

ConfigKeyDef jaas_key(const std::string& mechanism) {
  return ConfigKeyDef{fmt::format("{}.sasl.jaas.config", to_lower(mechanism)),
                      ConfigType::kPassword,
                      "",
                      fmt::format("JAAS login-module entry for {} on this listener, in Kafka's form.", mechanism),
                      [mechanism](BrokerConfig& c, const std::string& v) {
                        parse_jaas_config(v);  // throws std::invalid_argument saying what is wrong
                        c.sasl.jaas_config[mechanism] = v;
                      },
                      "LoginModuleClass required key=\"value\" ...;"};
}

}  // namespace

void add_sasl_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(ConfigKeyDef{"sasl.enabled.mechanisms", ConfigType::kList, "GSSAPI",
                           "SASL mechanisms a SASL listener offers. Skiff implements PLAIN, SCRAM-SHA-256, "
                           "SCRAM-SHA-512 and OAUTHBEARER (unsecured tokens, for development); a SASL listener "
                           "needs at least one of them.",
                           [](BrokerConfig& c, const std::string& v) {
                             c.sasl.enabled_mechanisms.clear();
                             for (const auto& m : split_list(v)) c.sasl.enabled_mechanisms.push_back(upper(m));
                           },
                           "a list of SASL mechanism names"});
  d.push_back(ConfigKeyDef{
      "connections.max.reauth.ms", ConfigType::kLong, "0",
      "Session lifetime of a SASL connection: a client must re-authenticate within it (KIP-368); "
      "0: sessions never expire.",
      [](BrokerConfig& c, const std::string& v) { c.sasl.connections_max_reauth_ms = parse_integer(v, 0, kLongMax); },
      "an integer in [0, 9223372036854775807]"});
  d.push_back(ConfigKeyDef{"sasl.mechanism.inter.broker.protocol", ConfigType::kString, "GSSAPI",
                           "Accepted for Kafka configurations; a single broker makes no inter-broker connections.",
                           [](BrokerConfig&, const std::string&) {},  // kept only in `effective`
                           "a SASL mechanism name"});
}

OAuthBearerOptions oauthbearer_options_from_jaas(const std::string& jaas_config) {
  const auto options = parse_jaas_config(jaas_config).options;
  OAuthBearerOptions o;
  auto option = [&](const char* name) {
    auto it = options.find(name);
    return it == options.end() ? std::string() : std::string(trim(it->second));
  };
  if (auto v = option("unsecuredValidatorPrincipalClaimName"); !v.empty()) o.principal_claim = v;
  if (auto v = option("unsecuredValidatorScopeClaimName"); !v.empty()) o.scope_claim = v;
  std::istringstream scopes(option("unsecuredValidatorRequiredScope"));  // space-separated, as Kafka's parseScope
  for (std::string scope; scopes >> scope;) o.required_scope.push_back(scope);
  if (auto v = option("unsecuredValidatorAllowableClockSkewMs"); !v.empty()) {
    try {
      o.clock_skew_ms = parse_integer(v, 0, std::numeric_limits<int32_t>::max());
    } catch (const std::exception&) {
      throw std::invalid_argument("unsecuredValidatorAllowableClockSkewMs must be an integer in [0, 2147483647]");
    }
  }
  return o;
}

const std::vector<ConfigKeyDef>& listener_only_config_defs() {
  static const std::vector<ConfigKeyDef> defs = [] {
    std::vector<ConfigKeyDef> d;
    for (const auto& m : supported_sasl_mechanisms()) d.push_back(jaas_key(m));
    return d;
  }();
  return defs;
}

}  // namespace skiff::config
