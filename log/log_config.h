// LogConfig: the per-partition log settings (Kafka's topic-level configs),
// built from broker defaults plus per-topic overrides. A plain value; Log
// holds an immutable copy that LogManager can replace live. Which keys exist,
// their validation and defaults come from the one table in
// log/topic_config_def.h; this struct holds the values the log acts on.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "log/result.h"
#include "log/types.h"

namespace skiff::storage {

struct TopicConfigContext;  // log/topic_config_def.h

struct LogConfig {
  static constexpr int64_t kMaxLong = std::numeric_limits<int64_t>::max();

  int64_t segment_bytes = 1LL << 30;                                  // segment.bytes
  int64_t segment_ms = 7LL * 24 * 3600 * 1000;                        // segment.ms
  int64_t retention_ms = 7LL * 24 * 3600 * 1000;                      // retention.ms (-1 = forever)
  int64_t retention_bytes = -1;                                       // retention.bytes (-1 = no limit)
  int64_t flush_messages = kMaxLong;                                  // flush.messages
  int64_t flush_ms = kMaxLong;                                        // flush.ms
  int64_t max_message_bytes = 1048588;                                // max.message.bytes
  TimestampType message_timestamp_type = TimestampType::kCreateTime;  // message.timestamp.type
  int64_t message_timestamp_before_max_ms = kMaxLong;                 // message.timestamp.before.max.ms
  int64_t message_timestamp_after_max_ms = 3600000;  // message.timestamp.after.max.ms (Kafka 4 default)
  int64_t index_interval_bytes = 4096;               // index.interval.bytes
  int64_t segment_index_bytes = 10 * 1024 * 1024;    // segment.index.bytes
  int64_t internal_segment_bytes = 0;                // internal.segment.bytes (Kafka's test key; 0: unset)
  bool retention_deletes = true;                     // cleanup.policy contains "delete"
  bool preallocate = false;                          // preallocate (new segments; LogSegment::preallocate)
  // Log cleaner (log_cleaner.h).
  bool compact = false;                      // cleanup.policy contains "compact"
  double min_cleanable_dirty_ratio = 0.5;    // min.cleanable.dirty.ratio
  int64_t min_compaction_lag_ms = 0;         // min.compaction.lag.ms
  int64_t max_compaction_lag_ms = kMaxLong;  // max.compaction.lag.ms
  int64_t delete_retention_ms = 86400000;    // delete.retention.ms
  // Tiered storage (KIP-405; docs/tiered-storage.md). remote_storage_enable
  // is the effective switch: whoever builds the config leaves it false when
  // the broker's remote.log.storage.system.enable is off (Kafka's
  // UnifiedLog.remoteLogEnabled also needs that), as topic_config_def.h's
  // validation refuses the key then.
  bool remote_storage_enable = false;         // remote.storage.enable
  int64_t local_retention_ms = -2;            // local.retention.ms (-2: retention.ms)
  int64_t local_retention_bytes = -2;         // local.retention.bytes (-2: retention.bytes)
  bool remote_log_copy_disable = false;       // remote.log.copy.disable
  bool remote_log_delete_on_disable = false;  // remote.log.delete.on.disable

  // The size at which a segment rolls: internal.segment.bytes when set.
  int64_t segment_size() const { return internal_segment_bytes > 0 ? internal_segment_bytes : segment_bytes; }
  // Kafka's LogConfig.localRetentionMs()/localRetentionBytes(): -2 means the
  // total retention (retention.ms / retention.bytes).
  int64_t effective_local_retention_ms() const { return local_retention_ms == -2 ? retention_ms : local_retention_ms; }
  int64_t effective_local_retention_bytes() const {
    return local_retention_bytes == -2 ? retention_bytes : local_retention_bytes;
  }
  // Kafka's remoteLogEnabledAndRemoteCopyEnabled: segments are uploaded, so
  // local retention (the effective local.retention.*) deletes only uploaded
  // segments and moves the local start, not the log start.
  bool tiering_active() const { return remote_storage_enable && !remote_log_copy_disable; }

  // Overrides kept verbatim (for DescribeConfigs and persistence), including
  // accepted Kafka topic configs that the log itself does not act on.
  std::map<std::string, std::string> overrides;

  // Applies one topic-level key after Kafka's check of its value. The error
  // (kInvalidConfig) names the key on an unknown key or a bad value.
  Result<void> set(const std::string& key, const std::string& value);

  // Topic overrides over broker defaults, validated as Kafka's
  // LogConfig.validate does. The error's message is Kafka's, naming the key.
  static Result<LogConfig> with_overrides(const LogConfig& broker_defaults,
                                          const std::map<std::string, std::string>& overrides);
  // The same with the broker's side (Kafka's LogConfig.validate with
  // isRemoteLogStorageSystemEnabled): remote.storage.enable=true is checked
  // as Kafka checks it, and is in effect only with the system enabled.
  static Result<LogConfig> with_overrides(const LogConfig& broker_defaults,
                                          const std::map<std::string, std::string>& overrides,
                                          const TopicConfigContext& context);
  // For overrides stored by an older Skiff (startup): keys that are no longer
  // valid are left out and returned in `dropped` with the reason; the rest apply.
  // remote.storage.enable=true stays stored (and described) but is in effect
  // only when `remote_storage_system_enabled` (Kafka's remoteLogEnabled).
  static LogConfig with_stored_overrides(const LogConfig& broker_defaults,
                                         const std::map<std::string, std::string>& overrides,
                                         std::map<std::string, std::string>* dropped,
                                         bool remote_storage_system_enabled = false);
  // Broker-level defaults from server properties ("log.segment.bytes",
  // "log.roll.ms"/"log.roll.hours", "log.retention.{ms,minutes,hours,bytes}",
  // "log.flush.interval.{messages,ms}", "message.max.bytes",
  // "log.message.timestamp.type", "log.index.interval.bytes",
  // "log.index.size.max.bytes", "log.local.retention.{ms,bytes}", ...).
  // Unrelated keys are ignored.
  static Result<LogConfig> from_broker_properties(const std::map<std::string, std::string>& props);

  // Every described topic key with its value in effect: overrides, the log's
  // own fields, and Kafka's default for the keys the log does not act on.
  std::map<std::string, std::string> effective_values() const;
};

}  // namespace skiff::storage
