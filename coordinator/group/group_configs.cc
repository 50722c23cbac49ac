// GroupCoordinator: the per-group dynamic configs (KIP-848's GROUP config
// resource; group_dynamic_config.h) and the values in effect for a group.
#include <algorithm>
#include <cstring>

#include "common/log_escape.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::group {

std::map<std::string, std::string> GroupCoordinator::group_config_overrides(const std::string& group_id) const {
  return group_configs_->get(group_id);
}

std::vector<std::string> GroupCoordinator::groups_with_configs() const { return group_configs_->group_ids(); }

GroupCoordinator::GroupConfigChange GroupCoordinator::alter_group_config(const std::string& group_id,
                                                                         const std::map<std::string, std::string>& next,
                                                                         bool validate_only) {
  if (auto why = validate_group_configs(next, config_)) return {ErrorCode::kInvalidConfig, *why};
  if (validate_only) return {};
  if (int rc = group_configs_->set(group_id, next); rc != 0) {
    coordinator::log().error("group {}: cannot store its configs: {}", escaped(group_id), std::strerror(rc));
    return {ErrorCode::kKafkaStorageError, std::string("cannot store the group's configs: ") + std::strerror(rc)};
  }
  coordinator::log().info("group {}: config overrides now {} key(s)", escaped(group_id), next.size());
  return {};
}

// A group's override, capped to the broker's bounds of now (they may have
// narrowed since it was set, as Kafka caps it); else the broker's value.
int32_t GroupCoordinator::consumer_session_timeout_ms(const std::string& group_id) const {
  auto v = group_configs_->int_value(group_id, "consumer.session.timeout.ms");
  if (!v) return config_.consumer_session_timeout_ms;
  return std::clamp(*v, config_.consumer_min_session_timeout_ms,
                    std::max(config_.consumer_min_session_timeout_ms, config_.consumer_max_session_timeout_ms));
}

int32_t GroupCoordinator::consumer_heartbeat_interval_ms(const std::string& group_id) const {
  auto v = group_configs_->int_value(group_id, "consumer.heartbeat.interval.ms");
  if (!v) return config_.consumer_heartbeat_interval_ms;
  return std::clamp(*v, config_.consumer_min_heartbeat_interval_ms,
                    std::max(config_.consumer_min_heartbeat_interval_ms, config_.consumer_max_heartbeat_interval_ms));
}

}  // namespace skiff::group
