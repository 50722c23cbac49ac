#include "api/admin/broker_config_change.h"

#include <algorithm>
#include <set>

#include "api/api_log.h"
#include "config/config_def.h"
#include "config/string_util.h"

namespace skiff::api::admin {
namespace {

ErrorCode to_error(const config::DynamicError& e) {
  switch (e.kind) {
    case config::DynamicError::kInvalidConfig:
      return ErrorCode::kInvalidConfig;
    case config::DynamicError::kInvalidRequest:
      return ErrorCode::kInvalidRequest;
    case config::DynamicError::kStorage:
      return ErrorCode::kKafkaStorageError;
  }
  return ErrorCode::kUnknownServerError;
}

// APPEND / SUBTRACT on a list key, over its value in effect.
std::optional<ChangeResult> edit_list(const config::BrokerConfig& current, std::map<std::string, std::string>& next,
                                      const ConfigChange& c) {
  const auto* def = config::dynamic_key_def(c.name);  // checked dynamic before
  if (!def || def->type != config::ConfigType::kList)
    return change_error(ErrorCode::kInvalidRequest, std::string("Config value ") +
                                                        (c.op == AlterOp::kAppend ? "append" : "subtract") +
                                                        " is not allowed for config key: " + c.name);
  std::string base;
  if (next.count(c.name))
    base = next[c.name];
  else if (auto it = current.effective.find(c.name); it != current.effective.end())
    base = it->second.value;
  auto items = config::split_list(base);
  for (const auto& item : config::split_list(c.value.value_or(""))) {
    auto it = std::find(items.begin(), items.end(), item);
    if (c.op == AlterOp::kAppend && it == items.end()) items.push_back(item);
    if (c.op == AlterOp::kSubtract && it != items.end()) items.erase(it);
  }
  std::string joined;
  for (const auto& i : items) joined += (joined.empty() ? "" : ",") + i;
  next[c.name] = joined;
  return std::nullopt;
}

// A key named twice in one request is refused whole, as Kafka does.
std::optional<ChangeResult> check_unique_keys(const std::vector<ConfigChange>& changes) {
  std::set<std::string> seen;
  for (const auto& c : changes) {
    if (!seen.insert(c.name).second)
      return change_error(ErrorCode::kInvalidRequest, "Error due to duplicate config keys: " + c.name);
  }
  return std::nullopt;
}

// One change applied to `next` (the dynamic values the request leaves); an
// error result refuses the whole request.
std::optional<ChangeResult> apply_change(const config::BrokerConfig& current, std::map<std::string, std::string>& next,
                                         const ConfigChange& c, bool incremental) {
  switch (c.op) {
    case AlterOp::kSet:
      if (!c.value) {
        if (incremental) return change_error(ErrorCode::kInvalidRequest, "Null value not supported for " + c.name);
        return std::nullopt;
      }
      next[c.name] = *c.value;
      return std::nullopt;
    case AlterOp::kDelete:
      next.erase(c.name);
      return std::nullopt;
    case AlterOp::kAppend:
    case AlterOp::kSubtract:
      return edit_list(current, next, c);
    default:
      return change_error(ErrorCode::kInvalidRequest,
                          "Unknown config operation " + std::to_string(static_cast<int>(c.op)));
  }
}

}  // namespace

ChangeResult alter_broker(BrokerServices& services, const std::string& resource_name,
                          const std::vector<ConfigChange>& changes, bool incremental, bool validate_only) {
  const std::string node = std::to_string(services.broker.node_id);
  if (!resource_name.empty() && resource_name != node)
    return change_error(ErrorCode::kInvalidRequest,
                        "Unexpected broker id, expected " + node + " or empty string, but received " + resource_name);
  if (!services.dynamic)
    return change_error(ErrorCode::kInvalidRequest, "Broker configs cannot be changed on this broker");
  auto& dyn = *services.dynamic;
  const auto scope = resource_name.empty() ? config::DynamicScope::kDefault : config::DynamicScope::kBroker;
  if (auto r = check_unique_keys(changes)) return *r;
  std::map<std::string, std::string> names;
  for (const auto& c : changes) names[c.name] = "";
  if (auto e = config::check_dynamic_keys(names)) return change_error(to_error(*e), e->message);
  auto values = dyn.values();
  std::map<std::string, std::string> next;
  if (incremental) next = scope == config::DynamicScope::kBroker ? values.broker : values.cluster;
  const auto current = dyn.current();
  for (const auto& c : changes) {
    if (auto r = apply_change(*current, next, c, incremental)) return *r;
  }
  if (auto e = dyn.alter(scope, next, validate_only)) return change_error(to_error(*e), e->message);
  if (!validate_only)
    api_log().info("dynamic broker config ({}): now {} key(s)",
                   resource_name.empty() ? "cluster default" : "broker " + node, next.size());
  return {};
}

}  // namespace skiff::api::admin
