#include "api/admin/config_describer.h"

#include <algorithm>
#include <map>

#include "config/config_def.h"
#include "log/log_config.h"
#include "log/topic_config_def.h"

namespace skiff::api::admin {
namespace {

bool wanted(const std::optional<std::vector<std::string>>& keys, const std::string& name) {
  return !keys || keys->empty() || std::find(keys->begin(), keys->end(), name) != keys->end();
}

// The broker key's value at every level that sets it, most specific first, as
// Kafka lists synonyms: per-broker dynamic, cluster-default dynamic, static
// (file, environment, command line), default (only when Skiff has the key).
std::vector<ConfigSynonym> broker_synonyms(BrokerServices& services, const std::string& key, bool per_broker = true) {
  std::vector<ConfigSynonym> out;
  if (services.dynamic) {
    auto v = services.dynamic->values();
    if (auto it = v.broker.find(key); per_broker && it != v.broker.end())
      out.push_back({key, it->second, ConfigSource::kDynamicBrokerConfig});
    if (auto it = v.cluster.find(key); it != v.cluster.end())
      out.push_back({key, it->second, ConfigSource::kDynamicDefaultBrokerConfig});
  }
  const auto& st = services.dynamic ? services.dynamic->static_config() : services.config;
  if (auto it = st.effective.find(key); it != st.effective.end() && it->second.source != config::ConfigSource::kDefault)
    out.push_back({key, it->second.value, ConfigSource::kStaticBrokerConfig});
  if (const auto* def = config::find_config_def(key))
    out.push_back({key, def->default_value, ConfigSource::kDefaultConfig});
  return out;
}

// Where the broker-level value of `broker_key` came from.
ConfigSource broker_source(BrokerServices& services, const std::string& broker_key) {
  auto chain = broker_synonyms(services, broker_key);
  return chain.empty() ? ConfigSource::kDefaultConfig : chain.front().source;
}

ConfigType to_type(storage::TopicConfigType t) {
  switch (t) {
    case storage::TopicConfigType::kBoolean:
      return ConfigType::kBoolean;
    case storage::TopicConfigType::kString:
      return ConfigType::kString;
    case storage::TopicConfigType::kInt:
      return ConfigType::kInt;
    case storage::TopicConfigType::kLong:
      return ConfigType::kLong;
    case storage::TopicConfigType::kDouble:
      return ConfigType::kDouble;
    case storage::TopicConfigType::kList:
      return ConfigType::kList;
  }
  return ConfigType::kUnknown;
}

// The default of a topic key's broker synonym: Skiff's, when Skiff has that
// broker key, else Kafka's default for the topic key.
std::optional<std::string> broker_default(const std::string& synonym, const storage::TopicConfigDef& k) {
  for (const auto& def : config::config_defs())
    if (def.name == synonym && !def.no_effect) return def.default_value;
  if (k.kafka_default) return std::string(*k.kafka_default);
  return std::nullopt;
}

std::string topic_doc(const storage::TopicConfigDef& k) {
  std::string doc(k.doc);
  if (!k.acted_on) doc += " Skiff accepts, stores and describes it; it has no effect.";
  return doc;
}

// One entry per key of storage's topic config table: the override if set,
// else the broker-level value (Skiff's broker key when it has one, Kafka's
// default otherwise), with the broker synonym Kafka names.
std::vector<ConfigEntry> topic_entries(BrokerServices& services, const storage::LogConfig& cfg,
                                       const std::map<std::string, std::string>& overrides,
                                       const std::optional<std::vector<std::string>>& keys) {
  const auto in_effect = cfg.effective_values();
  const auto defaults = services.logs.defaults().effective_values();
  std::vector<ConfigEntry> out;
  for (const auto& k : storage::topic_config_defs()) {
    const std::string name(k.name);
    const std::string synonym(k.broker_synonym);
    auto override_it = overrides.find(name);
    if (!wanted(keys, name) || (k.internal && override_it == overrides.end())) continue;
    ConfigEntry e;
    e.name = name;
    e.type = to_type(k.type);
    e.documentation = topic_doc(k);
    auto d = defaults.find(name);
    std::optional<std::string> broker_value = d != defaults.end() ? std::optional(d->second) : std::nullopt;
    // A broker key Skiff stores without effect (config/kafka_dynamic_keys.cc) is not where the value comes from.
    const auto* broker_def = synonym.empty() ? nullptr : config::find_config_def(synonym);
    const bool live_synonym = k.acted_on && !synonym.empty() && !(broker_def && broker_def->no_effect);
    const ConfigSource bsrc = live_synonym ? broker_source(services, synonym) : ConfigSource::kDefaultConfig;
    if (override_it != overrides.end()) {
      e.source = ConfigSource::kTopicConfig;
      e.value = override_it->second;
      e.synonyms.push_back({name, override_it->second, ConfigSource::kTopicConfig});
    } else {
      e.source = bsrc;
      auto v = in_effect.find(name);
      e.value = v != in_effect.end() ? std::optional(v->second) : broker_value;
    }
    if (!synonym.empty() && broker_value) {
      if (bsrc != ConfigSource::kDefaultConfig)
        for (const auto& s : broker_synonyms(services, synonym))
          if (s.source != ConfigSource::kDefaultConfig) e.synonyms.push_back(s);
      if (!k.broker_synonym_unset)
        e.synonyms.push_back({synonym, broker_default(synonym, k), ConfigSource::kDefaultConfig});
    }
    out.push_back(std::move(e));
  }
  return out;
}

ConfigType to_type(config::ConfigType t) {
  switch (t) {
    case config::ConfigType::kInt:
      return ConfigType::kInt;
    case config::ConfigType::kLong:
      return ConfigType::kLong;
    case config::ConfigType::kBool:
      return ConfigType::kBoolean;
    case config::ConfigType::kString:
      return ConfigType::kString;
    case config::ConfigType::kList:
      return ConfigType::kList;
    case config::ConfigType::kDouble:
      return ConfigType::kDouble;
    case config::ConfigType::kPassword:
      return ConfigType::kPassword;
  }
  return ConfigType::kUnknown;
}

// Kafka's families of broker keys for one setting
// (DynamicBrokerConfig.brokerConfigSynonyms): describing any member lists the
// whole family. Of these only the .hours keys have a default in Kafka.
const std::vector<std::string>* synonym_family(const std::string& key) {
  static const std::vector<std::vector<std::string>> families = {
      {"log.retention.ms", "log.retention.minutes", "log.retention.hours"}, {"log.roll.ms", "log.roll.hours"}};
  for (const auto& f : families)
    if (std::find(f.begin(), f.end(), key) != f.end()) return &f;
  return nullptr;
}

// A family member's synonyms as Kafka's ConfigHelper lists them: level by
// level (per-broker dynamic, cluster default, static, default), each level in
// family order, then everything before the first entry of `key` dropped.
std::vector<ConfigSynonym> family_synonyms(BrokerServices& services, const std::string& key,
                                           const std::vector<std::string>& family, bool per_broker) {
  std::vector<ConfigSynonym> all;
  for (const auto& name : family)  // each member's chain, then regrouped by level
    for (auto& s : broker_synonyms(services, name, per_broker))
      if (s.source != ConfigSource::kDefaultConfig || name.ends_with(".hours")) all.push_back(std::move(s));
  std::stable_sort(all.begin(), all.end(),
                   [](const ConfigSynonym& a, const ConfigSynonym& b) { return a.source < b.source; });
  auto first = std::find_if(all.begin(), all.end(), [&](const ConfigSynonym& s) { return s.name == key; });
  return {first, all.end()};
}

}  // namespace

std::optional<std::vector<ConfigEntry>> describe_topic(BrokerServices& services, const std::string& topic,
                                                       const std::optional<std::vector<std::string>>& keys) {
  auto info = services.logs.topic(topic);
  auto cfg = services.logs.topic_config(topic);
  if (!info || !cfg) return std::nullopt;
  return topic_entries(services, *cfg, info->overrides, keys);
}

std::vector<ConfigEntry> describe_new_topic(BrokerServices& services,
                                            const std::map<std::string, std::string>& overrides) {
  auto c = services.logs.new_topic_config(overrides);
  return topic_entries(services, c ? *c : services.logs.defaults(), overrides, std::nullopt);
}

namespace {

// The dynamic values config_defs() has no row for: listener.name.<l>.<key>
// (stored, not applied), with the synonyms Kafka lists (the key itself, then
// its base key's levels), and keys Kafka does not define, which Kafka
// describes as sensitive (their type unknown).
void add_listener_entries(BrokerServices& services, const std::optional<std::vector<std::string>>& keys,
                          bool per_broker, std::vector<ConfigEntry>& out) {
  if (!services.dynamic) return;
  const auto v = services.dynamic->values();
  std::map<std::string, std::string> names = v.cluster;
  if (per_broker) names.insert(v.broker.begin(), v.broker.end());
  for (const auto& [name, value] : names) {
    if (config::find_config_def(name) || !wanted(keys, name)) continue;
    const std::string prefix = "listener.name.";
    const auto dot = name.find('.', prefix.size());
    const bool per_listener = name.rfind(prefix, 0) == 0 && dot != std::string::npos;
    const std::string base = per_listener ? name.substr(dot + 1) : std::string();
    const auto* def = per_listener ? config::find_config_def(base) : nullptr;
    ConfigEntry e;
    e.name = name;
    e.read_only = false;
    e.type = def ? to_type(def->type) : ConfigType::kPassword;
    e.documentation = def ? def->doc : std::string();
    if (auto it = v.broker.find(name); per_broker && it != v.broker.end())
      e.synonyms.push_back({name, it->second, ConfigSource::kDynamicBrokerConfig});
    if (auto it = v.cluster.find(name); it != v.cluster.end())
      e.synonyms.push_back({name, it->second, ConfigSource::kDynamicDefaultBrokerConfig});
    if (!per_broker)
      e.synonyms.resize(1);
    else if (def)
      for (auto& s : broker_synonyms(services, base)) e.synonyms.push_back(std::move(s));
    e.value = e.synonyms.front().value;
    e.source = e.synonyms.front().source;
    if (!def || def->type == config::ConfigType::kPassword) {
      e.sensitive = true;
      e.value.reset();
      for (auto& s : e.synonyms) s.value.reset();
    }
    out.push_back(std::move(e));
  }
}

}  // namespace

std::vector<ConfigEntry> describe_broker(BrokerServices& services, const std::optional<std::vector<std::string>>& keys,
                                         bool per_broker) {
  std::vector<ConfigEntry> out;
  const auto cluster = services.dynamic ? services.dynamic->values().cluster : std::map<std::string, std::string>{};
  for (const auto& def : config::config_defs()) {
    if (!wanted(keys, def.name)) continue;
    // The cluster default resource ("") lists only what is set there, as Kafka.
    if (!per_broker && !cluster.count(def.name)) continue;
    ConfigEntry e;
    e.name = def.name;
    e.read_only = !def.dynamic;
    e.type = to_type(def.type);
    e.documentation = def.doc;
    const auto* family = synonym_family(def.name);
    e.synonyms = family ? family_synonyms(services, def.name, *family, per_broker)
                        : broker_synonyms(services, def.name, per_broker);
    if (!per_broker) e.synonyms.resize(1);            // Kafka: the DYNAMIC_DEFAULT_BROKER_CONFIG value alone
    if (def.type == config::ConfigType::kPassword) {  // passwords and keys: never sent, as Kafka
      e.sensitive = true;
      for (auto& s : e.synonyms) s.value.reset();
    }
    if (!e.synonyms.empty()) {
      e.value = e.synonyms.front().value;
      e.source = e.synonyms.front().source;
    } else {  // a family member set nowhere (log.retention.ms): the value in effect
      const auto cfg = services.dynamic ? services.dynamic->current() : nullptr;
      const auto& c = cfg ? *cfg : services.config;
      if (def.name == "log.retention.ms")
        e.value = std::to_string(c.log_retention_ms);
      else if (def.name == "log.roll.ms")
        e.value = std::to_string(c.log_roll_ms);
      else
        e.value = def.default_value;
      e.source = ConfigSource::kDefaultConfig;
    }
    out.push_back(std::move(e));
  }
  add_listener_entries(services, keys, per_broker, out);
  return out;
}

}  // namespace skiff::api::admin
