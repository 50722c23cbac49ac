#include "log/log_config.h"

#include <charconv>
#include <set>

#include <fmt/format.h>

namespace skiff::storage {
namespace {

std::optional<int64_t> parse_long(const std::string& v) {
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size() || v.empty()) return std::nullopt;
  return out;
}

// Kafka topic configs that we accept and keep but that the log does not act on.
const std::set<std::string>& passive_keys() {
  static const std::set<std::string> k = {
      "cleanup.policy", "compression.type", "compression.gzip.level", "compression.lz4.level",
      "compression.zstd.level", "delete.retention.ms", "file.delete.delay.ms", "follower.replication.throttled.replicas",
      "leader.replication.throttled.replicas", "local.retention.bytes", "local.retention.ms",
      "max.compaction.lag.ms", "message.downconversion.enable", "min.cleanable.dirty.ratio",
      "min.compaction.lag.ms", "min.insync.replicas", "preallocate", "remote.storage.enable",
      "segment.jitter.ms", "unclean.leader.election.enable", "message.timestamp.difference.max.ms",
      "remote.log.copy.disable", "remote.log.delete.on.disable"};
  return k;
}

}  // namespace

std::optional<std::string> LogConfig::set(const std::string& key, const std::string& value) {
  auto num = [&](int64_t& field, int64_t min) -> std::optional<std::string> {
    auto v = parse_long(value);
    if (!v) return fmt::format("Invalid value {} for configuration {}: not a number", value, key);
    if (*v < min) return fmt::format("Invalid value {} for configuration {}: must be at least {}", value, key, min);
    field = *v;
    return std::nullopt;
  };
  std::optional<std::string> err;
  if (key == "segment.bytes") err = num(segment_bytes, 14);
  else if (key == "segment.ms") err = num(segment_ms, 1);
  else if (key == "retention.ms") err = num(retention_ms, -1);
  else if (key == "retention.bytes") err = num(retention_bytes, -1);
  else if (key == "flush.messages") err = num(flush_messages, 1);
  else if (key == "flush.ms") err = num(flush_ms, 0);
  else if (key == "max.message.bytes") err = num(max_message_bytes, 0);
  else if (key == "index.interval.bytes") err = num(index_interval_bytes, 0);
  else if (key == "segment.index.bytes") err = num(segment_index_bytes, 4);
  else if (key == "message.timestamp.before.max.ms") err = num(message_timestamp_before_max_ms, 0);
  else if (key == "message.timestamp.after.max.ms") err = num(message_timestamp_after_max_ms, 0);
  else if (key == "message.timestamp.type") {
    if (value == "CreateTime") message_timestamp_type = TimestampType::kCreateTime;
    else if (value == "LogAppendTime") message_timestamp_type = TimestampType::kLogAppendTime;
    else err = fmt::format("Invalid value {} for configuration {}: String must be one of: CreateTime, LogAppendTime", value, key);
  } else if (!passive_keys().count(key)) {
    return fmt::format("Unknown topic config name: {}", key);
  }
  if (err) return err;
  if (segment_bytes > INT32_MAX) return fmt::format("Invalid value {} for configuration {}: must be at most {}", value, key, INT32_MAX);
  if (segment_index_bytes > INT32_MAX) return fmt::format("Invalid value {} for configuration {}: must be at most {}", value, key, INT32_MAX);
  return std::nullopt;
}

std::variant<LogConfig, std::string> LogConfig::with_overrides(const LogConfig& broker_defaults,
                                                               const std::map<std::string, std::string>& overrides) {
  LogConfig c = broker_defaults;
  c.overrides.clear();
  for (const auto& [k, v] : overrides) {
    if (auto e = c.set(k, v)) return *e;
    c.overrides[k] = v;
  }
  return c;
}

std::variant<LogConfig, std::string> LogConfig::from_broker_properties(const std::map<std::string, std::string>& props) {
  LogConfig c;
  auto get = [&](const char* k) -> const std::string* {
    auto it = props.find(k);
    return it == props.end() ? nullptr : &it->second;
  };
  // broker key -> (topic key, multiplier to ms where relevant). Finer units win.
  struct Alias { const char* broker; const char* topic; int64_t mult; };
  static const Alias aliases[] = {
      {"log.segment.bytes", "segment.bytes", 1},
      {"log.roll.hours", "segment.ms", 3600000}, {"log.roll.ms", "segment.ms", 1},
      {"log.retention.hours", "retention.ms", 3600000}, {"log.retention.minutes", "retention.ms", 60000},
      {"log.retention.ms", "retention.ms", 1},
      {"log.retention.bytes", "retention.bytes", 1},
      {"log.flush.interval.messages", "flush.messages", 1},
      {"log.flush.interval.ms", "flush.ms", 1},
      {"message.max.bytes", "max.message.bytes", 1},
      {"log.message.timestamp.type", "message.timestamp.type", 0},
      {"log.message.timestamp.before.max.ms", "message.timestamp.before.max.ms", 1},
      {"log.message.timestamp.after.max.ms", "message.timestamp.after.max.ms", 1},
      {"log.index.interval.bytes", "index.interval.bytes", 1},
      {"log.index.size.max.bytes", "segment.index.bytes", 1},
  };
  for (const auto& a : aliases) {
    const std::string* v = get(a.broker);
    if (!v) continue;
    std::string value = *v;
    if (a.mult > 1) {
      auto n = parse_long(value);
      if (!n) return fmt::format("Invalid value {} for configuration {}: not a number", value, a.broker);
      value = std::to_string(*n < 0 ? *n : *n * a.mult);
    }
    if (auto e = c.set(a.topic, value)) return fmt::format("{} (broker config {})", *e, a.broker);
  }
  return c;
}

std::map<std::string, std::string> LogConfig::effective_values() const {
  std::map<std::string, std::string> m = overrides;
  m["segment.bytes"] = std::to_string(segment_bytes);
  m["segment.ms"] = std::to_string(segment_ms);
  m["retention.ms"] = std::to_string(retention_ms);
  m["retention.bytes"] = std::to_string(retention_bytes);
  m["flush.messages"] = std::to_string(flush_messages);
  m["flush.ms"] = std::to_string(flush_ms);
  m["max.message.bytes"] = std::to_string(max_message_bytes);
  m["message.timestamp.type"] =
      message_timestamp_type == TimestampType::kLogAppendTime ? "LogAppendTime" : "CreateTime";
  m["message.timestamp.before.max.ms"] = std::to_string(message_timestamp_before_max_ms);
  m["message.timestamp.after.max.ms"] = std::to_string(message_timestamp_after_max_ms);
  m["index.interval.bytes"] = std::to_string(index_interval_bytes);
  m["segment.index.bytes"] = std::to_string(segment_index_bytes);
  return m;
}

}  // namespace skiff::storage
