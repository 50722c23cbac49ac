#include "api/admin/group_config_admin.h"

#include <algorithm>
#include <set>

#include "coordinator/group/group_coordinator.h"

namespace skiff::api::admin {
namespace {

ConfigType config_type(group::GroupConfigType type) {
  switch (type) {
    case group::GroupConfigType::kInt:
      return ConfigType::kInt;
    case group::GroupConfigType::kLong:
      return ConfigType::kLong;
    case group::GroupConfigType::kBoolean:
      return ConfigType::kBoolean;
    case group::GroupConfigType::kList:
      return ConfigType::kList;
    case group::GroupConfigType::kString:
      break;
  }
  return ConfigType::kString;
}

}  // namespace

std::vector<ConfigEntry> describe_group_configs(BrokerServices& services, const std::string& group_id,
                                                const std::optional<std::vector<std::string>>& keys) {
  auto& groups = *services.groups;
  const auto overrides = groups.group_config_overrides(group_id);
  std::vector<ConfigEntry> out;
  for (const auto& key : group::group_config_keys()) {
    const std::string name(key.name);
    if (keys && !keys->empty() && std::find(keys->begin(), keys->end(), name) == keys->end()) continue;
    if (!group::group_config_described(groups.config(), key, overrides.count(name) > 0)) continue;
    ConfigEntry e;
    e.name = name;
    e.type = config_type(key.type);
    e.documentation = std::string(key.doc);
    const std::string broker_value = group::group_config_default(groups.config(), key.name);
    if (auto o = overrides.find(name); o != overrides.end()) {
      e.value = o->second;
      e.source = ConfigSource::kGroupConfig;
      e.synonyms.push_back({name, o->second, ConfigSource::kGroupConfig});
    } else {
      e.value = broker_value;
      e.source = ConfigSource::kDefaultConfig;
    }
    if (!key.broker_synonym.empty())  // Kafka: share.auto.offset.reset & co. have no broker key
      e.synonyms.push_back({std::string(key.broker_synonym), broker_value, ConfigSource::kDefaultConfig});
    out.push_back(std::move(e));
  }
  return out;
}

ChangeResult alter_group_configs(BrokerServices& services, const std::string& group_id,
                                 const std::vector<ConfigChange>& changes, bool incremental, bool validate_only) {
  auto next = incremental ? services.groups->group_config_overrides(group_id) : std::map<std::string, std::string>{};
  std::set<std::string> seen;
  for (const auto& c : changes) {
    if (!seen.insert(c.name).second)
      return {ErrorCode::kInvalidRequest, "Error due to duplicate config keys: " + c.name};
    switch (c.op) {
      case AlterOp::kSet:
        if (!c.value) {
          if (incremental) return {ErrorCode::kInvalidRequest, "Null value not supported for " + c.name};
          break;  // AlterConfigs: a null value means "no override"
        }
        next[c.name] = *c.value;
        break;
      case AlterOp::kDelete:
        next.erase(c.name);
        break;
      case AlterOp::kAppend:
      case AlterOp::kSubtract:
        return {ErrorCode::kInvalidConfig,
                "Config value append/subtract is not supported for " + c.name + ": it is not a list"};
      default:
        return {ErrorCode::kInvalidRequest, "Unknown config operation " + std::to_string(static_cast<int>(c.op))};
    }
  }
  auto r = services.groups->alter_group_config(group_id, next, validate_only);
  return {r.error, r.message};
}

}  // namespace skiff::api::admin
