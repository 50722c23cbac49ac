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

namespace {

int32_t clamped(std::optional<int32_t> v, int32_t fallback, int32_t lo, int32_t hi) {
  return v ? std::clamp(*v, lo, std::max(lo, hi)) : fallback;
}

}  // namespace

int32_t GroupCoordinator::share_session_timeout_ms(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "share.session.timeout.ms"), config_.share_session_timeout_ms,
                 config_.share_min_session_timeout_ms, config_.share_max_session_timeout_ms);
}

int32_t GroupCoordinator::share_heartbeat_interval_ms(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "share.heartbeat.interval.ms"),
                 config_.share_heartbeat_interval_ms, config_.share_min_heartbeat_interval_ms,
                 config_.share_max_heartbeat_interval_ms);
}

int32_t GroupCoordinator::share_assignment_interval_ms(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "share.assignment.interval.ms"),
                 config_.share_assignment_interval_ms, config_.share_min_assignment_interval_ms,
                 config_.share_max_assignment_interval_ms);
}

int32_t GroupCoordinator::share_record_lock_duration_ms(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "share.record.lock.duration.ms"),
                 config_.share_record_lock_duration_ms, config_.share_min_record_lock_duration_ms,
                 config_.share_max_record_lock_duration_ms);
}

int32_t GroupCoordinator::share_delivery_count_limit(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "share.delivery.count.limit"), config_.share_delivery_count_limit,
                 config_.share_min_delivery_count_limit, config_.share_max_delivery_count_limit);
}

int32_t GroupCoordinator::share_partition_max_record_locks(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "share.partition.max.record.locks"),
                 config_.share_partition_max_record_locks, config_.share_min_partition_max_record_locks,
                 config_.share_max_partition_max_record_locks);
}

int32_t GroupCoordinator::streams_session_timeout_ms(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "streams.session.timeout.ms"), config_.streams_session_timeout_ms,
                 config_.streams_min_session_timeout_ms, config_.streams_max_session_timeout_ms);
}

int32_t GroupCoordinator::streams_heartbeat_interval_ms(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "streams.heartbeat.interval.ms"),
                 config_.streams_heartbeat_interval_ms, config_.streams_min_heartbeat_interval_ms,
                 config_.streams_max_heartbeat_interval_ms);
}

// Capped to group.streams.max.standby.replicas (Kafka's clampToMax).
int32_t GroupCoordinator::streams_num_standby_replicas(const std::string& group_id) const {
  return clamped(group_configs_->int_value(group_id, "streams.num.standby.replicas"),
                 config_.streams_num_standby_replicas, 0, config_.streams_max_standby_replicas);
}

// No broker bound: the group's value, else group.streams.initial.rebalance.delay.ms.
int32_t GroupCoordinator::streams_initial_rebalance_delay_ms(const std::string& group_id) const {
  return group_configs_->int_value(group_id, "streams.initial.rebalance.delay.ms")
      .value_or(config_.streams_initial_rebalance_delay_ms);
}

// At least group.streams.min.task.offset.interval.ms (Kafka's clampToMin).
int32_t GroupCoordinator::streams_task_offset_interval_ms(const std::string& group_id) const {
  auto v = group_configs_->int_value(group_id, "streams.task.offset.interval.ms");
  return v ? std::max(*v, config_.streams_min_task_offset_interval_ms) : config_.streams_task_offset_interval_ms;
}

int64_t GroupCoordinator::streams_acceptable_recovery_lag(const std::string& group_id) const {
  return group_configs_->long_value(group_id, "streams.acceptable.recovery.lag")
      .value_or(config_.streams_acceptable_recovery_lag);
}

std::vector<std::string> GroupCoordinator::streams_rack_aware_assignment_tags(const std::string& group_id) const {
  auto v = group_configs_->text_value(group_id, "streams.rack.aware.assignment.tags");
  return v ? group_config_list(*v) : config_.streams_rack_aware_assignment_tags;
}

namespace {

std::string lowered(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

std::string GroupCoordinator::share_auto_offset_reset(const std::string& group_id) const {
  auto set = group_configs_->text_value(group_id, "share.auto.offset.reset");
  if (!set) return "latest";
  auto v = trimmed(*set);  // validated: earliest, latest or by_duration:<ISO8601>, any case
  const auto colon = v.find(':');
  return colon == std::string::npos ? lowered(v) : lowered(v.substr(0, colon)) + v.substr(colon);
}

bool GroupCoordinator::share_read_committed(const std::string& group_id) const {
  return group_configs_->text_value(group_id, "share.isolation.level") == "read_committed";
}

bool GroupCoordinator::share_renew_acknowledge_enable(const std::string& group_id) const {
  auto v = group_configs_->text_value(group_id, "share.renew.acknowledge.enable");
  return !v || lowered(trimmed(*v)) != "false";
}

std::string GroupCoordinator::share_dlq_topic(const std::string& group_id) const {
  auto v = group_configs_->text_value(group_id, "errors.deadletterqueue.topic.name");
  return v ? trimmed(*v) : std::string();
}

bool GroupCoordinator::share_dlq_copy_record(const std::string& group_id) const {
  auto v = group_configs_->text_value(group_id, "errors.deadletterqueue.copy.record.enable");
  return v && lowered(trimmed(*v)) == "true";
}

}  // namespace skiff::group
