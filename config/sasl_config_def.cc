// The SASL keys of the one configuration table (config_def.h), Kafka's
// names: sasl.enabled.mechanisms and connections.max.reauth.ms (broker-wide
// or per listener), sasl.mechanism.inter.broker.protocol (accepted), and the
// per-listener-only <mechanism>.sasl.jaas.config (with OAUTHBEARER's
// validator options read from it). Values are checked for
// form here; which mechanisms a SASL listener can serve is checked when the
// whole configuration is (config_loader.cc).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
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

using JwtMember = std::function<void(OAuthBearerJwtOptions&, const std::string&)>;

ConfigKeyDef jwt_key(const char* name, ConfigType type, std::string def, std::string doc, std::string allowed,
                     JwtMember set) {
  return ConfigKeyDef{name,
                      type,
                      std::move(def),
                      std::move(doc),
                      [set = std::move(set)](BrokerConfig& c, const std::string& v) { set(c.sasl.oauthbearer_jwt, v); },
                      std::move(allowed)};
}

bool parse_bool(const std::string& v) {
  auto s = to_lower(trim(v));
  if (s != "true" && s != "false") throw std::invalid_argument("expected true or false");
  return s == "true";
}

// The JWKS keys of Kafka's OAuthBearerValidatorCallbackHandler (its
// VerificationKeyResolverFactory), Kafka's defaults.
void add_oauthbearer_jwks_keys(std::vector<ConfigKeyDef>& d) {
  constexpr auto kString = ConfigType::kString;
  constexpr auto kLong = ConfigType::kLong;
  d.push_back(jwt_key("sasl.oauthbearer.jwks.endpoint.url", kString, "",
                      "Where OAUTHBEARER's JWT validator gets the JWKS that verifies token signatures: an https:// (or "
                      "http://) URL, fetched at startup and refreshed, or a file: URL, reread when it changes.",
                      "a URL", [](auto& o, const std::string& v) { o.jwks_endpoint_url = std::string(trim(v)); }));
  auto long_key = [&](const char* name, const char* def, const char* doc, int64_t OAuthBearerJwtOptions::*member) {
    d.push_back(jwt_key(name, kLong, def, doc, "an integer", [member](auto& o, const std::string& v) {
      o.*member = parse_integer(v, std::numeric_limits<int64_t>::min(), kLongMax);
    }));
  };
  long_key("sasl.oauthbearer.jwks.endpoint.refresh.ms", "3600000",
           "How often the JWKS of an https:// sasl.oauthbearer.jwks.endpoint.url is fetched again.",
           &OAuthBearerJwtOptions::jwks_refresh_ms);
  long_key("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", "100",
           "First wait between attempts of a failed JWKS refresh; it doubles up to ...retry.backoff.max.ms.",
           &OAuthBearerJwtOptions::jwks_retry_backoff_ms);
  long_key("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", "10000",
           "How long a failed JWKS refresh is retried (the keys fetched before are kept).",
           &OAuthBearerJwtOptions::jwks_retry_backoff_max_ms);
}

// The claims keys of BrokerJwtValidator.
void add_oauthbearer_claims_keys(std::vector<ConfigKeyDef>& d) {
  constexpr auto kString = ConfigType::kString;
  d.push_back(jwt_key("sasl.oauthbearer.expected.audience", ConfigType::kList, "",
                      "Audiences a token's \"aud\" claim must name one of; required with a JWKS URL unless "
                      "sasl.oauthbearer.allow.unverified.audience=true.",
                      "a list", [](auto& o, const std::string& v) { o.expected_audience = split_list(v); }));
  d.push_back(jwt_key("sasl.oauthbearer.expected.issuer", kString, "",
                      "The issuer a token's \"iss\" claim must equal; required with a JWKS URL unless "
                      "sasl.oauthbearer.allow.unverified.issuer=true.",
                      "a string", [](auto& o, const std::string& v) { o.expected_issuer = std::string(trim(v)); }));
  d.push_back(jwt_key("sasl.oauthbearer.allow.unverified.audience", ConfigType::kBool, "false",
                      "Accept tokens whatever their \"aud\" claim when no expected audience is set (insecure).",
                      "true or false",
                      [](auto& o, const std::string& v) { o.allow_unverified_audience = parse_bool(v); }));
  d.push_back(jwt_key("sasl.oauthbearer.allow.unverified.issuer", ConfigType::kBool, "false",
                      "Accept tokens whatever their \"iss\" claim when no expected issuer is set (insecure).",
                      "true or false",
                      [](auto& o, const std::string& v) { o.allow_unverified_issuer = parse_bool(v); }));
  d.push_back(jwt_key("sasl.oauthbearer.sub.claim.name", kString, "sub",
                      "The claim whose value is the principal of a validated token.", "a string",
                      [](auto& o, const std::string& v) { o.sub_claim = std::string(trim(v)); }));
  d.push_back(jwt_key("sasl.oauthbearer.scope.claim.name", kString, "scope",
                      "The claim holding a validated token's scope (a string or a list of strings).", "a string",
                      [](auto& o, const std::string& v) { o.scope_claim = std::string(trim(v)); }));
  d.push_back(jwt_key("sasl.oauthbearer.clock.skew.seconds", ConfigType::kInt, "30",
                      "Seconds of difference allowed between the identity provider's clock and the broker's when "
                      "checking exp and nbf.",
                      "an integer", [](auto& o, const std::string& v) {
                        o.clock_skew_s =
                            static_cast<int32_t>(parse_integer(v, std::numeric_limits<int32_t>::min(), kIntMax));
                      }));
  d.push_back(jwt_key("sasl.oauthbearer.jwt.validator.class", ConfigType::kString,
                      "org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator",
                      "The JWT validator of OAuthBearerValidatorCallbackHandler: Kafka's DefaultJwtValidator or "
                      "BrokerJwtValidator (Skiff implements these two).",
                      "a class name",
                      [](auto& o, const std::string& v) { o.jwt_validator_class = std::string(trim(v)); }));
  d.push_back(ConfigKeyDef{
      "skiff.sasl.oauthbearer.allowed.urls", ConfigType::kList, "",
      "The JWKS URLs sasl.oauthbearer.jwks.endpoint.url may name, exactly as written (Kafka's JVM system property "
      "org.apache.kafka.sasl.oauthbearer.allowed.urls, which Skiff also reads from KAFKA_OPTS' -D form); empty: none.",
      [](BrokerConfig& c, const std::string& v) { c.oauthbearer_allowed_urls = split_list(v); }, "a list of URLs"});
}

// Kafka's OAuthBearerValidatorCallbackHandler keys, and the allowed URLs.
void add_oauthbearer_jwt_keys(std::vector<ConfigKeyDef>& d) {
  add_oauthbearer_jwks_keys(d);
  add_oauthbearer_claims_keys(d);
}

}  // namespace

void add_sasl_keys(std::vector<ConfigKeyDef>& d) {
  add_oauthbearer_jwt_keys(d);
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
    d.push_back(ConfigKeyDef{
        "oauthbearer.sasl.server.callback.handler.class", ConfigType::kString, "",
        "OAUTHBEARER's token validator on this listener: Kafka's "
        "OAuthBearerValidatorCallbackHandler (signed JWTs checked against a JWKS) or its "
        "unsecured validator (the default).",
        [](BrokerConfig& c, const std::string& v) { c.sasl.oauthbearer_callback_handler = std::string(trim(v)); },
        "a class name"});
    // The mechanism-prefixed forms, kept aside: they win over the others.
    std::vector<ConfigKeyDef> jwt;
    add_oauthbearer_jwt_keys(jwt);
    for (const auto& def : jwt) {
      if (!def.name.starts_with("sasl.oauthbearer.")) continue;
      d.push_back(ConfigKeyDef{"oauthbearer." + def.name, def.type, "", def.doc,
                               [apply = def.apply, name = def.name](BrokerConfig& c, const std::string& v) {
                                 BrokerConfig scratch;
                                 apply(scratch, v);  // checks the value's form
                                 c.sasl.oauthbearer_prefixed[name] = v;
                               },
                               def.allowed});
    }
    return d;
  }();
  return defs;
}

}  // namespace skiff::config
