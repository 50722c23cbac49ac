// ConfigDescriber: what DescribeConfigs, CreateTopics (v5+) and the alter
// handlers say about topic and broker configs. Every topic config Kafka 4.4
// knows (the table in log/topic_config_def.h) is listed with its value in effect, where it comes from (a topic
// override, the broker's file/environment/command line, or the default),
// its broker-level synonym, type and documentation, as clients expect
// (tools diff "all configs", see /work/shared/clients.md §5 item 15).
//
// Threads: stateless functions over thread-safe services.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/broker_services.h"

namespace skiff::api::admin {

// Kafka's ConfigResource.Type ids.
inline constexpr int8_t kResourceTopic = 2;
inline constexpr int8_t kResourceBroker = 4;
inline constexpr int8_t kResourceBrokerLogger = 8;
inline constexpr int8_t kResourceClientMetrics = 16;  // KIP-714's subscriptions (client_metrics_admin.h)
inline constexpr int8_t kResourceGroup = 32;          // KIP-848's group configs (group_config_admin.h)

// Kafka's DescribeConfigsResponse.ConfigSource ids.
enum class ConfigSource : int8_t {
  kUnknown = 0,
  kTopicConfig = 1,
  kDynamicBrokerConfig = 2,
  kDynamicDefaultBrokerConfig = 3,
  kStaticBrokerConfig = 4,
  kDefaultConfig = 5,
  kDynamicBrokerLoggerConfig = 6,
  kClientMetricsConfig = 7,
  kGroupConfig = 8,  // DYNAMIC_GROUP_CONFIG
};

// Kafka's DescribeConfigsResponse.ConfigType ids (v3+).
enum class ConfigType : int8_t {
  kUnknown = 0,
  kBoolean = 1,
  kString = 2,
  kInt = 3,
  kShort = 4,
  kLong = 5,
  kDouble = 6,
  kList = 7,
  kClass = 8,
  kPassword = 9
};

struct ConfigSynonym {
  std::string name;
  std::optional<std::string> value;
  ConfigSource source;
};

struct ConfigEntry {
  std::string name;
  std::optional<std::string> value;
  bool read_only = false;
  ConfigSource source = ConfigSource::kDefaultConfig;
  bool sensitive = false;
  ConfigType type = ConfigType::kString;
  std::string documentation;
  std::vector<ConfigSynonym> synonyms;  // most specific first, the entry itself included
  bool is_default() const { return source == ConfigSource::kDefaultConfig; }
};

// The topic's configs (all of them, or only `keys` when given); nullopt if
// the topic does not exist.
std::optional<std::vector<ConfigEntry>> describe_topic(BrokerServices& services, const std::string& topic,
                                                       const std::optional<std::vector<std::string>>& keys = {});
// What a new topic with `overrides` would have (CreateTopics v5+).
std::vector<ConfigEntry> describe_new_topic(BrokerServices& services,
                                            const std::map<std::string, std::string>& overrides);
// per_broker: this node's configs (every key Skiff accepts; read-only unless
// dynamic), each with its synonyms per-broker dynamic > cluster-default
// dynamic > static > default. Else the cluster default resource (""): only
// the keys set there.
std::vector<ConfigEntry> describe_broker(BrokerServices& services,
                                         const std::optional<std::vector<std::string>>& keys = {},
                                         bool per_broker = true);

}  // namespace skiff::api::admin
