// Per-group dynamic configs: KIP-848's GROUP config resource (type 32 of
// DescribeConfigs / AlterConfigs / IncrementalAlterConfigs), as Kafka 4.4's
// GroupConfig. Skiff serves the consumer-group keys it acts on
// (consumer.session.timeout.ms, consumer.heartbeat.interval.ms) and the
// share-group keys (KIP-932: share.session.timeout.ms,
// share.heartbeat.interval.ms, share.record.lock.duration.ms,
// share.delivery.count.limit, share.partition.max.record.locks,
// share.auto.offset.reset, share.isolation.level,
// share.renew.acknowledge.enable, share.assignment.interval.ms) with the
// share groups' DLQ keys (KIP-1191: errors.deadletterqueue.topic.name,
// errors.deadletterqueue.copy.record.enable) and the streams-group keys
// (KIP-1071: streams.session.timeout.ms, streams.heartbeat.interval.ms,
// streams.num.standby.replicas, streams.initial.rebalance.delay.ms,
// streams.task.offset.interval.ms, streams.acceptable.recovery.lag,
// streams.rack.aware.assignment.tags, streams.num.warmup.replicas,
// streams.assignor.name). Every key of Kafka 4.4's GroupConfig is accepted;
// a few are checked and described but change nothing here, as they change
// nothing Kafka 4.4's clients can see either: the assignment batching and
// offload keys (Skiff computes a consumer or streams group's target
// assignment on the heartbeat itself) and streams.num.warmup.replicas (Kafka
// 4.4's sticky task assignor assigns no warm-up tasks).
//
// Values are validated as Kafka does (known name; the type and ConfigDef
// bound; within the broker's group.consumer.* / group.share.* /
// group.streams.* min/max (streams.num.standby.replicas: at most
// group.streams.max.standby.replicas); the
// session timeout above the heartbeat interval) and read by the coordinator
// when used, clamped to the broker's current bounds (Kafka caps them the
// same way).
//
// Durable: the whole set is rewritten crash-safely in the "group-configs"
// namespace of the metadata store (metadata/metadata_store.h) before a
// change is acknowledged, so it survives kill -9. One record per group,
// version 1 (integers big-endian, strings int32-length-prefixed):
//   group string | count uint32 | (key string | value string)*
//
// Threads: every method is thread-safe (one leaf mutex).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metadata/metadata_store.h"

namespace skiff::group {

struct GroupConfig;

enum class GroupConfigType { kInt, kLong, kString, kBoolean, kList };

// A group key Skiff serves.
struct GroupConfigKey {
  std::string_view name;            // e.g. consumer.session.timeout.ms
  std::string_view broker_synonym;  // e.g. group.consumer.session.timeout.ms; empty: none (Kafka's default only)
  std::string_view doc;
  GroupConfigType type = GroupConfigType::kInt;
  // Kafka's defineInternal: described only when set (group_config_described).
  bool internal = false;
};
// Sorted by name.
const std::vector<GroupConfigKey>& group_config_keys();

// The broker's value of a served key (its default for every group), as text.
std::string group_config_default(const GroupConfig& broker, std::string_view key);

// Whether DescribeConfigs lists `key` for a group (Kafka's
// nonInternalValues plus the originals): every non-internal key; an
// internal one when the group overrides it or the broker's key was set.
bool group_config_described(const GroupConfig& broker, const GroupConfigKey& key, bool overridden);
// A LIST value as ConfigDef parses it: trimmed, split at commas with the
// blanks around them; empty text is the empty list.
std::vector<std::string> group_config_list(std::string_view text);
// Kafka's GroupConfig.validate over a group's complete new overrides: a
// message for INVALID_CONFIG, or nothing.
std::optional<std::string> validate_group_configs(const std::map<std::string, std::string>& values,
                                                  const GroupConfig& broker);

class GroupDynamicConfigs {
 public:
  using Values = std::map<std::string, std::string>;

  // `ns` null: kept in memory only (tests). Loads the stored configs;
  // throws metadata::Failure when they cannot be read or are malformed.
  explicit GroupDynamicConfigs(metadata::Namespace* ns);

  Values get(const std::string& group_id) const;
  // Every group with at least one override, sorted.
  std::vector<std::string> group_ids() const;
  // Replaces the group's overrides (empty: none left), durably. 0 or errno;
  // on failure nothing changed.
  int set(const std::string& group_id, const Values& values);
  // The group's override of a key, if any: as set (text), or as an INT (LONG).
  std::optional<std::string> text_value(const std::string& group_id, std::string_view key) const;
  std::optional<int32_t> int_value(const std::string& group_id, std::string_view key) const;
  std::optional<int64_t> long_value(const std::string& group_id, std::string_view key) const;

  static std::vector<std::string> encode(const std::map<std::string, Values>& all);
  // Throws std::runtime_error on a malformed record.
  static std::map<std::string, Values> decode(const std::vector<std::string>& records);

 private:
  metadata::Namespace* const ns_;
  mutable std::mutex mu_;
  std::map<std::string, Values> values_;
};

}  // namespace skiff::group
