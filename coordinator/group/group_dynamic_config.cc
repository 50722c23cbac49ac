#include "coordinator/group/group_dynamic_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <set>
#include <stdexcept>

#include "common/file_fields.h"
#include "coordinator/group/group_coordinator.h"

namespace skiff::group {
namespace {

constexpr std::string_view kSession = "consumer.session.timeout.ms";
constexpr std::string_view kHeartbeat = "consumer.heartbeat.interval.ms";
constexpr std::string_view kShareSession = "share.session.timeout.ms";
constexpr std::string_view kShareHeartbeat = "share.heartbeat.interval.ms";

constexpr std::string_view kStreamsSession = "streams.session.timeout.ms";
constexpr std::string_view kStreamsHeartbeat = "streams.heartbeat.interval.ms";

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::optional<int32_t> parse_int(std::string_view text) {
  text = trimmed(text);
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_long(std::string_view text) {
  text = trimmed(text);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string lower(std::string_view s) {
  std::string out(trimmed(s));
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// java.time.Duration.parse's PnDTnHnMn.nS, non-negative (Kafka's
// by_duration: refuses a negative duration).
bool iso8601_duration(std::string_view d) {
  static const std::regex re(R"(^\+?[Pp](\+?\d+[Dd])?([Tt](\+?\d+[Hh])?(\+?\d+[Mm])?(\+?\d+([.,]\d{0,9})?[Ss])?)?$)");
  std::cmatch m;
  if (!std::regex_match(d.begin(), d.end(), m, re)) return false;
  const bool has_time = m[2].matched && (m[3].matched || m[4].matched || m[5].matched);
  if (m[2].matched && !has_time) return false;  // "PT" alone
  return m[1].matched || has_time;
}

struct KeyDef {
  GroupConfigKey key;
  int32_t at_least = 0;  // ConfigDef's own bound (INT keys)
  // The broker's value, and the broker's bounds a group's value must be within (INT keys).
  int32_t (*broker_value)(const GroupConfig&) = nullptr;
  std::pair<int32_t, int32_t> (*bounds)(const GroupConfig&) = nullptr;
  std::string_view string_default{};  // STRING / BOOLEAN keys (no broker synonym)
  // Only an upper bound from the broker (Kafka's validateIntMax).
  int32_t (*broker_max)(const GroupConfig&) = nullptr;
  // Only a lower bound from the broker (Kafka's validateIntMin).
  int32_t (*broker_min)(const GroupConfig&) = nullptr;
  // The broker's value of a LONG, LIST or STRING key with a synonym.
  std::string (*broker_text)(const GroupConfig&) = nullptr;
};

// The assignment batching keys (group.{consumer,share,streams}.*assignment.interval.ms).
KeyDef interval_key(std::string_view name, std::string_view synonym, std::string_view doc,
                    int32_t (*value)(const GroupConfig&), std::pair<int32_t, int32_t> (*bounds)(const GroupConfig&)) {
  return {{name, synonym, doc, GroupConfigType::kInt}, 0, value, bounds, {}};
}

// The internal assignor offload flags (defineInternal, BOOLEAN, default true).
KeyDef offload_key(std::string_view name, std::string_view synonym, std::string_view doc) {
  return {{name, synonym, doc, GroupConfigType::kBoolean, true}, 0, nullptr, nullptr, "true"};
}

// In Kafka's definition order (ConfigDef parses, and fails, in that order).
const std::vector<KeyDef>& key_defs() {
  using T = GroupConfigType;
  static const std::vector<KeyDef> defs = {
      {{kSession, "group.consumer.session.timeout.ms",
        "The timeout to detect client failures when using the consumer group protocol.", T::kInt},
       1,
       [](const GroupConfig& b) { return b.consumer_session_timeout_ms; },
       [](const GroupConfig& b) {
         return std::pair{b.consumer_min_session_timeout_ms, b.consumer_max_session_timeout_ms};
       },
       {}},
      {{kHeartbeat, "group.consumer.heartbeat.interval.ms",
        "The heartbeat interval given to the members of a consumer group.", T::kInt},
       1,
       [](const GroupConfig& b) { return b.consumer_heartbeat_interval_ms; },
       [](const GroupConfig& b) {
         return std::pair{b.consumer_min_heartbeat_interval_ms, b.consumer_max_heartbeat_interval_ms};
       },
       {}},
      interval_key(
          "consumer.assignment.interval.ms", "group.consumer.assignment.interval.ms",
          "The interval between assignment updates for a consumer group.",
          [](const GroupConfig& b) { return b.consumer_assignment_interval_ms; },
          [](const GroupConfig& b) {
            return std::pair{b.consumer_min_assignment_interval_ms, b.consumer_max_assignment_interval_ms};
          }),
      offload_key("consumer.assignor.offload.enable", "group.consumer.assignor.offload.enable",
                  "Whether to offload consumer group assignment to a group coordinator background thread."),
      {{kShareSession, "group.share.session.timeout.ms",
        "The timeout to detect client failures when using the share group protocol.", T::kInt},
       1,
       [](const GroupConfig& b) { return b.share_session_timeout_ms; },
       [](const GroupConfig& b) {
         return std::pair{b.share_min_session_timeout_ms, b.share_max_session_timeout_ms};
       },
       {}},
      {{kShareHeartbeat, "group.share.heartbeat.interval.ms",
        "The heartbeat interval given to the members of a share group.", T::kInt},
       1,
       [](const GroupConfig& b) { return b.share_heartbeat_interval_ms; },
       [](const GroupConfig& b) {
         return std::pair{b.share_min_heartbeat_interval_ms, b.share_max_heartbeat_interval_ms};
       },
       {}},
      {{"share.record.lock.duration.ms", "group.share.record.lock.duration.ms",
        "The record acquisition lock duration in milliseconds for share groups.", T::kInt},
       1000,
       [](const GroupConfig& b) { return b.share_record_lock_duration_ms; },
       [](const GroupConfig& b) {
         return std::pair{b.share_min_record_lock_duration_ms, b.share_max_record_lock_duration_ms};
       },
       {}},
      {{"share.delivery.count.limit", "group.share.delivery.count.limit",
        "The maximum number of delivery attempts for a record delivered to a share group.", T::kInt},
       2,
       [](const GroupConfig& b) { return b.share_delivery_count_limit; },
       [](const GroupConfig& b) {
         return std::pair{b.share_min_delivery_count_limit, b.share_max_delivery_count_limit};
       },
       {}},
      {{"share.partition.max.record.locks", "group.share.partition.max.record.locks",
        "Share-group record lock limit per share-partition.", T::kInt},
       100,
       [](const GroupConfig& b) { return b.share_partition_max_record_locks; },
       [](const GroupConfig& b) {
         return std::pair{b.share_min_partition_max_record_locks, b.share_max_partition_max_record_locks};
       },
       {}},
      {{"share.auto.offset.reset", "",
        "The strategy to initialize the share-partition start offset. earliest: automatically reset the offset to "
        "the earliest offset; latest: automatically reset the offset to the latest offset; by_duration:<duration>: "
        "automatically reset the offset to a configured duration from the current timestamp (ISO8601, PnDTnHnMn.nS, "
        "not negative); anything else: throw exception to the share consumer.",
        T::kString},
       0,
       nullptr,
       nullptr,
       "latest"},
      {{"share.isolation.level", "",
        "Controls how to read records written transactionally. If set to \"read_committed\", the share group will "
        "only deliver transactional records which have been committed. If set to \"read_uncommitted\", the share "
        "group will return all messages, even transactional messages which have been aborted. Non-transactional "
        "records will be returned unconditionally in either mode.",
        T::kString},
       0,
       nullptr,
       nullptr,
       "read_uncommitted"},
      {{"share.renew.acknowledge.enable", "", "Whether the renew acknowledge type is enabled for the share group.",
        T::kBoolean},
       0,
       nullptr,
       nullptr,
       "true"},
      {{"share.assignment.interval.ms", "group.share.assignment.interval.ms",
        "The interval between assignment updates for a share group.", T::kInt},
       0,
       [](const GroupConfig& b) { return b.share_assignment_interval_ms; },
       [](const GroupConfig& b) {
         return std::pair{b.share_min_assignment_interval_ms, b.share_max_assignment_interval_ms};
       },
       {}},
      offload_key("share.assignor.offload.enable", "group.share.assignor.offload.enable",
                  "Whether to offload share group assignment to a group coordinator background thread."),
      {{kStreamsSession, "group.streams.session.timeout.ms",
        "The timeout to detect client failures when using the streams group protocol.", T::kInt},
       1,
       [](const GroupConfig& b) { return b.streams_session_timeout_ms; },
       [](const GroupConfig& b) {
         return std::pair{b.streams_min_session_timeout_ms, b.streams_max_session_timeout_ms};
       },
       {}},
      {{kStreamsHeartbeat, "group.streams.heartbeat.interval.ms", "The heartbeat interval given to the members.",
        T::kInt},
       1,
       [](const GroupConfig& b) { return b.streams_heartbeat_interval_ms; },
       [](const GroupConfig& b) {
         return std::pair{b.streams_min_heartbeat_interval_ms, b.streams_max_heartbeat_interval_ms};
       },
       {}},
      {{"streams.num.standby.replicas", "group.streams.num.standby.replicas",
        "The number of standby replicas for each task.", T::kInt},
       0,
       [](const GroupConfig& b) { return b.streams_num_standby_replicas; },
       nullptr,
       {},
       [](const GroupConfig& b) { return b.streams_max_standby_replicas; }},
      {{"streams.initial.rebalance.delay.ms", "group.streams.initial.rebalance.delay.ms",
        "The amount of time the group coordinator will wait for more streams clients to join a new group before "
        "performing the first rebalance. A longer delay means potentially fewer rebalances.",
        T::kInt},
       0,
       [](const GroupConfig& b) { return b.streams_initial_rebalance_delay_ms; },
       nullptr,
       {}},
      interval_key(
          "streams.assignment.interval.ms", "group.streams.assignment.interval.ms",
          "The interval between assignment updates for a streams group.",
          [](const GroupConfig& b) { return b.streams_assignment_interval_ms; },
          [](const GroupConfig& b) {
            return std::pair{b.streams_min_assignment_interval_ms, b.streams_max_assignment_interval_ms};
          }),
      offload_key("streams.assignor.offload.enable", "group.streams.assignor.offload.enable",
                  "Whether to offload streams group assignment to a group coordinator background thread."),
      {.key = {"streams.task.offset.interval.ms", "group.streams.task.offset.interval.ms",
               "The interval in which the warmup task changelog offsets on a client are updated on the broker. The "
               "offsets are sent with the next heartbeat after this time has passed.",
               T::kInt, true},
       .at_least = 1,
       .broker_value = [](const GroupConfig& b) { return b.streams_task_offset_interval_ms; },
       .broker_min = [](const GroupConfig& b) { return b.streams_min_task_offset_interval_ms; }},
      {.key = {"streams.num.warmup.replicas", "group.streams.num.warmup.replicas",
               "The maximum number of warmup task replicas.", T::kInt, true},
       .broker_value = [](const GroupConfig& b) { return b.streams_num_warmup_replicas; },
       .broker_max = [](const GroupConfig& b) { return b.streams_max_warmup_replicas; }},
      {.key = {"streams.rack.aware.assignment.tags", "group.streams.rack.aware.assignment.tags",
               "List of client tag keys used to distribute standby replicas across Kafka Streams instances. When "
               "configured, and the used broker-side assignor supports it, it will make a best-effort to distribute "
               "standby tasks over each client tag dimension.",
               T::kList},
       .broker_text =
           [](const GroupConfig& b) {
             return fmt::format("{}", fmt::join(b.streams_rack_aware_assignment_tags, ","));
           }},
      {.key = {"streams.acceptable.recovery.lag", "group.streams.acceptable.recovery.lag",
               "The maximum acceptable lag (number of offsets to catch up) for a client to be considered caught-up "
               "enough to receive an active task assignment.",
               T::kLong, true},
       .broker_text = [](const GroupConfig& b) { return std::to_string(b.streams_acceptable_recovery_lag); }},
      {.key = {"streams.assignor.name", "group.streams.assignors",
               "The task assignor to use for this streams group, selected by short name from the assignors "
               "registered via the broker configuration group.streams.assignors. When unset, the group defaults to "
               "the first assignor configured in the broker's group.streams.assignors setting. Changing the "
               "assignor does not trigger a rebalance for the group; the new assignor takes effect on the next "
               "rebalance.",
               T::kString},
       .broker_text = [](const GroupConfig& b) { return b.streams_assignors.front(); }},
      {{"errors.deadletterqueue.topic.name", "",
        "The name of the topic to be used as the dead-letter queue (DLQ) topic for this share group. If blank (the "
        "default), the group does not have a DLQ topic.",
        T::kString},
       0,
       nullptr,
       nullptr,
       ""},
      {{"errors.deadletterqueue.copy.record.enable", "",
        "When writing onto the dead-letter queue topic, whether to copy the original record onto the DLQ topic, or "
        "just write a record containing the context information headers.",
        T::kBoolean},
       0,
       nullptr,
       nullptr,
       "false"},
  };
  return defs;
}

const KeyDef* key_def(std::string_view name) {
  for (const auto& d : key_defs())
    if (d.key.name == name) return &d;
  return nullptr;
}

// An INT or LONG value: a number of its type, at least the ConfigDef bound.
std::optional<std::string> number_error(const KeyDef& d, const std::string& v, std::optional<int64_t> n,
                                        std::string_view type) {
  if (!n) return fmt::format("Invalid value {} for configuration {}: Not a number of type {}", v, d.key.name, type);
  if (*n < d.at_least)
    return fmt::format("Invalid value {} for configuration {}: Value must be at least {}", v, d.key.name, d.at_least);
  return std::nullopt;
}

// The STRING keys' own validators.
std::optional<std::string> string_error(std::string_view name, const std::string& v) {
  // checked in validate_group_configs
  if (name == "errors.deadletterqueue.topic.name" || name == "streams.assignor.name") return std::nullopt;
  if (name == "share.isolation.level") {
    if (v != "read_committed" && v != "read_uncommitted")
      return fmt::format(
          "Invalid value {} for configuration {}: String must be one of: read_committed, read_uncommitted", v, name);
    return std::nullopt;
  }
  const auto s = lower(v);  // share.auto.offset.reset (AutoOffsetResetStrategy.fromString)
  const bool ok =
      s == "earliest" || s == "latest" ||
      (s.starts_with("by_duration:") && iso8601_duration(trimmed(v).substr(std::string_view("by_duration:").size())));
  if (ok) return std::nullopt;
  return fmt::format(
      "Invalid value {} for configuration {}: Invalid value `{}` for configuration {}. The value must be either "
      "'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.",
      v, name, v, name);
}

// ConfigDef.parse of one value: a message for INVALID_CONFIG, or nothing.
std::optional<std::string> parse_error(const KeyDef& d, const std::string& v) {
  switch (d.key.type) {
    case GroupConfigType::kInt: {
      auto n = parse_int(v);
      return number_error(d, v, n ? std::optional<int64_t>(*n) : std::nullopt, "INT");
    }
    case GroupConfigType::kLong:
      return number_error(d, v, parse_long(v), "LONG");
    case GroupConfigType::kBoolean: {
      auto b = lower(v);
      if (b != "true" && b != "false")
        return fmt::format("Invalid value {} for configuration {}: Expected value to be either true or false", v,
                           d.key.name);
      return std::nullopt;
    }
    case GroupConfigType::kList:  // duplicates: validate_rack_tags, before parsing (as Kafka)
      return std::nullopt;
    case GroupConfigType::kString:
      break;
  }
  return string_error(d.key.name, v);
}

}  // namespace

const std::vector<GroupConfigKey>& group_config_keys() {
  static const std::vector<GroupConfigKey> keys = [] {
    std::vector<GroupConfigKey> out;
    for (const auto& d : key_defs()) out.push_back(d.key);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
  }();
  return keys;
}

std::string group_config_default(const GroupConfig& broker, std::string_view key) {
  const auto* d = key_def(key);
  if (!d) return {};
  if (d->broker_value) return std::to_string(d->broker_value(broker));
  if (d->broker_text) return d->broker_text(broker);
  auto set = broker.explicit_internal_broker_keys.find(std::string(d->key.broker_synonym));
  if (d->key.internal && set != broker.explicit_internal_broker_keys.end()) return set->second;
  return std::string(d->string_default);
}

bool group_config_described(const GroupConfig& broker, const GroupConfigKey& key, bool overridden) {
  return !key.internal || overridden || broker.explicit_internal_broker_keys.count(std::string(key.broker_synonym));
}

std::vector<std::string> group_config_list(std::string_view text) {
  text = trimmed(text);
  std::vector<std::string> out;
  if (text.empty()) return out;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    out.emplace_back(
        trimmed(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

namespace {

using IntValues = std::map<std::string_view, int32_t>;

// Kafka's validateNames: every key is a group config this broker knows.
std::optional<std::string> validate_names(const std::map<std::string, std::string>& values) {
  for (const auto& [k, v] : values)
    if (!key_def(k)) return "Unknown group config name: " + k;
  return std::nullopt;
}

// validateNoDuplicateRackAwareAssignmentTags, on the text before it is parsed.
std::optional<std::string> validate_rack_tags(const std::map<std::string, std::string>& values) {
  auto it = values.find("streams.rack.aware.assignment.tags");
  if (it == values.end()) return std::nullopt;
  auto tags = group_config_list(it->second);
  if (std::set<std::string>(tags.begin(), tags.end()).size() == tags.size()) return std::nullopt;
  return "streams.rack.aware.assignment.tags must not contain duplicate tag keys.";
}

// ConfigDef.parse, in definition order: each value parses as its type; the
// INT values land in `ints`.
std::optional<std::string> parse_values(const std::map<std::string, std::string>& values, IntValues& ints) {
  for (const auto& d : key_defs()) {
    auto it = values.find(std::string(d.key.name));
    if (it == values.end()) continue;
    if (auto why = parse_error(d, it->second)) return why;
    if (d.key.type == GroupConfigType::kInt) ints[d.key.name] = *parse_int(it->second);
  }
  return std::nullopt;
}

// validateValues: each INT value within the broker's min/max.
std::optional<std::string> validate_broker_bounds(const IntValues& ints, const GroupConfig& broker) {
  for (const auto& d : key_defs()) {
    auto it = ints.find(d.key.name);
    if (it == ints.end()) continue;
    if (d.broker_max && it->second > d.broker_max(broker))
      return fmt::format("{} must be less than or equal to {}", d.key.name, d.broker_max(broker));
    if (d.broker_min && it->second < d.broker_min(broker))
      return fmt::format("{} must be greater than or equal to {}", d.key.name, d.broker_min(broker));
    if (!d.bounds) continue;
    auto [lo, hi] = d.bounds(broker);
    if (it->second < lo || it->second > hi)
      return fmt::format("{} must be in the range {} to {} inclusive.", d.key.name, lo, hi);
  }
  return std::nullopt;
}

// validateSessionExceedsHeartbeat, consumer, share then streams: a key not
// set takes the broker's value.
std::optional<std::string> validate_session_exceeds_heartbeat(IntValues& ints, const GroupConfig& broker) {
  for (auto [sk, hk] : {std::pair{kSession, kHeartbeat}, std::pair{kShareSession, kShareHeartbeat},
                        std::pair{kStreamsSession, kStreamsHeartbeat}}) {
    if (!ints.count(sk) && !ints.count(hk)) continue;
    const int32_t session = ints.count(sk) ? ints[sk] : key_def(sk)->broker_value(broker);
    const int32_t heartbeat = ints.count(hk) ? ints[hk] : key_def(hk)->broker_value(broker);
    if (session <= heartbeat) return fmt::format("{} must be greater than {}", sk, hk);
  }
  return std::nullopt;
}

// A streams group's assignor is one of group.streams.assignors.
std::optional<std::string> validate_assignor_name(const std::map<std::string, std::string>& values,
                                                  const GroupConfig& broker) {
  auto it = values.find("streams.assignor.name");
  const auto& names = broker.streams_assignors;
  if (it == values.end() || std::find(names.begin(), names.end(), it->second) != names.end()) return std::nullopt;
  return fmt::format("streams.assignor.name '{}' is not a registered task assignor. Registered assignors are: [{}].",
                     it->second, fmt::join(names, ", "));
}

std::optional<std::string> validate_dlq_topic_name(const std::map<std::string, std::string>& values) {
  if (auto dlq = values.find("errors.deadletterqueue.topic.name"); dlq != values.end() && dlq->second.starts_with("__"))
    return "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> validate_group_configs(const std::map<std::string, std::string>& values,
                                                  const GroupConfig& broker) {
  if (auto why = validate_names(values)) return why;
  if (auto why = validate_rack_tags(values)) return why;
  IntValues ints;
  if (auto why = parse_values(values, ints)) return why;
  if (auto why = validate_broker_bounds(ints, broker)) return why;
  if (auto why = validate_assignor_name(values, broker)) return why;
  if (auto why = validate_session_exceeds_heartbeat(ints, broker)) return why;
  return validate_dlq_topic_name(values);
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

std::optional<std::string> GroupDynamicConfigs::text_value(const std::string& group_id, std::string_view key) const {
  std::lock_guard lock(mu_);
  auto g = values_.find(group_id);
  if (g == values_.end()) return std::nullopt;
  auto v = g->second.find(std::string(key));
  if (v == g->second.end()) return std::nullopt;
  return v->second;
}

std::optional<int32_t> GroupDynamicConfigs::int_value(const std::string& group_id, std::string_view key) const {
  auto v = text_value(group_id, key);
  return v ? parse_int(*v) : std::nullopt;
}

std::optional<int64_t> GroupDynamicConfigs::long_value(const std::string& group_id, std::string_view key) const {
  auto v = text_value(group_id, key);
  return v ? parse_long(*v) : std::nullopt;
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
