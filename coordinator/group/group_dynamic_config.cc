#include "coordinator/group/group_dynamic_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "coordinator/group/group_coordinator.h"
#include "log/file_util.h"

namespace skiff::group {
namespace {

constexpr std::string_view kHeader = "skiff-group-configs v1";
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

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%' || c == '\t' || c == '\n' || c == '\r')
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    unsigned v = 0;
    if (i + 2 >= s.size()) throw std::runtime_error("truncated escape");
    auto [ptr, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
    if (ec != std::errc() || ptr != s.data() + i + 3) throw std::runtime_error("bad escape");
    out += static_cast<char>(v);
    i += 2;
  }
  return out;
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

GroupDynamicConfigs::GroupDynamicConfigs(std::filesystem::path file) : file_(std::move(file)) {
  if (file_.empty()) return;
  std::string text;
  if (!storage::read_small_file(file_, text)) {
    std::error_code ec;
    if (std::filesystem::exists(file_, ec)) throw std::runtime_error("cannot read " + file_.string());
    return;
  }
  try {
    values_ = from_text(text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{} is not a group config file: {}", file_.string(), e.what()));
  }
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
  if (!file_.empty()) {
    if (int rc = storage::write_file_durably(file_, to_text(next)); rc != 0) return rc;
  }
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

std::string GroupDynamicConfigs::to_text(const std::map<std::string, Values>& all) {
  std::string out(kHeader);
  out += '\n';
  for (const auto& [group, values] : all)
    for (const auto& [k, v] : values) out += escape(group) + '\t' + escape(k) + '\t' + escape(v) + '\n';
  return out;
}

std::map<std::string, GroupDynamicConfigs::Values> GroupDynamicConfigs::from_text(const std::string& text) {
  std::map<std::string, Values> all;
  size_t pos = 0;
  bool header = true;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) throw std::runtime_error("last line is not complete");
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (header) {
      if (line != kHeader) throw std::runtime_error("unknown header");
      header = false;
      continue;
    }
    size_t t1 = line.find('\t'), t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string_view::npos) throw std::runtime_error("a line is not group<TAB>key<TAB>value");
    all[unescape(line.substr(0, t1))][unescape(line.substr(t1 + 1, t2 - t1 - 1))] = unescape(line.substr(t2 + 1));
  }
  if (header) throw std::runtime_error("no header");
  return all;
}

}  // namespace skiff::group
