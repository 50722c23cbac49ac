#include "config/dynamic_broker_config.h"

#include <fmt/format.h>

#include <stdexcept>

#include "config/config_def.h"

namespace skiff::config {
namespace {

std::optional<DynamicError> apply_layer(BrokerConfig& cfg, const std::map<std::string, std::string>& layer,
                                        ConfigSource source) {
  for (const auto& [key, value] : layer) {
    const auto* def = find_config_def(key);
    if (!def || !def->dynamic)
      return DynamicError{DynamicError::kInvalidRequest, "Cannot update these configs dynamically: [" + key + "]"};
    try {
      def->apply(cfg, value);
    } catch (const std::invalid_argument& e) {
      return DynamicError{DynamicError::kInvalidRequest,
                          fmt::format("Invalid value {} for configuration {}: {}", value, key, e.what())};
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

std::optional<DynamicError> check_dynamic_keys(const std::map<std::string, std::string>& values) {
  std::string refused;
  for (const auto& [key, value] : values) {
    const auto* def = find_config_def(key);
    if (!def || !def->dynamic) refused += (refused.empty() ? "" : ", ") + key;
    if (value.find('\n') != std::string::npos)
      return DynamicError{DynamicError::kInvalidRequest,
                          fmt::format("Invalid value for configuration {}: it contains a line break", key)};
  }
  if (refused.empty()) return std::nullopt;
  return DynamicError{DynamicError::kInvalidRequest, "Cannot update these configs dynamically: [" + refused + "]"};
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
