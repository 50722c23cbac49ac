#include "server/broker_components.h"

#include "api/api_log.h"
#include "api/feature_levels.h"
#include "api/quota/client_quota_store.h"
#include "api/quota/quota_manager.h"
#include "api/telemetry/client_metrics_manager.h"
#include "common/wall_clock.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/group_dynamic_config.h"
#include "coordinator/share/share_coordinator.h"
#include "coordinator/txn/producer_ids.h"
#include "coordinator/txn/txn_host.h"
#include "security/acl/authorizer.h"
#include "security/sasl/delegation_tokens.h"
#include "security/sasl/sasl_mechanisms.h"
#include "security/sasl/scram_bootstrap.h"
#include "security/sasl/scram_server.h"
#include "server/share_persister.h"
#include "server/share_ports.h"

namespace skiff::server {
namespace {

// KIP-1071's streams groups: the group.streams.* keys the coordinator uses.
void set_streams_group_config(group::GroupConfig& g, const config::BrokerConfig& c) {
  g.streams_session_timeout_ms = c.group_streams_session_timeout_ms;
  g.streams_min_session_timeout_ms = c.group_streams_min_session_timeout_ms;
  g.streams_max_session_timeout_ms = c.group_streams_max_session_timeout_ms;
  g.streams_heartbeat_interval_ms = c.group_streams_heartbeat_interval_ms;
  g.streams_min_heartbeat_interval_ms = c.group_streams_min_heartbeat_interval_ms;
  g.streams_max_heartbeat_interval_ms = c.group_streams_max_heartbeat_interval_ms;
  g.streams_max_size = c.group_streams_max_size;
  g.streams_num_standby_replicas = c.group_streams_num_standby_replicas;
  g.streams_max_standby_replicas = c.group_streams_max_standby_replicas;
  g.streams_initial_rebalance_delay_ms = c.group_streams_initial_rebalance_delay_ms;
  g.streams_task_offset_interval_ms = c.group_streams_task_offset_interval_ms;
  g.streams_min_task_offset_interval_ms = c.group_streams_min_task_offset_interval_ms;
  g.streams_num_warmup_replicas = c.group_streams_num_warmup_replicas;
  g.streams_max_warmup_replicas = c.group_streams_max_warmup_replicas;
  g.streams_acceptable_recovery_lag = c.group_streams_acceptable_recovery_lag;
  g.streams_rack_aware_assignment_tags = c.group_streams_rack_aware_assignment_tags;
  g.streams_min_assignment_interval_ms = c.group_streams_min_assignment_interval_ms;
  g.streams_max_assignment_interval_ms = c.group_streams_max_assignment_interval_ms;
}

// The group keys whose broker synonyms Skiff accepts without using
// (config/kafka_dynamic_keys.cc): their values as the broker started; and
// Kafka's internal ones, described for a group only when set explicitly
// (Kafka's extractGroupConfigMap).
void set_group_key_defaults(group::GroupConfig& g, const config::BrokerConfig& c) {
  auto as_int = [&c](const std::string& key, int32_t fallback) {
    auto it = c.effective.find(key);
    return it == c.effective.end() ? fallback : static_cast<int32_t>(std::stol(it->second.value));
  };
  g.consumer_assignment_interval_ms =
      as_int("group.consumer.assignment.interval.ms", g.consumer_assignment_interval_ms);
  g.consumer_min_assignment_interval_ms = c.group_consumer_min_assignment_interval_ms;
  g.consumer_max_assignment_interval_ms = c.group_consumer_max_assignment_interval_ms;
  g.streams_assignment_interval_ms = as_int("group.streams.assignment.interval.ms", g.streams_assignment_interval_ms);
  for (const auto& key : group::group_config_keys()) {
    const std::string synonym(key.broker_synonym);
    if (key.internal && c.set_explicitly(synonym))
      g.explicit_internal_broker_keys[synonym] = c.effective.at(synonym).value;
  }
}

// The coordinator keeps its state in __consumer_offsets (coordinator/group/offsets_topic.h).
std::unique_ptr<group::GroupCoordinator> make_group_coordinator(const config::BrokerConfig& c,
                                                                storage::LogManager& logs,
                                                                metadata::MetadataStore& metadata) {
  group::GroupConfig g;
  g.min_session_timeout_ms = c.group_min_session_timeout_ms;
  g.max_session_timeout_ms = c.group_max_session_timeout_ms;
  g.max_size = c.group_max_size;
  g.initial_rebalance_delay_ms = c.group_initial_rebalance_delay_ms;
  g.offsets_retention_ms = c.offsets_retention_ms;
  g.offsets_retention_check_interval_ms = c.offsets_retention_check_interval_ms;
  g.offset_metadata_max_bytes = c.offset_metadata_max_bytes;
  g.offsets_topic_num_partitions = c.offsets_topic_num_partitions;
  g.offsets_topic_segment_bytes = c.offsets_topic_segment_bytes;
  g.consumer_session_timeout_ms = c.group_consumer_session_timeout_ms;
  g.consumer_min_session_timeout_ms = c.group_consumer_min_session_timeout_ms;
  g.consumer_max_session_timeout_ms = c.group_consumer_max_session_timeout_ms;
  g.consumer_heartbeat_interval_ms = c.group_consumer_heartbeat_interval_ms;
  g.consumer_min_heartbeat_interval_ms = c.group_consumer_min_heartbeat_interval_ms;
  g.consumer_max_heartbeat_interval_ms = c.group_consumer_max_heartbeat_interval_ms;
  g.consumer_max_size = c.group_consumer_max_size;
  g.consumer_assignors = c.group_consumer_assignors;
  g.consumer_default_assignor = c.group_consumer_assignors.at(0);
  g.consumer_migration_policy = c.group_consumer_migration_policy;
  g.share_session_timeout_ms = c.group_share_session_timeout_ms;
  g.share_min_session_timeout_ms = c.group_share_min_session_timeout_ms;
  g.share_max_session_timeout_ms = c.group_share_max_session_timeout_ms;
  g.share_heartbeat_interval_ms = c.group_share_heartbeat_interval_ms;
  g.share_min_heartbeat_interval_ms = c.group_share_min_heartbeat_interval_ms;
  g.share_max_heartbeat_interval_ms = c.group_share_max_heartbeat_interval_ms;
  g.share_max_size = c.group_share_max_size;
  g.share_assignment_interval_ms = c.group_share_assignment_interval_ms;
  g.share_min_assignment_interval_ms = c.group_share_min_assignment_interval_ms;
  g.share_max_assignment_interval_ms = c.group_share_max_assignment_interval_ms;
  g.share_initialize_retry_interval_ms = c.group_share_initialize_retry_interval_ms;
  g.share_record_lock_duration_ms = c.group_share_record_lock_duration_ms;
  g.share_min_record_lock_duration_ms = c.group_share_min_record_lock_duration_ms;
  g.share_max_record_lock_duration_ms = c.group_share_max_record_lock_duration_ms;
  g.share_delivery_count_limit = c.group_share_delivery_count_limit;
  g.share_min_delivery_count_limit = c.group_share_min_delivery_count_limit;
  g.share_max_delivery_count_limit = c.group_share_max_delivery_count_limit;
  g.share_partition_max_record_locks = c.group_share_partition_max_record_locks;
  g.share_min_partition_max_record_locks = c.group_share_min_partition_max_record_locks;
  g.share_max_partition_max_record_locks = c.group_share_max_partition_max_record_locks;
  set_streams_group_config(g, c);
  set_group_key_defaults(g, c);
  g.group_configs = &metadata.ns(metadata::kGroupConfigs);
  return std::make_unique<group::GroupCoordinator>(g, logs);
}

txn::TxnHostConfig txn_host_config(const config::BrokerConfig& c, int32_t offsets_partitions,
                                   const api::FeatureLevels& features) {
  txn::TxnHostConfig t;
  t.coordinator.max_timeout_ms = c.transaction_max_timeout_ms;
  t.coordinator.abort_timed_out_interval_ms = c.transaction_abort_timed_out_interval_ms;
  t.coordinator.busy_wait_ms = c.add_partitions_to_txn_retry_backoff_max_ms;
  t.coordinator.transactional_id_expiration_ms = c.transactional_id_expiration_ms;
  t.coordinator.remove_expired_interval_ms = c.transaction_remove_expired_interval_ms;
  t.state_segment_bytes = c.transaction_state_log_segment_bytes;
  t.coordinator.offsets_topic_partitions = offsets_partitions;  // same partition as the groups pick
  // The coordinator's own rules (fence/timeout aborts, the state record
  // version) follow the finalized transaction.version, as in Kafka.
  t.coordinator.transaction_version = [&features] { return features.level("transaction.version"); };
  return t;
}

// authorizer.class.name set (config/authorizer_keys.cc only accepts Kafka's
// StandardAuthorizer): ours, its ACLs in the metadata store.
std::unique_ptr<acl::Authorizer> make_authorizer(const config::BrokerConfig& c, metadata::MetadataStore& metadata) {
  if (c.authorizer_class_name.empty()) return nullptr;
  acl::AuthorizerConfig a;
  a.super_users = c.super_users;
  a.allow_everyone_if_no_acl_found = c.allow_everyone_if_no_acl_found;
  a.acls = &metadata.ns(metadata::kAcls);
  return std::make_unique<acl::Authorizer>(std::move(a));
}

}  // namespace

BrokerComponents::BrokerComponents(const config::BrokerConfig& config, const config::BrokerInfo& broker,
                                   storage::LogManager& logs, metadata::MetadataStore& metadata,
                                   config::DynamicBrokerConfig* dynamic)
    : features_(std::make_unique<api::FeatureLevels>(&metadata.ns(metadata::kFeatureLevels))),
      groups_(make_group_coordinator(config, logs, metadata)),
      producer_ids_(std::make_unique<txn::ProducerIds>(metadata.ns(metadata::kProducerIds))),
      authorizer_(make_authorizer(config, metadata)),
      services_{config, broker, logs, &fetch_purgatory_, groups_.get(), producer_ids_.get(), dynamic} {
  services_.features = features_.get();
  build_security(config, metadata);
  // KIP-714: subscriptions in the metadata store (client-metrics), pushed metrics for /metrics.
  client_metrics_ = std::make_unique<api::telemetry::ClientMetricsManager>(&metadata.ns(metadata::kClientMetrics));
  services_.client_metrics = client_metrics_.get();
  build_transactions(config, logs);
  build_share_coordinator(config, logs);
  build_share_groups(config, logs);
  // DeleteTopics drops the topic's committed offsets right after the topic;
  // a crash in between leaves them here. OffsetCommit needs an existing
  // topic, so offsets of a missing one can only be such leftovers.
  auto gone = [&logs](const group::TopicPartition& tp) { return !logs.topic(tp.topic); };
  if (int stale = groups_->delete_offsets_where(gone))
    api::api_log().info("removed {} committed offset(s) of deleted topics", stale);
}

// ACLs, SCRAM credentials (KIP-554) and the SASL listeners' mechanisms, client
// quota configs (KIP-546) and their enforcement.
void BrokerComponents::build_security(const config::BrokerConfig& config, metadata::MetadataStore& metadata) {
  services_.authorizer = authorizer_.get();
  // Throws (the broker does not start) on a corrupt file or unstored bootstrap users.
  services_.scram = sasl::open_scram_store(config, metadata.ns(metadata::kScramCredentials));
  // Delegation tokens (KIP-48): durable, loaded before any login.
  sasl::DelegationTokenOptions tokens{config.delegation_token_secret_key, config.delegation_token_max_lifetime_ms,
                                      config.delegation_token_expiry_time_ms,
                                      config.delegation_token_expiry_check_interval_ms};
  services_.delegation_tokens =
      std::make_shared<sasl::DelegationTokenStore>(&metadata.ns(metadata::kDelegationTokens), tokens);
  services_.delegation_tokens->load();
  // A SCRAM exchange reads the credentials the KIP-554 APIs change, and the
  // tokens for a "tokenauth" login.
  auto scram = [store = services_.scram,
                tokens = services_.delegation_tokens](const std::string& name) -> std::unique_ptr<sasl::SaslServer> {
    auto mechanism = sasl::mechanism_from_name(name);
    return mechanism && store ? sasl::make_scram_server(*mechanism, *store, tokens.get()) : nullptr;
  };
  sasl_ = std::make_unique<sasl::SaslMechanisms>(config, scram);
  services_.sasl = sasl_.get();
  services_.client_quotas = std::make_shared<api::quota::ClientQuotaStore>(&metadata.ns(metadata::kClientQuotas));
  quotas_ = std::make_unique<api::quota::QuotaManager>(services_.client_quotas);
  services_.quotas = quotas_.get();
}

// The transaction coordinator loads __transaction_state before the first
// request is handled (the handler threads start after KafkaApis exists).
void BrokerComponents::build_transactions(const config::BrokerConfig& config, storage::LogManager& logs) {
  services_.txn_offsets = groups_.get();  // markers on __consumer_offsets partitions (KIP-447)
  txn_ = std::make_unique<txn::TxnHost>(txn_host_config(config, groups_->offsets_partitions(), *features_), logs,
                                        *producer_ids_, api::fetch_waker(&fetch_purgatory_), services_.txn_offsets);
  txn_->start();
  services_.txn = txn_.get();
  services_.txn_gate = txn_.get();
}

// KIP-932's share-partition state: __share_group_state is read before the
// first request is handled (the logs are recovered: LogManager's constructor).
void BrokerComponents::build_share_coordinator(const config::BrokerConfig& config, storage::LogManager& logs) {
  sharecoord::ShareCoordinatorConfig c;
  c.num_partitions = config.share_coordinator_state_topic_num_partitions;
  c.segment_bytes = config.share_coordinator_state_topic_segment_bytes;
  c.prune_interval_ms = config.share_coordinator_state_topic_prune_interval_ms;
  c.core.updates_per_snapshot = config.share_coordinator_snapshot_update_records_per_snapshot;
  c.core.cold_snapshot_interval_ms = config.share_coordinator_cold_partition_snapshot_interval_ms;
  share_coordinator_ = std::make_unique<sharecoord::ShareCoordinator>(c, logs);
  share_coordinator_->start();
  services_.share_coordinator = share_coordinator_.get();
}

// KIP-1191's dead-letter queue of share groups: on at share.version 2+, with
// the broker's errors.deadletterqueue.* keys and the group's DLQ configs.
namespace {
DeadLetterSettings dead_letter_settings(const config::BrokerConfig& config, const group::GroupCoordinator& groups,
                                        const api::FeatureLevels& features) {
  DeadLetterSettings s;
  s.share_version_has_dlq = [&features] { return features.level("share.version") >= 2; };
  s.auto_create_topics = config.errors_deadletterqueue_auto_create_topics_enable;
  s.topic_name_prefix = config.errors_deadletterqueue_topic_name_prefix;
  s.num_partitions = config.num_partitions;
  s.group_topic = [&groups](const std::string& g) { return groups.share_dlq_topic(g); };
  s.group_copy_record = [&groups](const std::string& g) { return groups.share_dlq_copy_record(g); };
  s.wall_clock_ms = [] { return wall_clock_ms(); };
  return s;
}
}  // namespace

// KIP-932's share groups: the group coordinator initializes, summarizes and
// deletes share-partition state through the share coordinator; the share
// partitions load and persist theirs through it, read their group's configs
// from the group coordinator and wake waiting share fetches.
void BrokerComponents::build_share_groups(const config::BrokerConfig& config, storage::LogManager& logs) {
  share_state_ = std::make_unique<ShareStateOverCoordinator>(*share_coordinator_);
  groups_->set_share_state(share_state_.get());
  share_config_ = std::make_unique<GroupShareConfig>(*groups_);
  share_persister_ = std::make_unique<CoordinatorStatePersister>(*share_coordinator_);
  DeadLetterSettings dlq = dead_letter_settings(config, *groups_, *features_);
  dlq.on_appended = api::fetch_waker(&fetch_purgatory_);
  share_dead_letters_ = std::make_unique<LogDeadLetterQueue>(logs, std::move(dlq));
  share_dead_letters_->start();
  auto ports = share_manager_ports(logs, share_timers_, &fetch_purgatory_);
  ports.dead_letters = share_dead_letters_.get();
  share_partitions_ = std::make_unique<share::SharePartitionManager>(
      *share_persister_, *share_config_, config.group_share_max_share_sessions, std::move(ports));
  services_.share_partitions = share_partitions_.get();
  share_disconnects_ = std::make_unique<ShareSessionsOnDisconnect>(*share_partitions_);
  // share.version below 1 turns share groups off (Kafka's onShareVersionToggle).
  features_->on_change([sp = share_partitions_.get()](std::string_view feature, int16_t level) {
    if (feature == "share.version" && level < 1) sp->on_share_groups_disabled();
  });
}

BrokerComponents::~BrokerComponents() { shutdown(); }

void BrokerComponents::complete_delayed() {
  fetch_purgatory_.complete_all();
  groups_->shutdown();
}

void BrokerComponents::shutdown() {
  if (stopped_) return;
  stopped_ = true;
  txn_->stop();
  if (share_dead_letters_) share_dead_letters_->stop();
  share_timers_.stop();
  if (share_coordinator_) share_coordinator_->stop();
  fetch_purgatory_.shutdown();
  groups_->shutdown();
}

}  // namespace skiff::server
