#include "api/kafka_apis.h"

#include "api/api_log.h"
#include "api/controller_listener.h"
#include "api/feature_levels.h"
#include "api/features.h"
#include "api/handlers/add_offsets_to_txn_handler.h"
#include "api/handlers/add_partitions_to_txn_handler.h"
#include "api/handlers/alter_client_quotas_handler.h"
#include "api/handlers/alter_configs_handler.h"
#include "api/handlers/alter_partition_reassignments_handler.h"
#include "api/handlers/alter_replica_log_dirs_handler.h"
#include "api/handlers/alter_share_group_offsets_handler.h"
#include "api/handlers/alter_user_scram_credentials_handler.h"
#include "api/handlers/api_versions_handler.h"
#include "api/handlers/consumer_group_describe_handler.h"
#include "api/handlers/consumer_group_heartbeat_handler.h"
#include "api/handlers/create_acls_handler.h"
#include "api/handlers/create_partitions_handler.h"
#include "api/handlers/create_topics_handler.h"
#include "api/handlers/delegation_token_handlers.h"
#include "api/handlers/delete_acls_handler.h"
#include "api/handlers/delete_groups_handler.h"
#include "api/handlers/delete_records_handler.h"
#include "api/handlers/delete_share_group_offsets_handler.h"
#include "api/handlers/delete_share_group_state_handler.h"
#include "api/handlers/delete_topics_handler.h"
#include "api/handlers/describe_acls_handler.h"
#include "api/handlers/describe_client_quotas_handler.h"
#include "api/handlers/describe_cluster_handler.h"
#include "api/handlers/describe_configs_handler.h"
#include "api/handlers/describe_groups_handler.h"
#include "api/handlers/describe_log_dirs_handler.h"
#include "api/handlers/describe_producers_handler.h"
#include "api/handlers/describe_quorum_handler.h"
#include "api/handlers/describe_share_group_offsets_handler.h"
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
#include "api/handlers/initialize_share_group_state_handler.h"
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
#include "api/handlers/quorum_admin_handlers.h"
#include "api/handlers/read_share_group_state_handler.h"
#include "api/handlers/read_share_group_state_summary_handler.h"
#include "api/handlers/sasl_authenticate_handler.h"
#include "api/handlers/sasl_handshake_handler.h"
#include "api/handlers/share_acknowledge_handler.h"
#include "api/handlers/share_fetch_handler.h"
#include "api/handlers/share_group_describe_handler.h"
#include "api/handlers/share_group_heartbeat_handler.h"
#include "api/handlers/streams_group_describe_handler.h"
#include "api/handlers/streams_group_heartbeat_handler.h"
#include "api/handlers/streams_group_topology_description_update_handler.h"
#include "api/handlers/sync_group_handler.h"
#include "api/handlers/txn_offset_commit_handler.h"
#include "api/handlers/update_features_handler.h"
#include "api/handlers/write_share_group_state_handler.h"
#include "api/handlers/write_txn_markers_handler.h"
#include "api/quota/quota_manager.h"
#include "api/telemetry/client_metrics_manager.h"
#include "common/log_escape.h"
#include "protocol/errors.h"
#include "protocol/frame.h"

namespace skiff::api {

KafkaApis::KafkaApis(BrokerServices& services) : services_(services) {
  if (!services_.features) {  // tests: the default levels, in memory
    own_features_ = std::make_unique<FeatureLevels>(nullptr);
    services_.features = own_features_.get();
  }
  auto api_versions = std::make_unique<ApiVersionsHandler>(registry_, services_.broker, *services_.features);
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
  registry_.add(std::make_unique<AddRaftVoterHandler>(services_));
  registry_.add(std::make_unique<RemoveRaftVoterHandler>(services_));
  registry_.add(std::make_unique<UnregisterBrokerHandler>(services_));
  registry_.add(std::make_unique<UnregisterControllerHandler>(services_));
  registry_.add(std::make_unique<ElectLeadersHandler>(services_));
  registry_.add(std::make_unique<AlterPartitionReassignmentsHandler>(services_));
  registry_.add(std::make_unique<ListPartitionReassignmentsHandler>(services_));
  registry_.add(std::make_unique<UpdateFeaturesHandler>(services_));
  add_txn_and_acl_handlers();
  add_share_state_handlers();
  add_share_group_handlers();
  add_sasl_handlers();
  add_scram_handlers();
  add_telemetry_handlers();
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
  // Served at group.version 1+ (Kafka's isConsumerGroupProtocolEnabled).
  const ApiHandler::FeatureGate gv1{"group.version", 1};
  add_gated(std::make_unique<ConsumerGroupHeartbeatHandler>(services_), gv1);
  add_gated(std::make_unique<ConsumerGroupDescribeHandler>(services_), gv1);
  // KIP-1071's streams groups (coordinator/group/streams_heartbeat.cc).
  // Served at streams.version 1+ (Kafka's isStreamsGroupProtocolEnabled).
  const ApiHandler::FeatureGate stv1{"streams.version", 1};
  add_gated(std::make_unique<StreamsGroupHeartbeatHandler>(services_), stv1);
  add_gated(std::make_unique<StreamsGroupDescribeHandler>(services_), stv1);
  add_gated(std::make_unique<StreamsGroupTopologyDescriptionUpdateHandler>(services_), stv1);
}

void KafkaApis::add_gated(std::unique_ptr<ApiHandler> handler, ApiHandler::FeatureGate gate) {
  handler->set_feature_gate(gate);
  registry_.add(std::move(handler));
}

bool KafkaApis::gated_off(const ApiHandler& handler) const {
  const auto& gate = handler.feature_gate();
  return gate && services_.features->level(gate->feature) < gate->min_level;
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

// KIP-932's share-partition state (coordinator/share/share_coordinator.h),
// inter-broker: advertised only with a share coordinator to answer them.
void KafkaApis::add_share_state_handlers() {
  if (!services_.share_coordinator) return;
  registry_.add(std::make_unique<InitializeShareGroupStateHandler>(services_));
  registry_.add(std::make_unique<ReadShareGroupStateHandler>(services_));
  registry_.add(std::make_unique<WriteShareGroupStateHandler>(services_));
  registry_.add(std::make_unique<DeleteShareGroupStateHandler>(services_));
  registry_.add(std::make_unique<ReadShareGroupStateSummaryHandler>(services_));
}

// KIP-932's share groups: membership and offsets admin on the group
// coordinator, ShareFetch / ShareAcknowledge on the share partitions.
// Advertised only when both are there (server/broker_components.cc).
void KafkaApis::add_share_group_handlers() {
  if (!services_.share_partitions || !services_.groups) return;
  auto& shares = *services_.share_partitions;
  // Served at share.version 1+ (Kafka's isShareGroupProtocolEnabled).
  const ApiHandler::FeatureGate sv1{"share.version", 1};
  add_gated(std::make_unique<ShareGroupHeartbeatHandler>(services_), sv1);
  add_gated(std::make_unique<ShareGroupDescribeHandler>(services_), sv1);
  add_gated(std::make_unique<ShareFetchHandler>(services_, shares), sv1);
  add_gated(std::make_unique<ShareAcknowledgeHandler>(services_, shares), sv1);
  add_gated(std::make_unique<DescribeShareGroupOffsetsHandler>(services_), sv1);
  add_gated(std::make_unique<AlterShareGroupOffsetsHandler>(services_), sv1);
  add_gated(std::make_unique<DeleteShareGroupOffsetsHandler>(services_), sv1);
}

void KafkaApis::add_sasl_handlers() {
  registry_.add(std::make_unique<SaslHandshakeHandler>(services_));
  auto authenticate = std::make_unique<SaslAuthenticateHandler>(services_);
  sasl_authenticate_ = authenticate.get();
  registry_.add(std::move(authenticate));
}

void KafkaApis::add_scram_handlers() {
  // KIP-554: SCRAM credentials, in the metadata store (scram-credentials).
  registry_.add(std::make_unique<DescribeUserScramCredentialsHandler>(services_));
  registry_.add(std::make_unique<AlterUserScramCredentialsHandler>(services_));
  // KIP-48/KIP-373: delegation tokens, in the metadata store (delegation-tokens).
  registry_.add(std::make_unique<CreateDelegationTokenHandler>(services_));
  registry_.add(std::make_unique<RenewDelegationTokenHandler>(services_));
  registry_.add(std::make_unique<ExpireDelegationTokenHandler>(services_));
  registry_.add(std::make_unique<DescribeDelegationTokenHandler>(services_));
  // KIP-546: client quota configs, in the metadata store (client-quotas)
  // (kafka-configs --describe --entity-type users asks them first).
  registry_.add(std::make_unique<DescribeClientQuotasHandler>(services_));
  registry_.add(std::make_unique<AlterClientQuotasHandler>(services_));
}

void KafkaApis::add_telemetry_handlers() {
  // KIP-714: subscriptions and pushed metrics (api/telemetry/client_metrics_manager.h).
  registry_.add(std::make_unique<GetTelemetrySubscriptionsHandler>(services_));
  registry_.add(std::make_unique<PushTelemetryHandler>(services_));
}

KafkaApis::~KafkaApis() = default;

void KafkaApis::set_client_software(ClientSoftware* software) {
  api_versions_->set_client_software(software);
  services_.client_metrics->set_client_software(software);
}

// The request's handler, or null when it was answered here: an unknown API
// key, an API a controller listener does not serve (on such a listener) or a
// version outside the advertised range closes the connection;
// ApiVersions above its range gets Kafka's version-fallback answer.
ApiHandler* KafkaApis::route(ApiRequest& request, Responder& out, const Escaped& client) {
  const auto key = request.api_key();
  const auto version = request.api_version();
  ApiHandler* handler = registry_.find(key);
  if (handler && services_.broker.is_controller_listener(request.context().listener_name) &&
      !served_on_controller_listener(key)) {
    api_log().warn("closing connection from {} (client {}): API key {} is not served on controller listener {}",
                   request.context().peer_address, client, key, request.context().listener_name);
    out.close("");
    return nullptr;
  }
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
  if (!services_.quotas->enabled(quota::QuotaKind::kRequest) ||
      request.api_key() == protocol::WriteTxnMarkersRequest::kApiKey)
    return;
  out.set_request_quota(std::make_shared<const RequestQuotaClient>(
      RequestQuotaClient{services_.quotas, std::string(quota::quota_user(request.context().principal)),
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
    if (version < handler->min_served() || gated_off(*handler))
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
