// TopicConfigDef: the one table of topic-level configs (Kafka 4.4's LogConfig
// ConfigDef). Every key Kafka 4.4 accepts on a topic is a row: its type,
// Kafka's default, the check Kafka applies to a value (with Kafka's error
// messages), the broker-level synonym, whether Skiff's log acts on it, and
// the documentation DescribeConfigs returns. LogConfig validates and applies
// overrides through it; api/admin describes topics and checks alter requests
// from it, so the accepted keys, their validation and their description
// cannot drift apart. The protocol's names for types and sources stay in api/.
//
// The row list is Kafka 4.4's LogConfig.configKeys(); tests/log check it
// against tests/log/kafka_4_4_topic_configs.txt (and against Kafka's jar when
// java is present).
//
// Threads: immutable after first use; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "log/result.h"

namespace skiff::storage {

// Kafka's ConfigDef.Type for the topic keys.
enum class TopicConfigType : uint8_t { kBoolean, kString, kInt, kLong, kDouble, kList };

// Kafka's validator for a key, beyond parsing its type.
enum class TopicConfigCheck : uint8_t {
  kNone,
  kRange,             // min <= v <= max
  kRangeOrMinusOne,   // min <= v <= max, or -1 (compression.gzip.level)
  kOneOf,             // the string is one of `choices` (case-sensitive)
  kEachOneOf,         // each list item is one of `choices`; no empty item
  kThrottledReplicas  // "*" or a list of partition:broker
};

struct TopicConfigDef {
  std::string_view name;
  TopicConfigType type;
  std::optional<std::string_view> kafka_default;  // nullopt: no default (internal.segment.bytes)
  TopicConfigCheck check = TopicConfigCheck::kNone;
  int64_t min = INT64_MIN;
  int64_t max = INT64_MAX;
  std::string_view choices;         // for kOneOf/kEachOneOf, ", "-separated as Kafka prints them
  std::string_view broker_synonym;  // Kafka's broker-level key for the default ("" if none)
  bool acted_on = false;            // Skiff's log honours it (otherwise stored and described only)
  bool internal = false;            // Kafka's internal key: accepted, described only when set
  std::string_view doc;
  bool broker_synonym_unset = false;  // Kafka's broker key has no default (log.roll.ms, ...)
};

// All rows, sorted by name.
const std::vector<TopicConfigDef>& topic_config_defs();
// The row for `name`, or nullptr if Kafka 4.4 has no such topic config.
const TopicConfigDef* find_topic_config(std::string_view name);

// Kafka's check of one value ("Invalid value X for configuration K: ...").
// The error (kInvalidConfig) carries the message.
Result<void> validate_topic_config_value(const TopicConfigDef& def, const std::string& value);
// The whole override map as Kafka's LogConfig.validate checks it: unknown
// names ("Unknown topic config name: K"), each value, then the rules that
// join keys (compaction lags, remote storage that Skiff does not have).
Result<void> validate_topic_configs(const std::map<std::string, std::string>& overrides);

// Parsed values, for the keys the log acts on (the value was validated).
int64_t topic_config_integer(const std::string& value);
bool topic_config_bool(const std::string& value);
// A list value's items, trimmed (an empty or blank value is the empty list).
std::vector<std::string> topic_config_list(const std::string& value);

}  // namespace skiff::storage
