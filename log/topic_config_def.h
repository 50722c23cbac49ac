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
// join keys (compaction lags; remote.storage.enable=true refused as by a
// broker without tiered storage). The same as the overload below with the
// default context.
Result<void> validate_topic_configs(const std::map<std::string, std::string>& overrides);

// What Kafka 4.4's LogConfig.validate(existingConfigs, props, configuredProps,
// isRemoteLogStorageSystemEnabled) knows beyond the topic's overrides: the
// broker's side. The default is a broker without tiered storage.
struct TopicConfigContext {
  // remote.log.storage.system.enable.
  bool remote_storage_system_enabled = false;
  // The broker's default of each topic key (Kafka's extractLogConfigMap,
  // by topic key: retention.ms, retention.bytes, cleanup.policy,
  // local.retention.ms/bytes from log.local.retention.*, remote.copy.lag.*
  // from log.remote.copy.lag.*); a key not here has Kafka's default.
  // LogConfig::effective_values() of the broker defaults gives most.
  std::map<std::string, std::string> broker_defaults;
  // An alter: the topic's overrides before it (Kafka's existingConfigs);
  // a creation: empty.
  std::map<std::string, std::string> existing;
};

// validate_topic_configs with the broker's side, for CreateTopics (existing
// empty) and AlterConfigs/IncrementalAlterConfigs (`overrides`: the topic's
// overrides after the change). With remote.storage.enable true in effect:
// refused unless the system is enabled; cleanup.policy must be delete (or
// empty); local.retention.bytes/ms within retention.bytes/ms; a positive
// remote.copy.lag.bytes/ms within the effective local retention; with
// remote.log.copy.disable, local retention equal to retention. Turning it
// from true to false needs remote.log.delete.on.disable=true. Kafka's
// messages; the error is kInvalidConfig (Kafka's INVALID_CONFIG).
Result<void> validate_topic_configs(const std::map<std::string, std::string>& overrides,
                                    const TopicConfigContext& context);

// A topic's stored overrides at startup, as Kafka's LogManager checks them
// (validateRemoteStorageOnlyIfSystemEnabled with isReceivingConfigFromStore):
// remote.storage.enable=true with the system disabled is an error ("You have
// to delete all topics with the property remote.storage.enable=true before
// disabling tiered storage cluster-wide").
Result<void> validate_stored_topic_remote_storage(const std::map<std::string, std::string>& overrides,
                                                  bool remote_storage_system_enabled);

// Parsed values, for the keys the log acts on (the value was validated).
int64_t topic_config_integer(const std::string& value);
bool topic_config_bool(const std::string& value);
// A list value's items, trimmed (an empty or blank value is the empty list).
std::vector<std::string> topic_config_list(const std::string& value);

}  // namespace skiff::storage
