#include "coordinator/group/group_dynamic_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "common/file_fields.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::group {
namespace {

constexpr std::string_view kSession = "consumer.session.timeout.ms";
constexpr std::string_view kHeartbeat = "consumer.heartbeat.interval.ms";

// Kafka 4.4's other group keys, and why Skiff refuses them.
std::optional<std::string> unsupported_reason(std::string_view key) {
  auto starts = [&](std::string_view p) { return key.substr(0, p.size()) == p; };
  static const std::vector<std::string_view> kafka_keys = {"consumer.assignment.interval.ms",
                                                           "consumer.assignor.offload.enable",
                                                           "share.session.timeout.ms",
                                                           "share.heartbeat.interval.ms",
                                                           "share.record.lock.duration.ms",
                                                           "share.delivery.count.limit",
                                                           "share.partition.max.record.locks",
                                                           "share.auto.offset.reset",
                                                           "share.isolation.level",
                                                           "share.renew.acknowledge.enable",
                                                           "share.assignment.interval.ms",
                                                           "share.assignor.offload.enable",
                                                           "streams.session.timeout.ms",
                                                           "streams.heartbeat.interval.ms",
                                                           "streams.num.standby.replicas",
                                                           "streams.initial.rebalance.delay.ms",
                                                           "streams.assignment.interval.ms",
                                                           "streams.rack.aware.assignment.tags",
                                                           "streams.assignor.offload.enable",
                                                           "streams.task.offset.interval.ms",
                                                           "streams.num.warmup.replicas",
                                                           "streams.acceptable.recovery.lag",
                                                           "streams.assignor.name",
                                                           "errors.deadletterqueue.topic.name",
                                                           "errors.deadletterqueue.copy.record.enable"};
  if (std::find(kafka_keys.begin(), kafka_keys.end(), key) == kafka_keys.end()) return std::nullopt;
  if (starts("share.") || starts("errors."))
    return fmt::format("Group config {} is for share groups, which this broker does not support.", key);
  if (starts("streams."))
    return fmt::format("Group config {} is for streams groups, which this broker does not support.", key);
  return fmt::format(
      "Group config {} is not supported by this broker: it computes a consumer group's target assignment at once, "
      "on the heartbeat.",
      key);
}

std::optional<int32_t> parse_int(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

std::pair<int32_t, int32_t> bounds(const GroupConfig& b, std::string_view key) {
  if (key == kSession) return {b.consumer_min_session_timeout_ms, b.consumer_max_session_timeout_ms};
  return {b.consumer_min_heartbeat_interval_ms, b.consumer_max_heartbeat_interval_ms};
}

}  // namespace

const std::vector<GroupConfigKey>& group_config_keys() {
  static const std::vector<GroupConfigKey> keys = {
      {kHeartbeat, "group.consumer.heartbeat.interval.ms",
       "The heartbeat interval given to the members of a consumer group."},
      {kSession, "group.consumer.session.timeout.ms",
       "The timeout to detect client failures when using the consumer group protocol."},
  };
  return keys;
}

int32_t group_config_default(const GroupConfig& broker, std::string_view key) {
  return key == kSession ? broker.consumer_session_timeout_ms : broker.consumer_heartbeat_interval_ms;
}

std::optional<std::string> validate_group_configs(const std::map<std::string, std::string>& values,
                                                  const GroupConfig& broker) {
  auto served = [](std::string_view k) { return k == kSession || k == kHeartbeat; };
  for (const auto& [k, v] : values) {
    if (served(k)) continue;
    if (auto why = unsupported_reason(k)) return why;
    return "Unknown group config name: " + k;
  }
  std::map<std::string_view, int32_t> parsed;
  for (const auto& [k, v] : values) {
    auto n = parse_int(v);
    if (!n) return fmt::format("Invalid value {} for configuration {}: Not a number of type INT", v, k);
    parsed[k == kSession ? kSession : kHeartbeat] = *n;  // every key is served by now
  }
  for (std::string_view k : {kHeartbeat, kSession}) {
    auto it = parsed.find(k);
    if (it == parsed.end()) continue;
    auto [lo, hi] = bounds(broker, k);
    if (it->second < lo || it->second > hi)
      return fmt::format("{} must be in the range {} to {} inclusive.", k, lo, hi);
  }
  if (parsed.empty()) return std::nullopt;
  const int32_t session = parsed.count(kSession) ? parsed[kSession] : broker.consumer_session_timeout_ms;
  const int32_t heartbeat = parsed.count(kHeartbeat) ? parsed[kHeartbeat] : broker.consumer_heartbeat_interval_ms;
  if (session <= heartbeat) return fmt::format("{} must be greater than {}", kSession, kHeartbeat);
  return std::nullopt;
}

GroupDynamicConfigs::GroupDynamicConfigs(metadata::Namespace* ns) : ns_(ns) {
  if (!ns_) return;
  values_ = ns_->load(decode);
}

GroupDynamicConfigs::Values GroupDynamicConfigs::get(const std::string& group_id) const {
  std::lock_guard lock(mu_);
  auto it = values_.find(group_id);
  return it == values_.end() ? Values{} : it->second;
}

std::vector<std::string> GroupDynamicConfigs::group_ids() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> ids;
  ids.reserve(values_.size());
  for (const auto& [id, _] : values_) ids.push_back(id);
  return ids;
}

int GroupDynamicConfigs::set(const std::string& group_id, const Values& values) {
  std::lock_guard lock(mu_);
  auto next = values_;
  if (values.empty())
    next.erase(group_id);
  else
    next[group_id] = values;
  if (ns_)
    if (auto r = ns_->write(encode(next)); !r) return metadata::error_number(r.error());
  values_ = std::move(next);
  return 0;
}

std::optional<int32_t> GroupDynamicConfigs::int_value(const std::string& group_id, std::string_view key) const {
  std::lock_guard lock(mu_);
  auto g = values_.find(group_id);
  if (g == values_.end()) return std::nullopt;
  auto v = g->second.find(std::string(key));
  if (v == g->second.end()) return std::nullopt;
  return parse_int(v->second);
}

std::vector<std::string> GroupDynamicConfigs::encode(const std::map<std::string, Values>& all) {
  return named_string_map_records(all);
}

std::map<std::string, GroupDynamicConfigs::Values> GroupDynamicConfigs::decode(
    const std::vector<std::string>& records) {
  std::map<std::string, Values> all;
  for (const auto& record : records) {
    FieldReader in(record);
    std::string group = in.string();
    Values values = in.string_map();
    if (!in.done()) throw std::runtime_error("bytes after the configs of a group");
    if (values.empty() || !all.emplace(std::move(group), std::move(values)).second)
      throw std::runtime_error("a group without configs, or twice");
  }
  return all;
}

}  // namespace skiff::group
