#include "config/dynamic_broker_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "config/config_def.h"

namespace skiff::config {
namespace {

constexpr std::string_view kDynamicListenerPrefix = "listener.name.";

// "listener.name.<l>.<key>" -> "<key>"; empty for any other key.
std::string_view dynamic_listener_base(std::string_view key) {
  if (key.substr(0, kDynamicListenerPrefix.size()) != kDynamicListenerPrefix) return {};
  const auto dot = key.find('.', kDynamicListenerPrefix.size());
  return dot == std::string_view::npos ? std::string_view() : key.substr(dot + 1);
}

// A refusal naming the keys, as Kafka's DynamicBrokerConfig.checkInvalidProps.
std::optional<DynamicError> refuse_keys(const std::string& what, const std::vector<std::string>& keys) {
  if (keys.empty()) return std::nullopt;
  return DynamicError{DynamicError::kInvalidRequest, fmt::format("{}: [{}]", what, fmt::join(keys, ", "))};
}

std::optional<DynamicError> apply_layer(BrokerConfig& cfg, const std::map<std::string, std::string>& layer,
                                        ConfigSource source) {
  for (const auto& [key, value] : layer) {
    const auto* def = dynamic_key_def(key);
    if (!def && !custom_dynamic_key(key))
      return DynamicError{DynamicError::kInvalidRequest, "Cannot update these configs dynamically: [" + key + "]"};
    if (!def) {  // a key Kafka does not define: stored as given, as Kafka does
      cfg.effective[key] = {value, source};
      continue;
    }
    try {
      if (def->no_effect || !dynamic_listener_base(key).empty()) {
        BrokerConfig scratch;  // validated, stored and described, not applied
        def->apply(scratch, value);
      } else {
        def->apply(cfg, value);
      }
    } catch (const std::invalid_argument& e) {
      const auto named = dynamic_listener_base(key).empty() ? std::string_view(key) : dynamic_listener_base(key);
      return DynamicError{DynamicError::kInvalidRequest,
                          fmt::format("Invalid value {} for configuration {}: {}", value, named, e.what())};
    }
    cfg.effective[key] = {value, source};
  }
  return std::nullopt;
}

// Kafka's precedence among the keys of one time setting, whatever layer set
// each: the finest unit set anywhere wins (log.retention.ms > .minutes >
// .hours; log.roll.ms > .hours). Re-applied coarse to fine after layering, so
// a dynamic log.retention.hours does not override a static log.retention.ms.
void apply_time_precedence(BrokerConfig& cfg) {
  static const std::vector<std::vector<std::string>> families = {
      {"log.retention.hours", "log.retention.minutes", "log.retention.ms"}, {"log.roll.hours", "log.roll.ms"}};
  for (const auto& family : families) {
    for (const auto& key : family) {
      auto it = cfg.effective.find(key);
      if (it == cfg.effective.end() || it->second.source == ConfigSource::kDefault) continue;
      if (const auto* def = find_config_def(key)) def->apply(cfg, it->second.value);  // validated when layered
    }
  }
}

}  // namespace

// The row a dynamic key is validated with: its own, or for
// listener.name.<l>.<key> the base key's (a dynamic key or one Skiff takes per
// listener, as Kafka validates the base key's type). Null: not dynamic.
const ConfigKeyDef* dynamic_key_def(std::string_view key) {
  if (auto base = dynamic_listener_base(key); !base.empty()) {
    if (const auto* def = find_listener_config_def(key, nullptr)) return def;
    const auto* def = find_config_def(base);
    return def && def->dynamic ? def : nullptr;
  }
  const auto* def = find_config_def(key);
  return def && def->dynamic ? def : nullptr;
}

bool custom_dynamic_key(std::string_view key) {
  static constexpr std::string_view kKafkaNonDynamic[] = {
#include "config/kafka_non_dynamic_keys.inc"
  };
  if (find_config_def(key) || find_listener_config_def(key, nullptr)) return false;  // Skiff's own rule
  return std::find(std::begin(kKafkaNonDynamic), std::end(kKafkaNonDynamic), key) == std::end(kKafkaNonDynamic);
}

std::optional<DynamicError> check_dynamic_keys(const std::map<std::string, std::string>& values) {
  std::vector<std::string> refused, unprefixed;
  for (const auto& [key, value] : values) {
    if (!dynamic_key_def(key) && !custom_dynamic_key(key)) refused.push_back(key);
    if (listener_prefix_only(key)) unprefixed.push_back(key);
    if (value.find('\n') != std::string::npos)
      return DynamicError{DynamicError::kInvalidRequest,
                          fmt::format("Invalid value for configuration {}: it contains a line break", key)};
  }
  if (auto e = refuse_keys("Cannot update these configs dynamically", refused)) return e;
  return refuse_keys("These security configs can be dynamically updated only per-listener using the listener prefix",
                     unprefixed);
}

std::optional<DynamicError> check_scope(const std::map<std::string, std::string>& values, DynamicScope scope) {
  if (scope == DynamicScope::kBroker) return std::nullopt;
  std::vector<std::string> per_broker;
  for (const auto& [key, value] : values)
    if (per_broker_only(key)) per_broker.push_back(key);
  return refuse_keys("Cannot update these configs at default cluster level, broker id must be specified", per_broker);
}

DynamicBrokerConfig::DynamicBrokerConfig(BrokerConfig static_config)
    : static_(std::move(static_config)), current_(std::make_shared<const BrokerConfig>(static_)) {}

std::optional<DynamicError> DynamicBrokerConfig::build(const DynamicValues& v, BrokerConfig& out) const {
  out = static_;
  if (auto e = apply_layer(out, v.cluster, ConfigSource::kDynamicDefault)) return e;
  if (auto e = apply_layer(out, v.broker, ConfigSource::kDynamicBroker)) return e;
  apply_time_precedence(out);
  return std::nullopt;
}

std::vector<std::string> DynamicBrokerConfig::load(const DynamicValues& v) {
  std::vector<std::string> warnings;
  DynamicValues kept;
  BrokerConfig next;
  for (auto scope : {&DynamicValues::cluster, &DynamicValues::broker}) {
    for (const auto& [key, value] : v.*scope) {
      DynamicValues trial = kept;
      (trial.*scope)[key] = value;
      if (auto e = build(trial, next)) {
        warnings.push_back(fmt::format("dynamic broker config {}={} dropped: {}", key, value, e->message));
        continue;
      }
      kept = std::move(trial);
    }
  }
  build(kept, next);
  std::lock_guard lk(mu_);
  values_ = std::move(kept);
  current_ = std::make_shared<const BrokerConfig>(std::move(next));
  return warnings;
}

void DynamicBrokerConfig::set_persist(Persist p) {
  std::lock_guard lk(mu_);
  persist_ = std::move(p);
}

void DynamicBrokerConfig::add_listener(Listener l) {
  std::lock_guard lk(mu_);
  listeners_.push_back(std::move(l));
}

std::optional<DynamicError> DynamicBrokerConfig::alter(DynamicScope scope,
                                                       const std::map<std::string, std::string>& values,
                                                       bool validate_only) {
  if (auto e = check_dynamic_keys(values)) return e;
  std::lock_guard serial(alter_mu_);
  DynamicValues next_values = this->values();
  (scope == DynamicScope::kBroker ? next_values.broker : next_values.cluster) = values;
  BrokerConfig next;
  if (auto e = build(next_values, next)) return e;
  if (auto e = check_scope(values, scope)) return e;
  std::vector<Listener> listeners;
  Persist persist;
  {
    std::lock_guard lk(mu_);
    listeners = listeners_;
    persist = persist_;
  }
  for (const auto& l : listeners)
    if (auto why = l(next, false); !why.empty()) return DynamicError{DynamicError::kInvalidRequest, why};
  if (validate_only) return std::nullopt;
  if (persist)
    if (auto why = persist(next_values); !why.empty()) return DynamicError{DynamicError::kStorage, why};
  auto snapshot = std::make_shared<const BrokerConfig>(std::move(next));
  {
    std::lock_guard lk(mu_);
    values_ = std::move(next_values);
    current_ = snapshot;
  }
  for (const auto& l : listeners) l(*snapshot, true);
  return std::nullopt;
}

std::shared_ptr<const BrokerConfig> DynamicBrokerConfig::current() const {
  std::lock_guard lk(mu_);
  return current_;
}

DynamicValues DynamicBrokerConfig::values() const {
  std::lock_guard lk(mu_);
  return values_;
}

}  // namespace skiff::config
