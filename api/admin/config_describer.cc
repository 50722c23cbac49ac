#include "api/admin/config_describer.h"

#include <algorithm>

#include "config/config_def.h"
#include "log/log_config.h"
#include "log/topic_config_def.h"

namespace skiff::api::admin {
namespace {

bool wanted(const std::optional<std::vector<std::string>>& keys, const std::string& name) {
  return !keys || keys->empty() || std::find(keys->begin(), keys->end(), name) != keys->end();
}

// Where the broker-level value of `broker_key` came from.
ConfigSource broker_source(const config::BrokerConfig& c, const std::string& broker_key) {
  auto it = c.effective.find(broker_key);
  if (it == c.effective.end() || it->second.source == config::ConfigSource::kDefault) return ConfigSource::kDefaultConfig;
  return ConfigSource::kStaticBrokerConfig;
}

ConfigType to_type(storage::TopicConfigType t) {
  switch (t) {
    case storage::TopicConfigType::kBoolean: return ConfigType::kBoolean;
    case storage::TopicConfigType::kString: return ConfigType::kString;
    case storage::TopicConfigType::kInt: return ConfigType::kInt;
    case storage::TopicConfigType::kLong: return ConfigType::kLong;
    case storage::TopicConfigType::kDouble: return ConfigType::kDouble;
    case storage::TopicConfigType::kList: return ConfigType::kList;
  }
  return ConfigType::kUnknown;
}

// The default of a topic key's broker synonym: Skiff's, when Skiff has that
// broker key, else Kafka's default for the topic key.
std::optional<std::string> broker_default(const std::string& synonym, const storage::TopicConfigDef& k) {
  for (const auto& def : config::config_defs())
    if (def.name == synonym) return def.default_value;
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
    const ConfigSource bsrc = k.acted_on && !synonym.empty() ? broker_source(services.config, synonym)
                                                             : ConfigSource::kDefaultConfig;
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
      if (bsrc == ConfigSource::kStaticBrokerConfig)
        e.synonyms.push_back({synonym, broker_value, ConfigSource::kStaticBrokerConfig});
      if (!k.broker_synonym_unset)
        e.synonyms.push_back({synonym, broker_default(synonym, k), ConfigSource::kDefaultConfig});
    }
    out.push_back(std::move(e));
  }
  return out;
}

ConfigType to_type(config::ConfigType t) {
  switch (t) {
    case config::ConfigType::kInt: return ConfigType::kInt;
    case config::ConfigType::kLong: return ConfigType::kLong;
    case config::ConfigType::kBool: return ConfigType::kBoolean;
    case config::ConfigType::kString: return ConfigType::kString;
    case config::ConfigType::kList: return ConfigType::kList;
  }
  return ConfigType::kUnknown;
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
  auto c = storage::LogConfig::with_overrides(services.logs.defaults(), overrides);
  const auto* cfg = std::get_if<storage::LogConfig>(&c);
  return topic_entries(services, cfg ? *cfg : services.logs.defaults(), overrides, std::nullopt);
}

std::vector<ConfigEntry> describe_broker(BrokerServices& services, const std::optional<std::vector<std::string>>& keys) {
  std::vector<ConfigEntry> out;
  for (const auto& def : config::config_defs()) {
    if (!wanted(keys, def.name)) continue;
    ConfigEntry e;
    e.name = def.name;
    e.read_only = true;
    e.type = to_type(def.type);
    e.documentation = def.doc;
    auto it = services.config.effective.find(def.name);
    e.value = it != services.config.effective.end() ? it->second.value : def.default_value;
    e.source = broker_source(services.config, def.name);
    if (e.source == ConfigSource::kStaticBrokerConfig) e.synonyms.push_back({def.name, e.value, e.source});
    e.synonyms.push_back({def.name, def.default_value, ConfigSource::kDefaultConfig});
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace skiff::api::admin
