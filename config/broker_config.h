// BrokerConfig: the broker's effective, validated configuration.
//
// Built once at startup by ConfigLoader from defaults < YAML file <
// environment < command line, then read-only and shared by every thread.
// Runtime changes make new snapshots (config/dynamic_broker_config.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/kraft_settings.h"
#include "config/listener.h"
#include "config/sasl_settings.h"
#include "config/ssl_settings.h"
#include "config/tiered_storage_settings.h"

namespace skiff::config {

// The listener names of the HTTPS endpoints' listener.name.<name>.ssl.* keys.
inline constexpr std::string_view kHttpTlsName = "http";                       // http.listeners
inline constexpr std::string_view kSchemaRegistryTlsName = "schema_registry";  // schema.registry.listeners
inline constexpr std::string_view kRestProxyTlsName = "rest_proxy";            // rest.proxy.listeners

// The REST proxy's rest.proxy.* bounds (config/rest_proxy_config_def.cc).
struct RestProxySettings {
  int64_t consumer_instance_timeout_ms = 300000;
  int64_t consumer_request_timeout_ms = 1000;
  int64_t consumer_request_max_bytes = 67108864;
  int32_t max_instances_per_user = 100;
  int32_t max_records_per_response = 10000;
  int64_t max_request_bytes = 67108864;
  int32_t worker_threads = 8;
};

// kDynamic*: set at runtime (config/dynamic_broker_config.h), never by the loader.
enum class ConfigSource { kDefault, kFile, kEnvironment, kCommandLine, kDynamicDefault, kDynamicBroker };
const char* to_string(ConfigSource s);

// One SCRAM credential to create at startup unless the user already has one
// for that mechanism (scram.bootstrap.users, config/scram_config_def.cc).
// iterations 0: the mechanism's default (4096).
struct ScramBootstrapUser {
  std::string mechanism;  // "SCRAM-SHA-256" or "SCRAM-SHA-512"
  std::string name;
  std::string password;
  int32_t iterations = 0;
};

struct BrokerConfig {
  // Identity and endpoints.
  int32_t node_id = 1;
  std::vector<Listener> listeners;
  std::vector<Listener> advertised_listeners;  // empty: derived from listeners
  std::map<std::string, std::string> listener_security_protocol_map;
  std::vector<std::string> log_dirs;
  // http.listeners: the HTTP endpoints (/healthz, /readyz; server/http_routes.h),
  // name "http"; empty: no HTTP listener. Whether the value is the default
  // (a busy port only warns) is in `effective`.
  std::vector<Listener> http_listeners;
  // schema.registry.listeners: the Schema Registry's HTTP endpoints
  // (apps/schema_registry/); empty: no registry.
  std::vector<Listener> schema_registry_listeners;
  // rest.proxy.listeners: the REST proxy's HTTP endpoints (apps/rest_proxy/);
  // empty: no proxy. Its other keys in rest_proxy.
  std::vector<Listener> rest_proxy_listeners;
  RestProxySettings rest_proxy;
  bool http_console_write_enabled = true;  // http.console.write.enabled: the web console may change things
  bool metrics_partition_series = true;    // skiff.metrics.partition.series.enable
  bool metrics_requests = true;            // skiff.metrics.requests.enable
  // TLS: the ssl.* keys, and per listener (by its name in `listeners`) with
  // its listener.name.<name>.ssl.* overrides applied; ssl_for() picks.
  SslSettings ssl;
  std::map<std::string, SslSettings> listener_ssl;
  const SslSettings& ssl_for(const std::string& listener) const {
    auto it = listener_ssl.find(listener);
    return it == listener_ssl.end() ? ssl : it->second;
  }
  // The TLS of the https:// endpoints: the ssl.* keys with, key by key,
  // listener.name.http.ssl.* (http.listeners) or
  // listener.name.schema_registry.ssl.* (schema.registry.listeners) over
  // them; kHttpTlsName and kSchemaRegistryTlsName are those pseudo-listener
  // names, matched ignoring case as listener names are.
  SslSettings http_ssl;
  SslSettings schema_registry_ssl;
  SslSettings rest_proxy_ssl;  // listener.name.rest_proxy.ssl.* (rest.proxy.listeners)
  // SASL: the sasl.* keys, and per listener likewise (sasl_for() picks).
  SaslSettings sasl;
  std::map<std::string, SaslSettings> listener_sasl;
  // The JWKS URLs OAUTHBEARER's JWT validator may fetch (Kafka's JVM system
  // property org.apache.kafka.sasl.oauthbearer.allowed.urls; empty: none).
  std::vector<std::string> oauthbearer_allowed_urls;
  const SaslSettings& sasl_for(const std::string& listener) const {
    auto it = listener_sasl.find(listener);
    return it == listener_sasl.end() ? sasl : it->second;
  }
  // The listener's security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT,
  // SASL_SSL); "" for a name not in listener.security.protocol.map.
  std::string security_protocol(const std::string& listener) const {
    auto it = listener_security_protocol_map.find(listener);
    return it == listener_security_protocol_map.end() ? "" : it->second;
  }
  bool uses_tls(const std::string& listener) const {
    auto p = security_protocol(listener);
    return p == "SSL" || p == "SASL_SSL";
  }
  bool uses_sasl(const std::string& listener) const { return security_protocol(listener).starts_with("SASL_"); }
  int32_t connection_failed_authentication_delay_ms = 100;
  int32_t sasl_server_max_receive_size = 524288;

  // Authorization (security/acl, config/authorizer_keys.cc). Empty class name: no
  // authorizer, every request allowed and the ACL APIs answer SECURITY_DISABLED.
  std::string authorizer_class_name;
  std::vector<std::string> super_users;  // "User:alice", from super.users
  bool allow_everyone_if_no_acl_found = false;
  // SCRAM credentials created at startup if missing (scram.bootstrap.users).
  std::vector<ScramBootstrapUser> scram_bootstrap_users;
  // Delegation tokens (KIP-48, security/sasl/delegation_tokens.h): the
  // delegation.token.* keys; an empty secret key disables them.
  std::string delegation_token_secret_key;
  int64_t delegation_token_max_lifetime_ms = 604'800'000;
  int64_t delegation_token_expiry_time_ms = 86'400'000;
  int64_t delegation_token_expiry_check_interval_ms = 3'600'000;

  // Threads and queues.
  int32_t num_network_threads = 3;  // config_def.cc's default follows the CPUs
  int32_t num_io_threads = 8;
  int32_t network_coalesce_us = 500;
  int32_t queued_max_requests = 500;
  // Request bytes read but not yet answered before Processors stop reading
  // (Kafka's default is -1, unbounded; ours keeps a dev broker's memory small).
  int64_t queued_max_request_bytes = 100 * 1024 * 1024;

  // Sockets and connections.
  int32_t socket_request_max_bytes = 100 * 1024 * 1024;
  int32_t socket_send_buffer_bytes = 100 * 1024;     // -1: OS default
  int32_t socket_receive_buffer_bytes = 100 * 1024;  // -1: OS default
  int64_t connections_max_idle_ms = 10 * 60 * 1000;
  int32_t max_connections = INT32_MAX;
  int32_t max_connections_per_ip = INT32_MAX;
  std::map<std::string, int32_t> max_connections_per_ip_overrides;

  // Storage defaults (topic overrides apply on top, see log/).
  int64_t log_segment_bytes = 1LL << 30;
  int64_t log_roll_ms = 7LL * 24 * 3600 * 1000;
  int64_t log_retention_ms = 7LL * 24 * 3600 * 1000;  // -1: forever
  int64_t log_retention_bytes = -1;
  int64_t log_retention_check_interval_ms = 5 * 60 * 1000;
  int64_t log_flush_interval_messages = INT64_MAX;
  int64_t log_flush_interval_ms = -1;  // -1: unset (leave it to the OS)
  int32_t log_index_interval_bytes = 4096;
  int32_t log_index_size_max_bytes = 10 * 1024 * 1024;
  bool log_preallocate = false;  // default preallocate of topics (reaches LogConfig through `effective`)
  int32_t message_max_bytes = 1048588;
  std::string log_message_timestamp_type = "CreateTime";
  std::string log_cleanup_policy = "delete";  // "delete", "compact" or both, comma-separated
  // Moving a partition between log dirs (AlterReplicaLogDirs): bytes copied
  // per second, INT64_MAX unbounded (replica.alter.log.dirs.io.max.bytes.per.second).
  int64_t replica_alter_log_dirs_io_max_bytes_per_second = INT64_MAX;
  // Replication throttles of reassignments: accepted (kafka-reassign-partitions
  // sets and clears them), no effect on one node with no followers.
  int64_t leader_replication_throttled_rate = INT64_MAX;
  int64_t follower_replication_throttled_rate = INT64_MAX;

  // Log cleaner (compaction, log/log_cleaner_manager.h). The topic-level
  // defaults log.cleaner.{min,max}.compaction.lag.ms and
  // log.cleaner.delete.retention.ms reach LogConfig through `effective`.
  bool log_cleaner_enable = true;
  int32_t log_cleaner_threads = 1;
  int64_t log_cleaner_dedupe_buffer_size = 128LL * 1024 * 1024;
  int32_t log_cleaner_io_buffer_size = 512 * 1024;
  double log_cleaner_io_buffer_load_factor = 0.9;
  double log_cleaner_io_max_bytes_per_second = 1.7976931348623157e308;
  int64_t log_cleaner_backoff_ms = 15000;
  int64_t log_cleaner_min_compaction_lag_ms = 0;
  int64_t log_cleaner_max_compaction_lag_ms = INT64_MAX;
  int64_t log_cleaner_delete_retention_ms = 24LL * 3600 * 1000;

  // Topics.
  bool auto_create_topics_enable = true;
  int32_t num_partitions = 1;
  int16_t default_replication_factor = 1;
  bool delete_topic_enable = true;
  // CreateTopics with replication factor > 1: accept it as 1 (dev brokers
  // running an app configured for production) instead of INVALID_REPLICATION_FACTOR.
  bool accept_replication_factor = false;
  // skiff.max.partitions: the broker's total, sized to its descriptor and
  // memory budget (100,000 partitions under a 20,000-descriptor limit).
  int32_t max_partitions = 100000;

  // Consumer groups (coordinator/group/).
  int32_t group_min_session_timeout_ms = 6000;
  int32_t group_max_session_timeout_ms = 1800000;
  int32_t group_max_size = INT32_MAX;
  int32_t group_initial_rebalance_delay_ms = 0;
  int64_t offsets_retention_ms = 7LL * 24 * 3600 * 1000;  // offsets.retention.minutes
  int64_t offsets_retention_check_interval_ms = 600000;
  int32_t offset_metadata_max_bytes = 4096;
  int32_t offsets_topic_num_partitions = 50;
  int32_t offsets_topic_segment_bytes = 104857600;
  // KIP-848's consumer groups (group.consumer.*, Kafka 4.4's defaults).
  int32_t group_consumer_session_timeout_ms = 45000;
  int32_t group_consumer_min_session_timeout_ms = 45000;
  int32_t group_consumer_max_session_timeout_ms = 60000;
  int32_t group_consumer_heartbeat_interval_ms = 5000;
  int32_t group_consumer_min_heartbeat_interval_ms = 5000;
  int32_t group_consumer_max_heartbeat_interval_ms = 15000;
  int32_t group_consumer_min_assignment_interval_ms = 0;  // bounds consumer.assignment.interval.ms
  int32_t group_consumer_max_assignment_interval_ms = 15000;
  int32_t group_consumer_max_size = INT32_MAX;
  std::vector<std::string> group_consumer_assignors{"uniform", "range"};  // the first is the default
  std::string group_consumer_migration_policy = "bidirectional";
  // KIP-932's share groups (group.share.*).
  int32_t group_share_session_timeout_ms = 45000;
  int32_t group_share_min_session_timeout_ms = 45000;
  int32_t group_share_max_session_timeout_ms = 60000;
  int32_t group_share_heartbeat_interval_ms = 5000;
  int32_t group_share_min_heartbeat_interval_ms = 5000;
  int32_t group_share_max_heartbeat_interval_ms = 15000;
  int32_t group_share_max_size = 200;
  int32_t group_share_assignment_interval_ms = 1000;
  int32_t group_share_min_assignment_interval_ms = 0;
  int32_t group_share_max_assignment_interval_ms = 15000;
  int32_t group_share_initialize_retry_interval_ms = 30000;
  int32_t group_share_delivery_count_limit = 5;
  int32_t group_share_min_delivery_count_limit = 2;
  int32_t group_share_max_delivery_count_limit = 10;
  int32_t group_share_record_lock_duration_ms = 30000;
  int32_t group_share_min_record_lock_duration_ms = 15000;
  int32_t group_share_max_record_lock_duration_ms = 60000;
  int32_t group_share_partition_max_record_locks = 2000;
  int32_t group_share_min_partition_max_record_locks = 100;
  int32_t group_share_max_partition_max_record_locks = 4000;
  int32_t group_share_max_share_sessions = 2000;
  std::vector<std::string> group_share_assignors{"simple"};
  // KIP-1071's streams groups (group.streams.*, Kafka 4.4's defaults and
  // bounds; config/streams_group_keys.cc). The ones after max_size and the
  // initial delay are accepted and checked as Kafka checks them, not used.
  int32_t group_streams_session_timeout_ms = 45000;
  int32_t group_streams_min_session_timeout_ms = 45000;
  int32_t group_streams_max_session_timeout_ms = 60000;
  int32_t group_streams_heartbeat_interval_ms = 5000;
  int32_t group_streams_min_heartbeat_interval_ms = 5000;
  int32_t group_streams_max_heartbeat_interval_ms = 15000;
  int32_t group_streams_max_size = INT32_MAX;
  int32_t group_streams_num_standby_replicas = 0;
  int32_t group_streams_max_standby_replicas = 2;
  int32_t group_streams_initial_rebalance_delay_ms = 0;  // Kafka: 3000
  int32_t group_streams_min_assignment_interval_ms = 0;
  int32_t group_streams_max_assignment_interval_ms = 15000;
  int32_t group_streams_task_offset_interval_ms = 60000;
  int32_t group_streams_min_task_offset_interval_ms = 15000;
  int32_t group_streams_num_warmup_replicas = 2;
  int32_t group_streams_max_warmup_replicas = 20;
  int64_t group_streams_acceptable_recovery_lag = 10000;
  std::vector<std::string> group_streams_rack_aware_assignment_tags;
  std::string group_streams_topology_description_plugin_class;
  // KIP-1191: share groups' dead-letter queues.
  bool errors_deadletterqueue_auto_create_topics_enable = false;
  std::string errors_deadletterqueue_topic_name_prefix = "dlq.";

  // Transactions (coordinator/txn/txn_host.h), Kafka's names and defaults. The state log
  // has one partition on a single node; num.partitions, replication.factor
  // and min.isr are accepted for existing config files and not used.
  int32_t transaction_max_timeout_ms = 900000;
  int32_t transactional_id_expiration_ms = 604800000;
  int32_t transaction_abort_timed_out_interval_ms = 10000;
  int32_t add_partitions_to_txn_retry_backoff_max_ms = 100;
  int32_t transaction_remove_expired_interval_ms = 3600000;
  int32_t transaction_state_log_num_partitions = 50;
  int32_t transaction_state_log_segment_bytes = 104857600;
  int16_t transaction_state_log_replication_factor = 3;
  int32_t transaction_state_log_min_isr = 2;

  // The share coordinator (coordinator/share/share_coordinator.h), Kafka's
  // ShareCoordinatorConfig names and defaults. Replication, threads, write
  // timeout, load buffer, linger and cached buffer are accepted, not used.
  int32_t share_coordinator_state_topic_num_partitions = 50;
  int32_t share_coordinator_state_topic_segment_bytes = 104857600;
  int32_t share_coordinator_snapshot_update_records_per_snapshot = 500;
  int32_t share_coordinator_state_topic_prune_interval_ms = 300000;
  int32_t share_coordinator_cold_partition_snapshot_interval_ms = 300000;
  int16_t share_coordinator_state_topic_replication_factor = 3;
  int16_t share_coordinator_state_topic_min_isr = 2;
  int32_t share_coordinator_threads = 1;
  int32_t share_coordinator_write_timeout_ms = 5000;
  int32_t share_coordinator_load_buffer_size = 5242880;
  int32_t share_coordinator_append_linger_ms = -1;
  int32_t share_coordinator_cached_buffer_max_bytes = 1048588;

  // The KRaft keys of a single combined node (config/kraft_keys.cc).
  KraftSettings kraft;

  // Tiered storage (issue 54; config/tiered_storage_keys.cc).
  TieredStorageSettings tiered_storage;

  // Process.
  std::string log_level = "info";
  std::string log_file;  // empty: stdout only
  int64_t shutdown_timeout_ms = 10'000;
  int32_t log_fd_cache_size = 0;  // skiff.log.fd.cache.size; 0: from RLIMIT_NOFILE

  // The raw value and origin of every key, for --print-config.
  struct Entry {
    std::string value;
    ConfigSource source;
  };
  std::map<std::string, Entry> effective;
  // Whether `key` was set (file, environment, command line), not left at its default.
  bool set_explicitly(const std::string& key) const {
    auto it = effective.find(key);
    return it != effective.end() && it->second.source != ConfigSource::kDefault;
  }
  // Things worth saying that are not errors (logged at startup).
  std::vector<std::string> warnings;
};

}  // namespace skiff::config
