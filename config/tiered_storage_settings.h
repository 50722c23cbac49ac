// TieredStorageSettings: tiered storage's broker keys (issue 54, KIP-405) as
// plain values: Kafka 4.4's RemoteLogManagerConfig keys, the storage
// manager's keys as Aiven's tiered-storage-for-apache-kafka names them under
// remote.log.storage.manager.impl.prefix (rsm.config.), and the metadata
// manager's under remote.log.metadata.manager.impl.prefix (rlmm.config.).
// Filled by the one key table (config/tiered_storage_keys.cc) and checked by
// check_tiered_storage there; server/ maps the S3 fields onto
// remote::s3::S3Config. Read-only after loading, like the rest of
// BrokerConfig; any thread.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::config {

// The class names a Kafka config names the plugins by. Aiven's
// RemoteStorageManager with its S3Storage backend selects Skiff's built-in
// S3 store; Kafka's TopicBasedRemoteLogMetadataManager, Skiff's metadata.
inline constexpr std::string_view kAivenRemoteStorageManager = "io.aiven.kafka.tieredstorage.RemoteStorageManager";
inline constexpr std::string_view kAivenS3Storage = "io.aiven.kafka.tieredstorage.storage.s3.S3Storage";
inline constexpr std::string_view kTopicBasedRemoteLogMetadataManager =
    "org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager";
inline constexpr std::string_view kDefaultRsmPrefix = "rsm.config.";
inline constexpr std::string_view kDefaultRlmmPrefix = "rlmm.config.";

// The object store: Aiven's storage.s3.* and storage.aws.* keys (under the
// storage manager's prefix) and Skiff's CA file.
struct TieredS3Settings {
  std::string endpoint_url;                            // storage.s3.endpoint.url; empty: AWS's, from the region
  std::string bucket;                                  // storage.s3.bucket.name
  std::string region;                                  // storage.s3.region
  bool path_style = false;                             // storage.s3.path.style.access.enabled (unset: virtual-hosted)
  std::string access_key_id;                           // storage.aws.access.key.id; empty: AWS_ACCESS_KEY_ID
  std::string secret_access_key;                       // storage.aws.secret.access.key; empty: AWS_SECRET_ACCESS_KEY
  std::string ca_file;                                 // skiff.remote.storage.s3.ca.file; empty: OpenSSL's default CAs
  int32_t multipart_part_size = 26214400;              // storage.s3.multipart.upload.part.size
  std::optional<int64_t> api_call_timeout_ms;          // storage.s3.api.call.timeout (all attempts)
  std::optional<int64_t> api_call_attempt_timeout_ms;  // storage.s3.api.call.attempt.timeout (one attempt)
};

struct TieredStorageSettings {
  static constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

  // remote.log.storage.system.enable: the broker serves tiered storage.
  bool enabled = false;
  std::string storage_manager_class;                                        // remote.log.storage.manager.class.name
  std::string storage_manager_prefix{kDefaultRsmPrefix};                    // remote.log.storage.manager.impl.prefix
  std::string metadata_manager_class{kTopicBasedRemoteLogMetadataManager};  // remote.log.metadata.manager.class.name
  std::string metadata_manager_prefix{kDefaultRlmmPrefix};                  // remote.log.metadata.manager.impl.prefix

  // The remote log manager (Kafka's RemoteLogManagerConfig).
  int64_t task_interval_ms = 30000;                        // remote.log.manager.task.interval.ms
  int64_t task_retry_backoff_ms = 500;                     // remote.log.manager.task.retry.backoff.ms
  int64_t task_retry_backoff_max_ms = 30000;               // remote.log.manager.task.retry.backoff.max.ms
  double task_retry_jitter = 0.2;                          // remote.log.manager.task.retry.jitter
  int32_t copier_threads = 10;                             // remote.log.manager.copier.thread.pool.size
  int32_t expiration_threads = 10;                         // remote.log.manager.expiration.thread.pool.size
  int32_t reader_threads = 10;                             // remote.log.reader.threads
  int32_t reader_max_pending_tasks = 100;                  // remote.log.reader.max.pending.tasks
  int32_t fetch_max_wait_ms = 500;                         // remote.fetch.max.wait.ms
  int64_t list_offsets_timeout_ms = 30000;                 // remote.list.offsets.request.timeout.ms
  int64_t copy_max_bytes_per_second = kUnlimited;          // remote.log.manager.copy.max.bytes.per.second
  int64_t fetch_max_bytes_per_second = kUnlimited;         // remote.log.manager.fetch.max.bytes.per.second
  int64_t index_file_cache_total_size_bytes = 1073741824;  // remote.log.index.file.cache.total.size.bytes
  int64_t index_file_cache_ttl_ms = 900000;                // remote.log.index.file.cache.ttl.ms (-1: size only)

  // Broker defaults of the topic keys (-2: retention.ms / retention.bytes).
  int64_t log_local_retention_ms = -2;     // log.local.retention.ms -> local.retention.ms
  int64_t log_local_retention_bytes = -2;  // log.local.retention.bytes -> local.retention.bytes
  int64_t log_remote_copy_lag_ms = 0;      // log.remote.copy.lag.ms -> remote.copy.lag.ms
  int64_t log_remote_copy_lag_bytes = -1;  // log.remote.copy.lag.bytes -> remote.copy.lag.bytes

  // The storage manager (Aiven's RemoteStorageManagerConfig, under the prefix).
  std::string storage_backend_class;  // storage.backend.class: must be Aiven's S3Storage when enabled
  std::string key_prefix;             // key.prefix: every object's key starts with it
  bool key_prefix_mask = false;       // key.prefix.mask: logs show the prefix as <prefix>
  int32_t chunk_size = 4194304;       // chunk.size (Aiven requires it; Skiff defaults to 4 MiB)
  std::optional<int64_t> upload_rate_limit_bytes_per_second;  // upload.rate.limit.bytes.per.second
  bool compression_enabled = false;                           // compression.enabled (not done: a warning)
  bool compression_heuristic_enabled = false;
  bool encryption_enabled = false;                  // encryption.enabled (refused when true)
  std::vector<std::string> custom_metadata_fields;  // custom.metadata.fields.include
  std::string segment_format = "kafka";             // segment.format (iceberg refused)
  std::string s3_storage_class = "STANDARD";        // storage.s3.storage.class (others refused)
  std::string credentials_provider_class;           // storage.aws.credentials.provider.class
  bool certificate_check_enabled = true;            // storage.aws.certificate.check.enabled (false refused)
  TieredS3Settings s3;

  // The metadata manager (Kafka's TopicBasedRemoteLogMetadataManagerConfig,
  // under its prefix): the __remote_log_metadata topic.
  int32_t metadata_topic_partitions = 50;         // remote.log.metadata.topic.num.partitions
  int16_t metadata_topic_replication_factor = 3;  // ...topic.replication.factor (one node: 1 is used)
  int16_t metadata_topic_min_isr = 2;             // ...topic.min.isr (one node: 1 is used)
  int64_t metadata_topic_retention_ms = -1;       // ...topic.retention.ms (-1: forever)
};

}  // namespace skiff::config
