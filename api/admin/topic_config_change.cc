#include "api/admin/topic_config_change.h"

#include <algorithm>
#include <set>

#include "api/admin/broker_config_change.h"
#include "api/admin/broker_loggers.h"
#include "api/admin/client_metrics_admin.h"
#include "api/admin/config_describer.h"
#include "api/admin/group_config_admin.h"
#include "api/api_log.h"
#include "api/topics.h"
#include "common/log_escape.h"
#include "log/topic_config_def.h"

namespace skiff::api::admin {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// APPEND/SUBTRACT on a list-typed key: the items added to or removed from
// its current value (the override, else Kafka's default).
ChangeResult apply_list_op(const ConfigChange& c, std::map<std::string, std::string>& next) {
  const auto* def = storage::find_topic_config(c.name);
  if (def->type != storage::TopicConfigType::kList)
    return change_error(ErrorCode::kInvalidConfig,
                        "Config value append/subtract is not supported for " + c.name + ": it is not a list");
  const std::string fallback(def->kafka_default.value_or(""));
  auto current = storage::topic_config_list(next.count(c.name) ? next[c.name] : fallback);
  for (const auto& item : storage::topic_config_list(c.value.value_or(""))) {
    auto it = std::find(current.begin(), current.end(), item);
    if (c.op == AlterOp::kAppend && it == current.end()) current.push_back(item);
    if (c.op == AlterOp::kSubtract && it != current.end()) current.erase(it);
  }
  next[c.name] = join(current);
  return {};
}

// One change applied to the topic's would-be overrides `next`.
ChangeResult apply_change(const ConfigChange& c, bool incremental, std::map<std::string, std::string>& next) {
  switch (c.op) {
    case AlterOp::kSet:
      if (!c.value) {
        if (incremental) return change_error(ErrorCode::kInvalidRequest, "Null value not supported for " + c.name);
        return {};  // AlterConfigs: a null value means "no override"
      }
      next[c.name] = *c.value;
      return {};
    case AlterOp::kDelete:
      next.erase(c.name);
      return {};
    case AlterOp::kAppend:
    case AlterOp::kSubtract:
      return apply_list_op(c, next);
    default:
      return change_error(ErrorCode::kInvalidRequest,
                          "Unknown config operation " + std::to_string(static_cast<int>(c.op)));
  }
}

// A TOPIC resource: every change checked and applied to a copy of its
// overrides (incremental: on top of the current ones), then stored at once.
ChangeResult alter_topic(BrokerServices& services, const std::string& name, const std::vector<ConfigChange>& changes,
                         bool incremental, bool validate_only) {
  auto topic = services.logs.topic(name);
  if (!topic) return change_error(ErrorCode::kUnknownTopicOrPartition, "The topic '" + name + "' does not exist.");
  std::map<std::string, std::string> next = incremental ? topic->overrides : std::map<std::string, std::string>{};
  std::set<std::string> seen;
  for (const auto& c : changes) {
    if (!seen.insert(c.name).second)
      return change_error(ErrorCode::kInvalidRequest, "Error due to duplicate config keys: " + c.name);
    if (!storage::find_topic_config(c.name))
      return change_error(ErrorCode::kInvalidConfig, "Unknown topic config name: " + c.name);
    if (auto r = apply_change(c, incremental, next); r.error != ErrorCode::kNone) return r;
  }
  if (auto r = check_topic_configs_in_context(services, next, topic->overrides); r.error != ErrorCode::kNone) return r;
  if (auto r = services.logs.alter_topic_config(name, next, validate_only); !r)
    return change_error(to_error_code(r.error().code), r.error().message);
  if (!validate_only) api_log().info("topic {}: config overrides now {} key(s)", escaped(name), next.size());
  return {};
}

}  // namespace

ChangeResult check_topic_configs_in_context(BrokerServices& services,
                                            const std::map<std::string, std::string>& overrides,
                                            const std::map<std::string, std::string>& existing) {
  const auto current = services.dynamic ? services.dynamic->current() : nullptr;
  const auto& tiered = (current ? *current : services.config).tiered_storage;
  storage::TopicConfigContext ctx;
  ctx.remote_storage_system_enabled = tiered.enabled;
  ctx.existing = existing;
  if (!ctx.remote_storage_system_enabled && !existing.count("remote.storage.enable")) return {};
  ctx.broker_defaults = services.logs.defaults().effective_values();
  ctx.broker_defaults["local.retention.ms"] = std::to_string(tiered.log_local_retention_ms);
  ctx.broker_defaults["local.retention.bytes"] = std::to_string(tiered.log_local_retention_bytes);
  ctx.broker_defaults["remote.copy.lag.ms"] = std::to_string(tiered.log_remote_copy_lag_ms);
  ctx.broker_defaults["remote.copy.lag.bytes"] = std::to_string(tiered.log_remote_copy_lag_bytes);
  if (auto r = storage::validate_topic_configs(overrides, ctx); !r)
    return change_error(ErrorCode::kInvalidConfig, r.error().message);
  return {};
}

ChangeResult alter_resource(BrokerServices& services, int8_t resource_type, const std::string& resource_name,
                            const std::vector<ConfigChange>& changes, bool incremental, bool validate_only) {
  if (resource_type == kResourceBroker)
    return alter_broker(services, resource_name, changes, incremental, validate_only);
  if (resource_type == kResourceBrokerLogger) {
    const std::string node = std::to_string(services.broker.node_id);
    if (resource_name != node)
      return change_error(ErrorCode::kInvalidRequest,
                          "Unexpected broker id, expected " + node + ", but received " + resource_name);
    return alter_loggers(services, changes, incremental, validate_only);
  }
  if (resource_type == kResourceGroup)
    return alter_group_configs(services, resource_name, changes, incremental, validate_only);
  if (resource_type == kResourceClientMetrics)
    return alter_client_metrics(services, resource_name, changes, incremental, validate_only);
  if (resource_type != kResourceTopic)
    return change_error(ErrorCode::kInvalidRequest, "Unsupported resource type " + std::to_string(resource_type));
  return alter_topic(services, resource_name, changes, incremental, validate_only);
}

}  // namespace skiff::api::admin
