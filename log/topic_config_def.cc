#include "log/topic_config_def.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <regex>

namespace skiff::storage {
namespace {

using T = TopicConfigType;
using C = TopicConfigCheck;

TopicConfigDef row(std::string_view name, T type, std::string_view def, C check, int64_t min, int64_t max,
                   std::string_view synonym, bool acted_on, std::string_view doc) {
  return TopicConfigDef{name, type, def, check, min, max, {}, synonym, acted_on, false, doc};
}
TopicConfigDef at_least(std::string_view name, T type, std::string_view def, int64_t min, std::string_view synonym,
                        bool acted_on, std::string_view doc) {
  return row(name, type, def, C::kRange, min, INT64_MAX, synonym, acted_on, doc);
}
TopicConfigDef plain(std::string_view name, T type, std::string_view def, std::string_view synonym,
                     std::string_view doc) {
  return row(name, type, def, C::kNone, INT64_MIN, INT64_MAX, synonym, false, doc);
}
TopicConfigDef one_of(std::string_view name, T type, std::string_view def, std::string_view choices,
                      std::string_view synonym, bool acted_on, std::string_view doc) {
  auto r =
      row(name, type, def, type == T::kList ? C::kEachOneOf : C::kOneOf, INT64_MIN, INT64_MAX, synonym, acted_on, doc);
  r.choices = choices;
  return r;
}

// Kafka 4.4's LogConfig.configKeys(), sorted by name. Keys with acted_on false
// are accepted, stored and described only (docs/operations/topic-configs.md).
std::vector<TopicConfigDef> build() {
  std::vector<TopicConfigDef> d = {
      one_of("cleanup.policy", T::kList, "delete", "compact, delete", "log.cleanup.policy", true,
             "delete: old segments go by retention.ms/retention.bytes. compact: the log cleaner keeps the last record "
             "of each key. Without delete (compact only, or empty) retention deletes nothing."),
      row("compression.gzip.level", T::kInt, "-1", C::kRangeOrMinusOne, 1, 9, "compression.gzip.level", false,
          "Compression level for gzip when compression.type is gzip."),
      row("compression.lz4.level", T::kInt, "9", C::kRange, 1, 17, "compression.lz4.level", false,
          "Compression level for lz4 when compression.type is lz4."),
      one_of("compression.type", T::kString, "producer", "uncompressed, zstd, lz4, snappy, gzip, producer",
             "compression.type", false,
             "Final compression of the topic's data. Skiff keeps batches as the producer compressed them."),
      row("compression.zstd.level", T::kInt, "3", C::kRange, -131072, 22, "compression.zstd.level", false,
          "Compression level for zstd when compression.type is zstd."),
      at_least("delete.retention.ms", T::kLong, "86400000", 0, "log.cleaner.delete.retention.ms", false,
               "How long tombstones are kept on compacted topics."),
      plain("errors.deadletterqueue.group.enable", T::kBoolean, "false", "",
            "Enable this topic to be used as a dead-letter queue for share groups. When set to <code>true</code>, "
            "share groups can write undeliverable records to this topic. When set to <code>false</code> (the "
            "default), attempts to use this topic as a DLQ will be rejected."),
      at_least("file.delete.delay.ms", T::kLong, "60000", 0, "log.segment.delete.delay.ms", false,
               "Delay before a deleted segment's files are removed. Skiff removes them at once."),
      at_least("flush.messages", T::kLong, "9223372036854775807", 1, "log.flush.interval.messages", true,
               "fsync the log after this many messages."),
      at_least("flush.ms", T::kLong, "9223372036854775807", 0, "log.flush.interval.ms", true,
               "fsync the log when unflushed data is older than this."),
      row("follower.replication.throttled.replicas", T::kList, "", C::kThrottledReplicas, INT64_MIN, INT64_MAX, "",
          false, "Replicas throttled on the follower side: '*' or partition:broker pairs."),
      at_least("index.interval.bytes", T::kInt, "4096", 0, "log.index.interval.bytes", true,
               "Bytes between two offset index entries."),
      TopicConfigDef{"internal.segment.bytes",
                     T::kInt,
                     std::nullopt,
                     C::kNone,
                     INT64_MIN,
                     INT64_MAX,
                     {},
                     "",
                     true,
                     true,
                     "Kafka's internal, test-only segment size: overrides segment.bytes with no minimum."},
      row("leader.replication.throttled.replicas", T::kList, "", C::kThrottledReplicas, INT64_MIN, INT64_MAX, "", false,
          "Replicas throttled on the leader side: '*' or partition:broker pairs."),
      at_least("local.retention.bytes", T::kLong, "-2", -2, "log.local.retention.bytes", false,
               "Local retention size with tiered storage (-2: retention.bytes)."),
      at_least("local.retention.ms", T::kLong, "-2", -2, "log.local.retention.ms", false,
               "Local retention time with tiered storage (-2: retention.ms)."),
      at_least("max.compaction.lag.ms", T::kLong, "9223372036854775807", 1, "log.cleaner.max.compaction.lag.ms", false,
               "Longest time a message stays ineligible for compaction."),
      row("max.decompressed.message.bytes", T::kInt, "2147483639", C::kRange, 1, 2147483639,
          "max.decompressed.message.bytes", false, "Largest size of a record batch once decompressed."),
      at_least("max.message.bytes", T::kInt, "1048588", 0, "message.max.bytes", true,
               "Largest record batch size accepted."),
      at_least("message.timestamp.after.max.ms", T::kLong, "3600000", 0, "log.message.timestamp.after.max.ms", true,
               "How far ahead of the broker's clock a CreateTime timestamp may be."),
      at_least("message.timestamp.before.max.ms", T::kLong, "9223372036854775807", 0,
               "log.message.timestamp.before.max.ms", true,
               "How far behind the broker's clock a CreateTime timestamp may be."),
      one_of("message.timestamp.type", T::kString, "CreateTime", "CreateTime, LogAppendTime",
             "log.message.timestamp.type", true, "Whether records keep the producer's time or get the broker's."),
      row("min.cleanable.dirty.ratio", T::kDouble, "0.5", C::kRange, 0, 1, "log.cleaner.min.cleanable.ratio", false,
          "Share of uncompacted log that triggers compaction."),
      at_least("min.compaction.lag.ms", T::kLong, "0", 0, "log.cleaner.min.compaction.lag.ms", false,
               "Shortest time a message stays ineligible for compaction."),
      at_least("min.insync.replicas", T::kInt, "1", 1, "min.insync.replicas", false,
               "Replicas that must acknowledge a produce with acks=all (Skiff has one)."),
      row("preallocate", T::kBoolean, "false", C::kNone, INT64_MIN, INT64_MAX, "log.preallocate", true,
          "Allocate a new segment's disk blocks up front (segment.bytes), given back when it rolls."),
      at_least("remote.copy.lag.bytes", T::kLong, "-1", -1, "log.remote.copy.lag.bytes", false,
               "Tiered storage: bytes a segment may wait before it is copied to remote storage."),
      at_least("remote.copy.lag.ms", T::kLong, "0", -1, "log.remote.copy.lag.ms", false,
               "Tiered storage: time a segment may wait before it is copied to remote storage."),
      plain("remote.log.copy.disable", T::kBoolean, "false", "", "Tiered storage: stop copying to remote storage."),
      plain("remote.log.delete.on.disable", T::kBoolean, "false", "",
            "Tiered storage: delete remote data when remote storage is turned off."),
      plain("remote.storage.enable", T::kBoolean, "false", "",
            "Tiered storage for the topic: true needs remote.log.storage.system.enable on the broker (refused "
            "otherwise, as by Kafka), and a delete cleanup.policy."),
      row("retention.bytes", T::kLong, "-1", C::kNone, INT64_MIN, INT64_MAX, "log.retention.bytes", true,
          "Largest size of a partition before its oldest segments are deleted (-1: no limit)."),
      at_least("retention.ms", T::kLong, "604800000", -1, "log.retention.ms", true,
               "Age after which segments are deleted, the active one included (-1: never)."),
      at_least("segment.bytes", T::kInt, "1073741824", 1048576, "log.segment.bytes", true,
               "Segment file size: a full segment is rolled."),
      at_least("segment.index.bytes", T::kInt, "10485760", 4, "log.index.size.max.bytes", true,
               "Size of the offset and time index files."),
      at_least("segment.jitter.ms", T::kLong, "0", 0, "log.roll.jitter.ms", false,
               "Random jitter subtracted from segment.ms."),
      at_least("segment.ms", T::kLong, "604800000", 1, "log.roll.ms", true, "Age after which a segment is rolled."),
      plain("unclean.leader.election.enable", T::kBoolean, "false", "unclean.leader.election.enable",
            "Elect an out-of-sync replica as leader (one node: no replicas)."),
  };
  // Kafka's broker keys without a default of their own (DescribeConfigs then
  // names no default synonym): the ms/hours/minutes families and flush.ms.
  for (auto& r : d)
    r.broker_synonym_unset =
        r.name == "segment.ms" || r.name == "segment.jitter.ms" || r.name == "retention.ms" || r.name == "flush.ms";
  return d;
}

std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

// Java's Long.parseLong: optional sign, decimal digits only.
std::optional<int64_t> parse_java_long(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return std::nullopt;
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return out;
}

// Kafka's ConfigDef BOOLEAN: "true" or "false", in any case.
std::optional<bool> parse_java_bool(std::string_view s) {
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "true") return true;
  if (lower == "false") return false;
  return std::nullopt;
}

std::optional<double> parse_java_double(std::string_view s) {
  static const std::regex java_double(R"([+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?))[fFdD]?)");
  std::string str(s);
  if (!std::regex_match(str, java_double)) return std::nullopt;
  if (str.find("NaN") != std::string::npos) return std::numeric_limits<double>::quiet_NaN();
  if (str.find("Infinity") != std::string::npos)
    return str.front() == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  return std::strtod(str.c_str(), nullptr);
}

std::string invalid(std::string_view value, std::string_view key, std::string_view why) {
  return fmt::format("Invalid value {} for configuration {}: {}", value, key, why);
}

std::optional<std::string> check_range(const TopicConfigDef& d, const std::string& shown, double v) {
  if (d.check == C::kRangeOrMinusOne) {
    if (v == -1 || (v >= d.min && v <= d.max)) return std::nullopt;
    return invalid(shown, d.name, fmt::format("Value must be between {} and {} or equal to -1", d.min, d.max));
  }
  if (d.check != C::kRange) return std::nullopt;
  if (v < static_cast<double>(d.min)) return invalid(shown, d.name, fmt::format("Value must be at least {}", d.min));
  if (v > static_cast<double>(d.max))
    return invalid(shown, d.name, fmt::format("Value must be no more than {}", d.max));
  return std::nullopt;
}

bool is_choice(const TopicConfigDef& d, std::string_view v) {
  std::string_view rest = d.choices;
  while (!rest.empty()) {
    auto comma = rest.find(", ");
    if (rest.substr(0, comma) == v) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 2);
  }
  return false;
}

std::optional<std::string> check_list(const TopicConfigDef& d, const std::string& value) {
  auto items = topic_config_list(value);
  if (d.check == C::kThrottledReplicas) {
    static const std::regex pair(R"(\d+:\d+)");
    bool ok = items.size() == 1 && items[0] == "*";
    auto is_pair = [](const std::string& i) { return std::regex_match(i, pair); };
    if (!ok) ok = std::all_of(items.begin(), items.end(), is_pair);
    if (ok) return std::nullopt;
    std::string shown = "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
    return invalid(shown, d.name,
                   fmt::format("{} must be the literal '*' or a list of replicas in the following format: "
                               "[partitionId]:[brokerId],[partitionId]:[brokerId],...",
                               d.name));
  }
  if (d.check != C::kEachOneOf) return std::nullopt;
  for (const auto& i : items) {
    if (i.empty()) return fmt::format("Configuration '{}' values must not be empty.", d.name);
    if (!is_choice(d, i)) return invalid(i, d.name, fmt::format("String must be one of: {}", d.choices));
  }
  return std::nullopt;
}

}  // namespace

const std::vector<TopicConfigDef>& topic_config_defs() {
  static const std::vector<TopicConfigDef> defs = build();
  return defs;
}

const TopicConfigDef* find_topic_config(std::string_view name) {
  const auto& defs = topic_config_defs();
  auto it = std::lower_bound(defs.begin(), defs.end(), name,
                             [](const TopicConfigDef& d, std::string_view n) { return d.name < n; });
  return it != defs.end() && it->name == name ? &*it : nullptr;
}

namespace {

// The reason `value` is invalid for `d`, in Kafka's words; nullopt if valid.
std::optional<std::string> value_problem(const TopicConfigDef& d, const std::string& value) {
  const std::string_view v = java_trim(value);
  switch (d.type) {
    case T::kBoolean:
      if (parse_java_bool(v)) return std::nullopt;
      return invalid(value, d.name, "Expected value to be either true or false");
    case T::kInt:
    case T::kLong: {
      auto n = parse_java_long(v);
      if (!n || (d.type == T::kInt && (*n < INT32_MIN || *n > INT32_MAX)))
        return invalid(value, d.name, d.type == T::kInt ? "Not a number of type INT" : "Not a number of type LONG");
      return check_range(d, std::to_string(*n), static_cast<double>(*n));
    }
    case T::kDouble: {
      auto n = parse_java_double(v);
      if (!n) return invalid(value, d.name, "Not a number of type DOUBLE");
      return check_range(d, std::string(v), *n);
    }
    case T::kString:
      if (d.check == C::kOneOf && !is_choice(d, v))
        return invalid(v, d.name, fmt::format("String must be one of: {}", d.choices));
      return std::nullopt;
    case T::kList:
      return check_list(d, value);
  }
  return std::nullopt;
}

// The values a topic's check sees: its overrides, else the broker's
// defaults, else Kafka's (Kafka's CONFIG.parse of configuredProps + props).
class Effective {
 public:
  Effective(const std::map<std::string, std::string>& overrides, const TopicConfigContext& ctx)
      : overrides_(overrides), ctx_(ctx) {}
  std::string text(const char* key) const {
    if (auto it = overrides_.find(key); it != overrides_.end()) return it->second;
    if (auto it = ctx_.broker_defaults.find(key); it != ctx_.broker_defaults.end()) return it->second;
    return std::string(find_topic_config(key)->kafka_default.value_or(""));
  }
  int64_t number(const char* key) const { return topic_config_integer(text(key)); }
  bool flag(const char* key) const { return topic_config_bool(text(key)); }

 private:
  const std::map<std::string, std::string>& overrides_;
  const TopicConfigContext& ctx_;
};

// Kafka's validateRemoteStorageRetentionSize/Time: local.retention.<what>
// within retention.<what> (`limited`: retention is not unlimited).
std::optional<std::string> local_retention_problem(const Effective& e, const std::string& what, bool limited) {
  const std::string local_key = "local.retention." + what, key = "retention." + what;
  const int64_t retention = e.number(key.c_str()), local = e.number(local_key.c_str());
  if (!limited || local == -2) return std::nullopt;
  if (local == -1)
    return invalid(std::to_string(local), local_key,
                   fmt::format("Value must not be -1 as {} value is set as {}.", key, retention));
  if (local > retention)
    return invalid(std::to_string(local), local_key,
                   fmt::format("Value must not be more than {} property value: {}", key, retention));
  return std::nullopt;
}

// Kafka's validateRemoteCopyLagSize/Time: a positive lag within the effective local retention.
std::optional<std::string> copy_lag_problem(const Effective& e, const std::string& what) {
  const std::string lag_key = "remote.copy.lag." + what, local_key = "local.retention." + what;
  const int64_t local = e.number(local_key.c_str());
  const int64_t effective = local == -2 ? e.number(("retention." + what).c_str()) : local;
  const int64_t lag = e.number(lag_key.c_str());
  if (lag > 0 && effective >= 0 && lag > effective)
    return invalid(std::to_string(lag), lag_key,
                   fmt::format("Value must not exceed {} (effective value: {})", local_key, effective));
  return std::nullopt;
}

// Kafka's validateRetentionConfigsWhenRemoteCopyDisabled.
std::optional<std::string> copy_disabled_problem(const Effective& e) {
  if (!e.flag("remote.log.copy.disable")) return std::nullopt;
  for (const char* what : {"bytes", "ms"}) {
    const int64_t local = e.number(fmt::format("local.retention.{}", what).c_str());
    if (local != -2 && local != e.number(fmt::format("retention.{}", what).c_str()))
      return fmt::format(
          "When `remote.log.copy.disable` is set to true, the `local.retention.{0}` and `retention.{0}` must be set to "
          "the identical value because there will be no more logs copied to the remote storage.",
          what);
  }
  return std::nullopt;
}

// Kafka's validateTopicLogConfigValues with remote.storage.enable true, in its order.
std::optional<std::string> remote_storage_problem(const Effective& e, const TopicConfigContext& ctx) {
  if (!ctx.remote_storage_system_enabled)
    return std::string(
        "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.");
  auto policy = topic_config_list(e.text("cleanup.policy"));
  if (!policy.empty() && (policy.size() != 1 || policy[0] != "delete"))
    return std::string(
        "Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.");
  if (auto p = local_retention_problem(e, "bytes", e.number("retention.bytes") > -1)) return p;
  if (auto p = local_retention_problem(e, "ms", e.number("retention.ms") != -1)) return p;
  if (auto p = copy_lag_problem(e, "bytes")) return p;
  if (auto p = copy_lag_problem(e, "ms")) return p;
  return copy_disabled_problem(e);
}

// Kafka's validateTurningOffRemoteStorageWithDelete (existing: Java's Boolean.parseBoolean).
std::optional<std::string> turning_off_problem(const Effective& e, const TopicConfigContext& ctx) {
  auto it = ctx.existing.find("remote.storage.enable");
  std::string was = it == ctx.existing.end() ? "false" : it->second;
  std::transform(was.begin(), was.end(), was.begin(), [](unsigned char c) { return std::tolower(c); });
  if (was != "true" || e.flag("remote.log.delete.on.disable")) return std::nullopt;
  return std::string(
      "It is invalid to disable remote storage without deleting remote data. If you want to keep the remote data and "
      "turn to read only, please set `remote.storage.enable=true,remote.log.copy.disable=true`. If you want to "
      "disable remote storage and delete all remote data, please set "
      "`remote.storage.enable=false,remote.log.delete.on.disable=true`.");
}

// The rules that join keys: compaction lags (their overrides over Kafka's
// defaults, as Skiff has always checked them), then remote storage.
std::optional<std::string> joint_problem(const std::map<std::string, std::string>& overrides,
                                         const TopicConfigContext& ctx) {
  const TopicConfigContext none;  // named: Effective keeps a reference
  const Effective kafka_only(overrides, none);
  const int64_t min_lag = kafka_only.number("min.compaction.lag.ms");
  const int64_t max_lag = kafka_only.number("max.compaction.lag.ms");
  if (min_lag > max_lag)
    return fmt::format("conflict topic config setting min.compaction.lag.ms ({}) > max.compaction.lag.ms ({})", min_lag,
                       max_lag);
  const Effective e(overrides, ctx);
  if (e.flag("remote.storage.enable")) return remote_storage_problem(e, ctx);
  return turning_off_problem(e, ctx);
}

}  // namespace

Result<void> validate_topic_config_value(const TopicConfigDef& d, const std::string& value) {
  if (auto why = value_problem(d, value)) return unexpected(Error::invalid_config(std::move(*why)));
  return {};
}

Result<void> validate_topic_configs(const std::map<std::string, std::string>& overrides) {
  return validate_topic_configs(overrides, TopicConfigContext{});
}

Result<void> validate_topic_configs(const std::map<std::string, std::string>& overrides,
                                    const TopicConfigContext& context) {
  for (const auto& [k, v] : overrides) {
    const auto* def = find_topic_config(k);
    if (!def) return unexpected(Error::invalid_config("Unknown topic config name: " + k));
    if (auto r = validate_topic_config_value(*def, v); !r) return r;
  }
  if (auto why = joint_problem(overrides, context)) return unexpected(Error::invalid_config(std::move(*why)));
  return {};
}

Result<void> validate_stored_topic_remote_storage(const std::map<std::string, std::string>& overrides,
                                                  bool remote_storage_system_enabled) {
  auto it = overrides.find("remote.storage.enable");
  if (remote_storage_system_enabled || it == overrides.end() || !topic_config_bool(it->second)) return {};
  return unexpected(Error::invalid_config(
      "You have to delete all topics with the property remote.storage.enable=true before disabling tiered storage "
      "cluster-wide"));
}

int64_t topic_config_integer(const std::string& value) { return parse_java_long(java_trim(value)).value_or(0); }

bool topic_config_bool(const std::string& value) { return parse_java_bool(java_trim(value)).value_or(false); }

std::vector<std::string> topic_config_list(const std::string& value) {
  std::vector<std::string> out;
  std::string_view rest = java_trim(value);
  if (rest.empty()) return out;
  while (true) {
    auto comma = rest.find(',');
    out.emplace_back(java_trim(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace skiff::storage
