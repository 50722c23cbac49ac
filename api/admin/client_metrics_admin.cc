#include "api/admin/client_metrics_admin.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "api/telemetry/client_metrics_manager.h"

namespace skiff::api::admin {
namespace {

struct Key {
  std::string_view name;
  ConfigType type;
  std::string_view default_value;
  std::string_view doc;
};

// ClientMetricsConfigs' ConfigDef.
constexpr Key kKeys[] = {
    {telemetry::kIntervalKey, ConfigType::kInt, "300000", "Metrics push interval in milliseconds"},
    {telemetry::kMatchKey, ConfigType::kList, "", "Client match criteria"},
    {telemetry::kMetricsKey, ConfigType::kList, "", "Telemetry metric name prefix list"},
};

}  // namespace

std::optional<std::vector<ConfigEntry>> describe_client_metrics(BrokerServices& services, const std::string& name,
                                                                const std::optional<std::vector<std::string>>& keys,
                                                                std::string& message) {
  if (name.empty()) {
    message = "Client metrics subscription name must not be empty";
    return std::nullopt;
  }
  telemetry::ConfigMap stored;
  if (services.client_metrics)
    stored = services.client_metrics->subscriptions().configs(name).value_or(telemetry::ConfigMap{});
  std::vector<ConfigEntry> out;
  for (const auto& key : kKeys) {
    const std::string key_name(key.name);
    if (keys && !keys->empty() && std::find(keys->begin(), keys->end(), key_name) == keys->end()) continue;
    ConfigEntry e;
    e.name = key_name;
    e.type = key.type;
    e.documentation = std::string(key.doc);
    if (auto it = stored.find(key_name); it != stored.end()) {
      e.value = it->second;
      e.source = ConfigSource::kClientMetricsConfig;
      e.synonyms.push_back({key_name, it->second, ConfigSource::kClientMetricsConfig});
    } else {
      e.value = std::string(key.default_value);
      e.source = ConfigSource::kDefaultConfig;
    }
    out.push_back(std::move(e));
  }
  return out;
}

ChangeResult alter_client_metrics(BrokerServices& services, const std::string& name,
                                  const std::vector<ConfigChange>& changes, bool incremental, bool validate_only) {
  if (!services.client_metrics) return {ErrorCode::kInvalidRequest, "Unsupported resource type 16"};
  auto& store = services.client_metrics->subscriptions();
  auto next = incremental ? store.configs(name).value_or(telemetry::ConfigMap{}) : telemetry::ConfigMap{};
  std::set<std::string> seen;
  for (const auto& c : changes) {
    if (!seen.insert(c.name).second)
      return {ErrorCode::kInvalidRequest, "Error due to duplicate config keys: " + c.name};
    switch (c.op) {
      case AlterOp::kSet:
        if (!c.value) return {ErrorCode::kInvalidRequest, "Null value not supported for : " + c.name};
        next[c.name] = *c.value;
        break;
      case AlterOp::kDelete:
        next.erase(c.name);
        break;
      case AlterOp::kAppend:
      case AlterOp::kSubtract:
        return {ErrorCode::kInvalidConfig, std::string("Can't ") + (c.op == AlterOp::kAppend ? "APPEND" : "SUBTRACT") +
                                               " to key " + c.name + " because its type is not LIST."};
      default:
        return {ErrorCode::kInvalidRequest, "Unknown config operation " + std::to_string(static_cast<int>(c.op))};
    }
  }
  if (auto refused = telemetry::validate(name, next)) return {refused->error, refused->message};
  if (validate_only) return {};
  if (int err = store.put(name, next))
    return {ErrorCode::kUnknownServerError, std::string("cannot store the subscription: ") + std::strerror(err)};
  return {};
}

}  // namespace skiff::api::admin
