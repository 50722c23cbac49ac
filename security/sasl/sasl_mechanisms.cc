#include "security/sasl/sasl_mechanisms.h"

#include <algorithm>

#include "common/wall_clock.h"

namespace skiff::sasl {

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
  if (mechanism == "OAUTHBEARER") return make_oauthbearer_server(it->second.oauthbearer, wall_clock_ms);
  return nullptr;
}

int64_t SaslMechanisms::max_reauth_ms(const std::string& listener) const {
  auto it = listeners_.find(listener);
  return it == listeners_.end() ? 0 : it->second.max_reauth_ms;
}

}  // namespace skiff::sasl
