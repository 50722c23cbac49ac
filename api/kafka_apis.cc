#include "api/kafka_apis.h"

#include "api/api_log.h"
#include "api/features.h"
#include "api/handlers/add_offsets_to_txn_handler.h"
#include "api/handlers/add_partitions_to_txn_handler.h"
#include "api/handlers/alter_client_quotas_handler.h"
#include "api/handlers/alter_configs_handler.h"
#include "api/handlers/alter_partition_reassignments_handler.h"
#include "api/handlers/alter_replica_log_dirs_handler.h"
#include "api/handlers/alter_user_scram_credentials_handler.h"
#include "api/handlers/api_versions_handler.h"
#include "api/handlers/consumer_group_describe_handler.h"
#include "api/handlers/consumer_group_heartbeat_handler.h"
#include "api/handlers/create_acls_handler.h"
#include "api/handlers/create_partitions_handler.h"
#include "api/handlers/create_topics_handler.h"
#include "api/handlers/delete_acls_handler.h"
#include "api/handlers/delete_groups_handler.h"
#include "api/handlers/delete_records_handler.h"
#include "api/handlers/delete_topics_handler.h"
#include "api/handlers/describe_acls_handler.h"
#include "api/handlers/describe_client_quotas_handler.h"
#include "api/handlers/describe_cluster_handler.h"
#include "api/handlers/describe_configs_handler.h"
#include "api/handlers/describe_groups_handler.h"
#include "api/handlers/describe_log_dirs_handler.h"
#include "api/handlers/describe_producers_handler.h"
#include "api/handlers/describe_quorum_handler.h"
#include "api/handlers/describe_topic_partitions_handler.h"
#include "api/handlers/describe_transactions_handler.h"
#include "api/handlers/describe_user_scram_credentials_handler.h"
#include "api/handlers/elect_leaders_handler.h"
#include "api/handlers/end_txn_handler.h"
#include "api/handlers/fetch_handler.h"
#include "api/handlers/find_coordinator_handler.h"
#include "api/handlers/get_telemetry_subscriptions_handler.h"
#include "api/handlers/heartbeat_handler.h"
#include "api/handlers/incremental_alter_configs_handler.h"
#include "api/handlers/init_producer_id_handler.h"
#include "api/handlers/join_group_handler.h"
#include "api/handlers/leave_group_handler.h"
#include "api/handlers/list_config_resources_handler.h"
#include "api/handlers/list_groups_handler.h"
#include "api/handlers/list_offsets_handler.h"
#include "api/handlers/list_partition_reassignments_handler.h"
#include "api/handlers/list_transactions_handler.h"
#include "api/handlers/metadata_handler.h"
#include "api/handlers/offset_commit_handler.h"
#include "api/handlers/offset_delete_handler.h"
#include "api/handlers/offset_fetch_handler.h"
#include "api/handlers/offset_for_leader_epoch_handler.h"
#include "api/handlers/produce_handler.h"
#include "api/handlers/push_telemetry_handler.h"
#include "api/handlers/sasl_authenticate_handler.h"
#include "api/handlers/sasl_handshake_handler.h"
#include "api/handlers/sync_group_handler.h"
#include "api/handlers/txn_offset_commit_handler.h"
#include "api/handlers/update_features_handler.h"
#include "api/handlers/write_txn_markers_handler.h"
#include "api/quota/client_quota_store.h"
#include "api/quota/quota_manager.h"
#include "api/telemetry/client_metrics_manager.h"
#include "common/log_escape.h"
#include "protocol/errors.h"
#include "protocol/frame.h"
#include "security/sasl/scram_bootstrap.h"
#include "security/sasl/scram_server.h"

namespace skiff::api {
namespace {

// The coordinator keeps its state in __consumer_offsets (coordinator/group/offsets_topic.h);
// the file of older Skiff versions, in the first log dir, is migrated into it.
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
  g.group_configs = &metadata.ns(metadata::kGroupConfigs);
  return std::make_unique<group::GroupCoordinator>(g, logs);
}

txn::TxnHostConfig txn_host_config(const config::BrokerConfig& c, int32_t offsets_partitions) {
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
  const Feature* tv = find_feature("transaction.version");
  t.coordinator.server_transaction_version = tv ? tv->finalized : 0;
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

KafkaApis::KafkaApis(const config::BrokerConfig& config, const BrokerInfo& broker, storage::LogManager& logs,
                     metadata::MetadataStore& metadata, config::DynamicBrokerConfig* dynamic)
    : groups_(make_group_coordinator(config, logs, metadata)),
      producer_ids_(std::make_unique<txn::ProducerIds>(metadata.ns(metadata::kProducerIds))),
      authorizer_(make_authorizer(config, metadata)),
      services_{config, broker, logs, &fetch_purgatory_, groups_.get(), producer_ids_.get(), dynamic} {
  services_.authorizer = authorizer_.get();
  // Throws (the broker does not start) on a corrupt file or unstored bootstrap users.
  services_.scram = sasl::open_scram_store(config, metadata.ns(metadata::kScramCredentials));
  services_.client_quotas = std::make_shared<quota::ClientQuotaStore>(&metadata.ns(metadata::kClientQuotas));
  quotas_ = std::make_unique<quota::QuotaManager>(services_.client_quotas);
  services_.quotas = quotas_.get();
  services_.txn_offsets = groups_.get();  // markers on __consumer_offsets partitions (KIP-447)
  // The transaction coordinator loads __transaction_state before the first
  // request is handled (the handler threads start after this constructor).
  txn_ = std::make_unique<txn::TxnHost>(txn_host_config(config, groups_->offsets_partitions()), logs, *producer_ids_,
                                        fetch_waker(&fetch_purgatory_), services_.txn_offsets);
  txn_->start();
  services_.txn = txn_.get();
  services_.txn_gate = txn_.get();
  auto api_versions = std::make_unique<ApiVersionsHandler>(registry_, services_.broker);
  api_versions_ = api_versions.get();
  registry_.add(std::move(api_versions));
  registry_.add(std::make_unique<ProduceHandler>(services_));
  registry_.add(std::make_unique<FetchHandler>(services_));
  registry_.add(std::make_unique<ListOffsetsHandler>(services_));
  registry_.add(std::make_unique<MetadataHandler>(services_));
  registry_.add(std::make_unique<OffsetForLeaderEpochHandler>(services_));
  registry_.add(std::make_unique<FindCoordinatorHandler>(services_));
  add_group_handlers();
  // Advertised only with a transaction coordinator to end the transactions.
  if (services_.txn_gate) registry_.add(std::make_unique<TxnOffsetCommitHandler>(services_));
  // Admin APIs and the idempotent producer.
  registry_.add(std::make_unique<InitProducerIdHandler>(services_));
  registry_.add(std::make_unique<CreateTopicsHandler>(services_));
  registry_.add(std::make_unique<DeleteTopicsHandler>(services_));
  registry_.add(std::make_unique<CreatePartitionsHandler>(services_));
  registry_.add(std::make_unique<DescribeConfigsHandler>(services_));
  registry_.add(std::make_unique<AlterConfigsHandler>(services_));
  registry_.add(std::make_unique<IncrementalAlterConfigsHandler>(services_));
  registry_.add(std::make_unique<DeleteRecordsHandler>(services_));
  registry_.add(std::make_unique<DescribeClusterHandler>(services_));
  registry_.add(std::make_unique<DescribeLogDirsHandler>(services_));
  registry_.add(std::make_unique<AlterReplicaLogDirsHandler>(services_));
  registry_.add(std::make_unique<DescribeProducersHandler>(services_));
  registry_.add(std::make_unique<WriteTxnMarkersHandler>(services_));  // kafka-transactions abort
  registry_.add(std::make_unique<DescribeTopicPartitionsHandler>(services_));
  // What Kafka's tools ask of a one-node cluster's controller.
  registry_.add(std::make_unique<DescribeQuorumHandler>(services_));
  registry_.add(std::make_unique<ElectLeadersHandler>(services_));
  registry_.add(std::make_unique<AlterPartitionReassignmentsHandler>(services_));
  registry_.add(std::make_unique<ListPartitionReassignmentsHandler>(services_));
  registry_.add(std::make_unique<UpdateFeaturesHandler>(services_));
  add_txn_and_acl_handlers();
  add_sasl_handlers();
  add_scram_handlers();
  add_telemetry_handlers(metadata);
  // DeleteTopics drops the topic's committed offsets right after the topic;
  // a crash in between leaves them here. OffsetCommit needs an existing
  // topic, so offsets of a missing one can only be such leftovers.
  auto gone = [&logs](const group::TopicPartition& tp) { return !logs.topic(tp.topic); };
  if (int stale = groups_->delete_offsets_where(gone))
    api_log().info("removed {} committed offset(s) of deleted topics", stale);
}

void KafkaApis::add_group_handlers() {
  registry_.add(std::make_unique<JoinGroupHandler>(services_));
  registry_.add(std::make_unique<SyncGroupHandler>(services_));
  registry_.add(std::make_unique<HeartbeatHandler>(services_));
  registry_.add(std::make_unique<LeaveGroupHandler>(services_));
  registry_.add(std::make_unique<OffsetCommitHandler>(services_));
  registry_.add(std::make_unique<OffsetFetchHandler>(services_));
  registry_.add(std::make_unique<OffsetDeleteHandler>(services_));
  registry_.add(std::make_unique<DescribeGroupsHandler>(services_));
  registry_.add(std::make_unique<ListGroupsHandler>(services_));
  registry_.add(std::make_unique<ListConfigResourcesHandler>(services_));
  registry_.add(std::make_unique<DeleteGroupsHandler>(services_));
  // KIP-848's consumer group protocol (coordinator/group/consumer_heartbeat.cc).
  registry_.add(std::make_unique<ConsumerGroupHeartbeatHandler>(services_));
  registry_.add(std::make_unique<ConsumerGroupDescribeHandler>(services_));
}

void KafkaApis::add_txn_and_acl_handlers() {
  // Transactions (coordinator/txn/txn_host.h). TxnOffsetCommit is the group coordinator's.
  registry_.add(std::make_unique<AddPartitionsToTxnHandler>(services_));
  registry_.add(std::make_unique<AddOffsetsToTxnHandler>(services_));
  registry_.add(std::make_unique<EndTxnHandler>(services_));
  registry_.add(std::make_unique<DescribeTransactionsHandler>(services_));
  registry_.add(std::make_unique<ListTransactionsHandler>(services_));
  // Served with or without an authorizer: without, they answer SECURITY_DISABLED.
  registry_.add(std::make_unique<DescribeAclsHandler>(services_));
  registry_.add(std::make_unique<CreateAclsHandler>(services_));
  registry_.add(std::make_unique<DeleteAclsHandler>(services_));
}

void KafkaApis::add_sasl_handlers() {
  // A SCRAM exchange reads the credentials the KIP-554 APIs change.
  auto scram = [store = services_.scram](const std::string& name) -> std::unique_ptr<sasl::SaslServer> {
    auto mechanism = sasl::mechanism_from_name(name);
    return mechanism && store ? sasl::make_scram_server(*mechanism, *store) : nullptr;
  };
  sasl_ = std::make_unique<sasl::SaslMechanisms>(services_.config, scram);
  services_.sasl = sasl_.get();
  registry_.add(std::make_unique<SaslHandshakeHandler>(services_));
  auto authenticate = std::make_unique<SaslAuthenticateHandler>(services_);
  sasl_authenticate_ = authenticate.get();
  registry_.add(std::move(authenticate));
}

void KafkaApis::add_scram_handlers() {
  // KIP-554: SCRAM credentials, in the metadata store (scram-credentials).
  registry_.add(std::make_unique<DescribeUserScramCredentialsHandler>(services_));
  registry_.add(std::make_unique<AlterUserScramCredentialsHandler>(services_));
  // KIP-546: client quota configs, in the metadata store (client-quotas)
  // (kafka-configs --describe --entity-type users asks them first).
  registry_.add(std::make_unique<DescribeClientQuotasHandler>(services_));
  registry_.add(std::make_unique<AlterClientQuotasHandler>(services_));
}

void KafkaApis::add_telemetry_handlers(metadata::MetadataStore& metadata) {
  // KIP-714: subscriptions in the metadata store (client-metrics; throws on
  // a corrupt file: the broker does not start), pushed metrics for /metrics.
  client_metrics_ = std::make_unique<telemetry::ClientMetricsManager>(&metadata.ns(metadata::kClientMetrics));
  services_.client_metrics = client_metrics_.get();
  registry_.add(std::make_unique<GetTelemetrySubscriptionsHandler>(services_));
  registry_.add(std::make_unique<PushTelemetryHandler>(services_));
}

KafkaApis::~KafkaApis() { shutdown(); }

void KafkaApis::set_client_software(ClientSoftware* software) {
  api_versions_->set_client_software(software);
  client_metrics_->set_client_software(software);
}

void KafkaApis::complete_delayed() {
  fetch_purgatory_.complete_all();
  groups_->shutdown();
}

void KafkaApis::shutdown() {
  if (txn_) txn_->stop();
  fetch_purgatory_.shutdown();
  groups_->shutdown();
}

// The request's handler, or null when it was answered here: an unknown API
// key or a version outside the advertised range closes the connection;
// ApiVersions above its range gets Kafka's version-fallback answer.
ApiHandler* KafkaApis::route(ApiRequest& request, Responder& out, const Escaped& client) {
  const auto key = request.api_key();
  const auto version = request.api_version();
  ApiHandler* handler = registry_.find(key);
  if (!handler) {
    api_log().warn("closing connection from {} (client {}): unsupported API key {}", request.context().peer_address,
                   client, key);
    out.close("");
    return nullptr;
  }
  if (handler == api_versions_ && version > handler->range().max_version) {
    api_versions_->answer_unsupported_version(request, out);
    return nullptr;
  }
  if (version < handler->range().min_version || version > handler->range().max_version) {
    api_log().warn("closing connection from {} (client {}): API key {} version {} is outside [{}, {}]",
                   request.context().peer_address, client, key, version, handler->range().min_version,
                   handler->range().max_version);
    out.close("");
    return nullptr;
  }
  return handler;
}

// Kafka exempts cluster actions from the request quota: of those, Skiff
// serves WriteTxnMarkers (its own coordinator's, never a client's).
void KafkaApis::attach_request_quota(const ApiRequest& request, Responder& out) {
  if (!quotas_->enabled(quota::QuotaKind::kRequest) || request.api_key() == protocol::WriteTxnMarkersRequest::kApiKey)
    return;
  out.set_request_quota(std::make_shared<const RequestQuotaClient>(
      RequestQuotaClient{quotas_.get(), std::string(quota::quota_user(request.context().principal)),
                         request.header.client_id.value_or("")}));
}

void KafkaApis::handle(network::Request raw, network::ResponseSender& sender) {
  if (raw.raw_sasl_token) {  // no Kafka header: a token of SaslHandshake v0's exchange
    sasl_authenticate_->handle_raw(std::move(raw), sender);
    return;
  }
  protocol::ByteReader reader(raw.frame.bytes());
  protocol::DecodedRequestHeader decoded;
  try {
    decoded = protocol::read_request_header(reader);
  } catch (const protocol::ProtocolError& e) {
    api_log().warn("closing connection from {}: malformed request header: {}", raw.context.peer_address,
                   escaped(e.what()));
    sender.send_response(network::Response::close(raw.context, ""));
    return;
  }
  const network::RequestTimes times{
      decoded.header.request_api_key, decoded.header.request_api_version, raw.received_at, raw.dequeued_at, {}, {}};
  ApiRequest request{std::move(raw), std::move(decoded.header), reader.position()};
  Responder out(sender, request.context(), request.correlation_id(), request.api_version(), times);
  const auto key = request.api_key();
  const auto version = request.api_version();
  // The client id is the client's to choose: it reaches the log escaped.
  const Escaped client = escaped(request.header.client_id ? std::string_view(*request.header.client_id) : "-");

  ApiHandler* handler = route(request, out, client);
  if (!handler) return;
  attach_request_quota(request, out);
  out.set_error_observer(error_observer_);
  api_log().trace("request api={} v{} corr={} client={} from {}", key, version, request.correlation_id(), client,
                  request.context().peer_address);
  try {
    if (version < handler->min_served())
      handler->send_error(request, out, ErrorCode::kUnsupportedVersion);
    else
      handler->handle(request, out);
  } catch (const protocol::DecodeError& e) {
    api_log().warn("closing connection from {} (client {}): malformed API key {} v{} request: {}",
                   request.context().peer_address, client, key, version, escaped(e.what()));
    out.close("");
  } catch (const std::exception& e) {
    api_log().error("API key {} v{} from {} (client {}) failed: {}", key, version, request.context().peer_address,
                    client, escaped(e.what()));
    try {
      handler->send_error(request, out, ErrorCode::kUnknownServerError);
    } catch (const std::exception&) {
      out.close("");
    }
  }
}

}  // namespace skiff::api
