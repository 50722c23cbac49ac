// Kafka's per-listener keys, "listener.name.<name>.<key>": the ssl.* keys,
// sasl.enabled.mechanisms, connections.max.reauth.ms, the sasl.oauthbearer.*
// keys and the keys that exist only per listener (<mechanism>.sasl.jaas.config,
// oauthbearer.sasl.server.callback.handler.class, oauthbearer.sasl.oauthbearer.*). One list of them serves
// the lookup of a written key and of its SKIFF_LISTENER_NAME_* variable.
#include <algorithm>

#include "config/config_def.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

bool per_listener(std::string_view key) {
  return key.starts_with("ssl.") || key.starts_with("sasl.oauthbearer.") || key == "sasl.enabled.mechanisms" ||
         key == "connections.max.reauth.ms";
}

}  // namespace

const std::vector<const ConfigKeyDef*>& listener_config_defs() {
  static const std::vector<const ConfigKeyDef*> defs = [] {
    std::vector<const ConfigKeyDef*> d;
    for (const auto& def : config_defs())
      if (per_listener(def.name)) d.push_back(&def);
    for (const auto& def : listener_only_config_defs()) d.push_back(&def);
    return d;
  }();
  return defs;
}

const ConfigKeyDef* find_listener_config_def(std::string_view name, std::string* listener) {
  constexpr std::string_view kPrefix = "listener.name.";
  if (!name.starts_with(kPrefix)) return nullptr;
  auto rest = name.substr(kPrefix.size());
  auto dot = rest.find('.');
  if (dot == std::string_view::npos || dot == 0) return nullptr;
  auto key = to_lower(rest.substr(dot + 1));
  const auto& defs = listener_config_defs();
  auto it = std::find_if(defs.begin(), defs.end(), [&](const ConfigKeyDef* d) { return d->name == key; });
  if (it == defs.end()) return nullptr;
  if (listener) *listener = std::string(rest.substr(0, dot));
  return *it;
}

}  // namespace skiff::config
