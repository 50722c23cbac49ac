#include "log/log_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "log/topic_config_def.h"

namespace skiff::storage {
namespace {

std::optional<int64_t> parse_long(const std::string& v) {
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size() || v.empty()) return std::nullopt;
  return out;
}

}  // namespace

Result<void> LogConfig::set(const std::string& key, const std::string& value) {
  const TopicConfigDef* def = find_topic_config(key);
  if (!def) return unexpected(Error::invalid_config(fmt::format("Unknown topic config name: {}", key)));
  if (auto r = validate_topic_config_value(*def, value); !r) return r;
  static const std::map<std::string_view, int64_t LogConfig::*> integers = {
      {"segment.bytes", &LogConfig::segment_bytes},
      {"segment.ms", &LogConfig::segment_ms},
      {"retention.ms", &LogConfig::retention_ms},
      {"retention.bytes", &LogConfig::retention_bytes},
      {"flush.messages", &LogConfig::flush_messages},
      {"flush.ms", &LogConfig::flush_ms},
      {"max.message.bytes", &LogConfig::max_message_bytes},
      {"index.interval.bytes", &LogConfig::index_interval_bytes},
      {"segment.index.bytes", &LogConfig::segment_index_bytes},
      {"internal.segment.bytes", &LogConfig::internal_segment_bytes},
      {"message.timestamp.before.max.ms", &LogConfig::message_timestamp_before_max_ms},
      {"message.timestamp.after.max.ms", &LogConfig::message_timestamp_after_max_ms},
      {"min.compaction.lag.ms", &LogConfig::min_compaction_lag_ms},
      {"max.compaction.lag.ms", &LogConfig::max_compaction_lag_ms},
      {"delete.retention.ms", &LogConfig::delete_retention_ms},
      {"local.retention.ms", &LogConfig::local_retention_ms},
      {"local.retention.bytes", &LogConfig::local_retention_bytes},
  };
  static const std::map<std::string_view, bool LogConfig::*> booleans = {
      {"preallocate", &LogConfig::preallocate},
      {"remote.storage.enable", &LogConfig::remote_storage_enable},
      {"remote.log.copy.disable", &LogConfig::remote_log_copy_disable},
      {"remote.log.delete.on.disable", &LogConfig::remote_log_delete_on_disable},
  };
  if (auto it = integers.find(key); it != integers.end()) {
    this->*(it->second) = topic_config_integer(value);
  } else if (auto b = booleans.find(key); b != booleans.end()) {
    this->*(b->second) = topic_config_bool(value);
  } else if (key == "message.timestamp.type") {
    message_timestamp_type =
        value.find("LogAppendTime") != std::string::npos ? TimestampType::kLogAppendTime : TimestampType::kCreateTime;
  } else if (key == "cleanup.policy") {
    auto items = topic_config_list(value);
    retention_deletes = std::find(items.begin(), items.end(), "delete") != items.end();
    compact = std::find(items.begin(), items.end(), "compact") != items.end();
  } else if (key == "min.cleanable.dirty.ratio") {
    min_cleanable_dirty_ratio = std::stod(value);
  }
  return {};
}

Result<LogConfig> LogConfig::with_overrides(const LogConfig& broker_defaults,
                                            const std::map<std::string, std::string>& overrides) {
  return with_overrides(broker_defaults, overrides, TopicConfigContext{});
}

Result<LogConfig> LogConfig::with_overrides(const LogConfig& broker_defaults,
                                            const std::map<std::string, std::string>& overrides,
                                            const TopicConfigContext& context) {
  if (auto r = validate_topic_configs(overrides, context); !r) return unexpected(std::move(r.error()));
  LogConfig c = broker_defaults;
  c.overrides.clear();
  for (const auto& [k, v] : overrides) {
    if (auto r = c.set(k, v); !r) return unexpected(std::move(r.error()));
    c.overrides[k] = v;
  }
  if (!context.remote_storage_system_enabled) c.remote_storage_enable = false;
  return c;
}

LogConfig LogConfig::with_stored_overrides(const LogConfig& broker_defaults,
                                           const std::map<std::string, std::string>& overrides,
                                           std::map<std::string, std::string>* dropped,
                                           bool remote_storage_system_enabled) {
  LogConfig c = broker_defaults;
  c.overrides.clear();
  for (const auto& [k, v] : overrides) {
    if (auto r = c.set(k, v); !r) {
      if (dropped) (*dropped)[k] = r.error().message;
      continue;
    }
    c.overrides[k] = v;
  }
  if (!remote_storage_system_enabled) c.remote_storage_enable = false;
  return c;
}

Result<LogConfig> LogConfig::from_broker_properties(const std::map<std::string, std::string>& props) {
  LogConfig c;
  auto get = [&](const char* k) -> const std::string* {
    auto it = props.find(k);
    return it == props.end() ? nullptr : &it->second;
  };
  // broker key -> (topic key, multiplier to ms where relevant). Finer units win.
  struct Alias {
    const char* broker;
    const char* topic;
    int64_t mult;
  };
  static const Alias aliases[] = {
      {"log.segment.bytes", "segment.bytes", 1},
      {"log.roll.hours", "segment.ms", 3600000},
      {"log.roll.ms", "segment.ms", 1},
      {"log.retention.hours", "retention.ms", 3600000},
      {"log.retention.minutes", "retention.ms", 60000},
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
      {"log.cleanup.policy", "cleanup.policy", 0},
      {"log.preallocate", "preallocate", 0},
      {"log.cleaner.min.compaction.lag.ms", "min.compaction.lag.ms", 1},
      {"log.cleaner.max.compaction.lag.ms", "max.compaction.lag.ms", 1},
      {"log.cleaner.delete.retention.ms", "delete.retention.ms", 1},
      {"log.local.retention.ms", "local.retention.ms", 1},
      {"log.local.retention.bytes", "local.retention.bytes", 1},
  };
  for (const auto& a : aliases) {
    const std::string* v = get(a.broker);
    if (!v) continue;
    std::string value = *v;
    if (a.mult > 1) {
      auto n = parse_long(value);
      if (!n)
        return unexpected(
            Error::invalid_config(fmt::format("Invalid value {} for configuration {}: not a number", value, a.broker)));
      value = std::to_string(*n < 0 ? *n : *n * a.mult);
    }
    if (auto r = c.set(a.topic, value); !r)
      return unexpected(Error::invalid_config(fmt::format("{} (broker config {})", r.error().message, a.broker)));
  }
  return c;
}

std::map<std::string, std::string> LogConfig::effective_values() const {
  std::map<std::string, std::string> m = overrides;
  for (const auto& d : topic_config_defs())
    if (!d.acted_on && d.kafka_default && !m.count(std::string(d.name))) m[std::string(d.name)] = *d.kafka_default;
  if (!m.count("cleanup.policy"))
    m["cleanup.policy"] = compact && retention_deletes ? "compact,delete" : compact ? "compact" : "delete";
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
  m["preallocate"] = preallocate ? "true" : "false";
  m["local.retention.ms"] = std::to_string(local_retention_ms);
  m["local.retention.bytes"] = std::to_string(local_retention_bytes);
  // A stored true stays described while the broker's system is off.
  if (!overrides.count("remote.storage.enable")) m["remote.storage.enable"] = remote_storage_enable ? "true" : "false";
  m["remote.log.copy.disable"] = remote_log_copy_disable ? "true" : "false";
  m["remote.log.delete.on.disable"] = remote_log_delete_on_disable ? "true" : "false";
  return m;
}

}  // namespace skiff::storage
