#include "security/sasl/sasl_mechanisms.h"

#include <algorithm>

#include "common/wall_clock.h"
#include "security/oauth/jwks_source.h"

namespace skiff::sasl {
namespace {

// The JWT validator's verdict in the form the OAUTHBEARER exchange reads
// (Kafka's validator callback answers every failure with invalid_token).
TokenCheck jwt_check(std::shared_ptr<const oauth::JwtValidator> jwt) {
  return [jwt = std::move(jwt)](std::string_view token, int64_t now_ms) {
    auto t = jwt->validate(token, now_ms);
    JwsCheck c;
    c.ok = t.ok;
    c.principal = std::move(t.principal);
    c.expires_at_ms = t.expires_at_ms;
    c.reason = std::move(t.reason);
    return c;
  };
}

}  // namespace

SaslMechanisms::SaslMechanisms(const config::BrokerConfig& config, ScramFactory scram) : scram_(std::move(scram)) {
  for (const auto& l : config.listeners) {
    if (!config.uses_sasl(l.name)) continue;
    const auto& s = config.sasl_for(l.name);
    Listener& out = listeners_[l.name];
    out.max_reauth_ms = s.connections_max_reauth_ms;
    for (const auto& m : s.enabled_mechanisms) {
      if (m.starts_with("SCRAM-") && !scram_) continue;
      out.mechanisms.push_back(m);
    }
    if (auto jaas = s.jaas_config.find("PLAIN"); jaas != s.jaas_config.end())
      out.plain_users = std::make_shared<const PlainUsers>(plain_users_from_jaas(jaas->second));
    out.oauthbearer = std::make_shared<const config::OAuthBearerOptions>(s.oauthbearer);
    const bool offers_oauth = std::count(out.mechanisms.begin(), out.mechanisms.end(), "OAUTHBEARER") > 0;
    if (offers_oauth && s.oauthbearer_callback_handler == config::kOAuthBearerValidatorCallbackHandler)
      out.jwt = std::make_shared<const oauth::JwtValidator>(s.oauthbearer_jwt,
                                                            oauth::open_verification_keys(s.oauthbearer_jwt));
  }
}

const std::vector<std::string>& SaslMechanisms::enabled(const std::string& listener) const {
  static const std::vector<std::string> none;
  auto it = listeners_.find(listener);
  return it == listeners_.end() ? none : it->second.mechanisms;
}

std::unique_ptr<SaslServer> SaslMechanisms::start(const std::string& listener, const std::string& mechanism) const {
  auto it = listeners_.find(listener);
  if (it == listeners_.end()) return nullptr;
  const auto& mechs = it->second.mechanisms;
  if (std::find(mechs.begin(), mechs.end(), mechanism) == mechs.end()) return nullptr;
  if (mechanism == "PLAIN" && it->second.plain_users) return make_plain_server(it->second.plain_users);
  if (mechanism.starts_with("SCRAM-") && scram_) return scram_(mechanism);
  if (mechanism == "OAUTHBEARER" && it->second.jwt)
    return make_oauthbearer_server(jwt_check(it->second.jwt), wall_clock_ms);
  if (mechanism == "OAUTHBEARER") return make_oauthbearer_server(it->second.oauthbearer, wall_clock_ms);
  return nullptr;
}

int64_t SaslMechanisms::max_reauth_ms(const std::string& listener) const {
  auto it = listeners_.find(listener);
  return it == listeners_.end() ? 0 : it->second.max_reauth_ms;
}

}  // namespace skiff::sasl
