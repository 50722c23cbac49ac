#include "server/storage_config.h"

#include <algorithm>
#include <stdexcept>

namespace skiff::server {

storage::LogManagerConfig make_log_manager_config(const config::BrokerConfig& config) {
  storage::LogManagerConfig lc;
  for (const auto& d : config.log_dirs) lc.log_dirs.emplace_back(d);
  lc.node_id = config.node_id;
  lc.cluster_id = config.kraft.cluster_id;  // CLUSTER_ID (the apache/kafka image's); empty: generated
  lc.retention_check_interval_ms = config.log_retention_check_interval_ms;
  lc.max_partitions = config.max_partitions;
  lc.cleaner_enable = config.log_cleaner_enable && config.log_cleaner_threads > 0;
  lc.cleaner.threads = config.log_cleaner_threads;
  lc.cleaner.dedupe_buffer_bytes = static_cast<size_t>(config.log_cleaner_dedupe_buffer_size);
  lc.cleaner.io_buffer_bytes = static_cast<size_t>(std::max(config.log_cleaner_io_buffer_size, 4096));
  lc.cleaner.backoff_ms = config.log_cleaner_backoff_ms;
  lc.cleaner.load_factor = config.log_cleaner_io_buffer_load_factor;
  lc.cleaner.max_io_bytes_per_second = config.log_cleaner_io_max_bytes_per_second;
  std::map<std::string, std::string> props;
  for (const auto& [key, entry] : config.effective) props[key] = entry.value;
  // The loader already resolved .minutes/.hours into these.
  props["log.retention.ms"] = std::to_string(config.log_retention_ms);
  props["log.roll.ms"] = std::to_string(config.log_roll_ms);
  if (config.log_flush_interval_ms < 0) props.erase("log.flush.interval.ms");  // unset: the OS decides
  auto defaults = storage::LogConfig::from_broker_properties(props);
  if (!defaults) throw std::invalid_argument(defaults.error().message);
  lc.defaults = std::move(*defaults);
  // The broker's side of the topic checks (remote.storage.enable and its keys).
  const auto& tiered = config.tiered_storage;
  lc.remote_storage_system_enabled = tiered.enabled;
  lc.topic_key_defaults["remote.copy.lag.ms"] = std::to_string(tiered.log_remote_copy_lag_ms);
  lc.topic_key_defaults["remote.copy.lag.bytes"] = std::to_string(tiered.log_remote_copy_lag_bytes);
  lc.topic_key_defaults["local.retention.ms"] = std::to_string(tiered.log_local_retention_ms);
  lc.topic_key_defaults["local.retention.bytes"] = std::to_string(tiered.log_local_retention_bytes);
  return lc;
}

}  // namespace skiff::server
