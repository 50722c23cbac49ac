#include "api/admin/config_describer.h"

#include <algorithm>

#include "config/config_def.h"
#include "log/log_config.h"

namespace skiff::api::admin {
namespace {

// One topic-level config: its broker-level synonym (empty: none), type,
// Kafka's default (used when the log does not hold the key itself), doc.
struct TopicKey {
  const char* name;
  const char* broker_synonym;
  ConfigType type;
  const char* kafka_default;
  const char* doc;
};

const std::vector<TopicKey>& topic_keys() {
  static const std::vector<TopicKey> keys = {
      {"cleanup.policy", "log.cleanup.policy", ConfigType::kList, "delete", "Retention policy: delete (compaction is accepted but not performed by Skiff)."},
      {"compression.gzip.level", "compression.gzip.level", ConfigType::kInt, "-1", "Compression level for gzip."},
      {"compression.lz4.level", "compression.lz4.level", ConfigType::kInt, "9", "Compression level for lz4."},
      {"compression.type", "compression.type", ConfigType::kString, "producer", "Final compression type (Skiff keeps the producer's)."},
      {"compression.zstd.level", "compression.zstd.level", ConfigType::kInt, "3", "Compression level for zstd."},
      {"delete.retention.ms", "log.cleaner.delete.retention.ms", ConfigType::kLong, "86400000", "How long delete tombstones are retained (compacted topics)."},
      {"file.delete.delay.ms", "log.segment.delete.delay.ms", ConfigType::kLong, "60000", "Delay before deleting a file from the filesystem."},
      {"flush.messages", "log.flush.interval.messages", ConfigType::kLong, nullptr, "fsync after this many messages."},
      {"flush.ms", "log.flush.interval.ms", ConfigType::kLong, nullptr, "fsync data older than this."},
      {"follower.replication.throttled.replicas", "", ConfigType::kList, "", "Replicas throttled on the follower side (no effect on one node)."},
      {"index.interval.bytes", "log.index.interval.bytes", ConfigType::kInt, nullptr, "Bytes between offset index entries."},
      {"leader.replication.throttled.replicas", "", ConfigType::kList, "", "Replicas throttled on the leader side (no effect on one node)."},
      {"local.retention.bytes", "log.local.retention.bytes", ConfigType::kLong, "-2", "Local retention with tiered storage (not used)."},
      {"local.retention.ms", "log.local.retention.ms", ConfigType::kLong, "-2", "Local retention with tiered storage (not used)."},
      {"max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms", ConfigType::kLong, "9223372036854775807", "Longest time a message stays uncompacted."},
      {"max.message.bytes", "message.max.bytes", ConfigType::kInt, nullptr, "Largest record batch accepted."},
      {"message.timestamp.after.max.ms", "log.message.timestamp.after.max.ms", ConfigType::kLong, nullptr, "How far in the future a CreateTime timestamp may be."},
      {"message.timestamp.before.max.ms", "log.message.timestamp.before.max.ms", ConfigType::kLong, nullptr, "How far in the past a CreateTime timestamp may be."},
      {"message.timestamp.type", "log.message.timestamp.type", ConfigType::kString, nullptr, "CreateTime or LogAppendTime."},
      {"min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio", ConfigType::kDouble, "0.5", "Compaction trigger ratio."},
      {"min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms", ConfigType::kLong, "0", "Shortest time a message stays uncompacted."},
      {"min.insync.replicas", "min.insync.replicas", ConfigType::kInt, "1", "Replicas that must acknowledge acks=all (one node: 1)."},
      {"preallocate", "log.preallocate", ConfigType::kBoolean, "false", "Preallocate segment files."},
      {"remote.log.copy.disable", "", ConfigType::kBoolean, "false", "Tiered storage (not used)."},
      {"remote.log.delete.on.disable", "", ConfigType::kBoolean, "false", "Tiered storage (not used)."},
      {"remote.storage.enable", "", ConfigType::kBoolean, "false", "Tiered storage (not used)."},
      {"retention.bytes", "log.retention.bytes", ConfigType::kLong, nullptr, "Largest size of a partition before old segments are deleted (-1: no limit)."},
      {"retention.ms", "log.retention.ms", ConfigType::kLong, nullptr, "Age after which segments are deleted (-1: never)."},
      {"segment.bytes", "log.segment.bytes", ConfigType::kInt, nullptr, "Segment file size."},
      {"segment.index.bytes", "log.index.size.max.bytes", ConfigType::kInt, nullptr, "Size of the offset and time index files."},
      {"segment.jitter.ms", "log.roll.jitter.ms", ConfigType::kLong, "0", "Random jitter subtracted from segment.ms."},
      {"segment.ms", "log.roll.ms", ConfigType::kLong, nullptr, "Age after which a segment is rolled."},
      {"unclean.leader.election.enable", "unclean.leader.election.enable", ConfigType::kBoolean, "false", "No effect on one node."},
  };
  return keys;
}

bool wanted(const std::optional<std::vector<std::string>>& keys, const std::string& name) {
  return !keys || keys->empty() || std::find(keys->begin(), keys->end(), name) != keys->end();
}

// Where the broker-level value of `broker_key` came from.
ConfigSource broker_source(const config::BrokerConfig& c, const std::string& broker_key) {
  auto it = c.effective.find(broker_key);
  if (it == c.effective.end() || it->second.source == config::ConfigSource::kDefault) return ConfigSource::kDefaultConfig;
  return ConfigSource::kStaticBrokerConfig;
}

std::vector<ConfigEntry> topic_entries(BrokerServices& services, const storage::LogConfig& cfg,
                                       const std::map<std::string, std::string>& overrides,
                                       const std::optional<std::vector<std::string>>& keys) {
  const auto in_effect = cfg.effective_values();
  const auto defaults = services.logs.defaults().effective_values();
  std::vector<ConfigEntry> out;
  for (const auto& k : topic_keys()) {
    if (!wanted(keys, k.name)) continue;
    ConfigEntry e;
    e.name = k.name;
    e.type = k.type;
    e.documentation = k.doc;
    std::string broker_value = k.kafka_default ? k.kafka_default : "";
    if (!k.kafka_default && defaults.count(k.name)) broker_value = defaults.at(k.name);
    ConfigSource bsrc = *k.broker_synonym ? broker_source(services.config, k.broker_synonym) : ConfigSource::kDefaultConfig;
    if (k.kafka_default) bsrc = ConfigSource::kDefaultConfig;  // Skiff has no broker key for these
    if (auto it = overrides.find(k.name); it != overrides.end()) {
      e.source = ConfigSource::kTopicConfig;
      e.value = it->second;
      e.synonyms.push_back({k.name, it->second, ConfigSource::kTopicConfig});
    } else {
      e.source = bsrc;
      e.value = k.kafka_default ? broker_value : in_effect.at(k.name);
    }
    if (*k.broker_synonym && bsrc == ConfigSource::kStaticBrokerConfig)
      e.synonyms.push_back({k.broker_synonym, broker_value, ConfigSource::kStaticBrokerConfig});
    e.synonyms.push_back({*k.broker_synonym ? k.broker_synonym : k.name, broker_value, ConfigSource::kDefaultConfig});
    out.push_back(std::move(e));
  }
  return out;
}

ConfigType to_type(config::ConfigType t) {
  switch (t) {
    case config::ConfigType::kInt: return ConfigType::kInt;
    case config::ConfigType::kLong: return ConfigType::kLong;
    case config::ConfigType::kBool: return ConfigType::kBoolean;
    case config::ConfigType::kString: return ConfigType::kString;
    case config::ConfigType::kList: return ConfigType::kList;
  }
  return ConfigType::kUnknown;
}

}  // namespace

bool is_topic_config(const std::string& name) {
  for (const auto& k : topic_keys())
    if (name == k.name) return true;
  return false;
}

std::optional<std::vector<ConfigEntry>> describe_topic(BrokerServices& services, const std::string& topic,
                                                       const std::optional<std::vector<std::string>>& keys) {
  auto info = services.logs.topic(topic);
  auto cfg = services.logs.topic_config(topic);
  if (!info || !cfg) return std::nullopt;
  return topic_entries(services, *cfg, info->overrides, keys);
}

std::vector<ConfigEntry> describe_new_topic(BrokerServices& services,
                                            const std::map<std::string, std::string>& overrides) {
  auto c = storage::LogConfig::with_overrides(services.logs.defaults(), overrides);
  const auto* cfg = std::get_if<storage::LogConfig>(&c);
  return topic_entries(services, cfg ? *cfg : services.logs.defaults(), overrides, std::nullopt);
}

std::vector<ConfigEntry> describe_broker(BrokerServices& services, const std::optional<std::vector<std::string>>& keys) {
  std::vector<ConfigEntry> out;
  for (const auto& def : config::config_defs()) {
    if (!wanted(keys, def.name)) continue;
    ConfigEntry e;
    e.name = def.name;
    e.read_only = true;
    e.type = to_type(def.type);
    e.documentation = def.doc;
    auto it = services.config.effective.find(def.name);
    e.value = it != services.config.effective.end() ? it->second.value : def.default_value;
    e.source = broker_source(services.config, def.name);
    if (e.source == ConfigSource::kStaticBrokerConfig) e.synonyms.push_back({def.name, e.value, e.source});
    e.synonyms.push_back({def.name, def.default_value, ConfigSource::kDefaultConfig});
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace skiff::api::admin
