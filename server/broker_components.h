// BrokerComponents: the stateful parts of the broker that KafkaApis serves
// with, built here and only here, in dependency order, the way Kafka's
// BrokerServer builds them and hands them to KafkaApis' constructor:
//
//   metadata store (given: opened and migrated by KafkaServer)
//     -> group coordinator (replays __consumer_offsets; group configs)
//     -> producer-id blocks -> authorizer (ACLs) -> SCRAM credentials
//     -> SASL mechanisms -> client quota configs and the QuotaManager
//     -> client-metrics subscriptions (KIP-714)
//     -> fetch purgatory -> transaction coordinator (replays
//        __transaction_state, started; its markers wake waiting fetches)
//     -> share coordinator (replays __share_group_state, started)
//     -> share groups' glue (server/share_ports.h): the group coordinator's
//        port to the share coordinator, the SharePartitionManager with its
//        persister, group configs, timers and purgatory wake-ups
//
// services() is the bag of non-owning references KafkaApis and its handlers
// receive (api/broker_services.h); every part outlives KafkaApis. Stopping
// is the reverse: complete_delayed() answers every waiting request (first
// step of a shutdown), shutdown() stops the coordinators once the handler
// threads are gone; the destructor does it if nobody did.
//
// Threads: construction, complete_delayed() and shutdown() on the
// controlling thread; the parts themselves are thread-safe (their headers).
// Construction throws (the broker does not start) on corrupt durable state.
#pragma once

#include <memory>

#include "api/broker_services.h"
#include "api/feature_levels.h"
#include "api/purgatory.h"
#include "config/broker_config.h"
#include "config/broker_info.h"
#include "config/dynamic_broker_config.h"
#include "coordinator/group/share_state_port.h"
#include "coordinator/runtime/timer_queue.h"
#include "log/log_manager.h"
#include "metadata/metadata_store.h"
#include "network/request.h"
#include "server/share_dead_letters.h"
#include "share/share_partition_manager.h"
#include "share/state_persister.h"

namespace skiff::server {

class BrokerComponents {
 public:
  BrokerComponents(const config::BrokerConfig& config, const config::BrokerInfo& broker, storage::LogManager& logs,
                   metadata::MetadataStore& metadata, config::DynamicBrokerConfig* dynamic = nullptr);
  ~BrokerComponents();
  BrokerComponents(const BrokerComponents&) = delete;
  BrokerComponents& operator=(const BrokerComponents&) = delete;

  // What KafkaApis receives; the references stay valid for this object's life.
  api::BrokerServices& services() { return services_; }

  void complete_delayed();
  void shutdown();

  group::GroupCoordinator& groups() { return *groups_; }
  txn::TxnHost& txn_host() { return *txn_; }
  sharecoord::ShareCoordinator& share_coordinator() { return *share_coordinator_; }
  share::SharePartitionManager& share_partitions() { return *share_partitions_; }
  api::telemetry::ClientMetricsManager& client_metrics() { return *client_metrics_; }
  api::quota::QuotaManager& quotas() { return *quotas_; }
  const std::shared_ptr<api::quota::ClientQuotaStore>& client_quotas() const { return services_.client_quotas; }
  // Told of closed connections (their share sessions end); set on the RequestChannel.
  network::ConnectionListener* connection_listener() { return share_disconnects_.get(); }
  // The SASL listeners' mechanisms (the web console logs users in through them).
  const sasl::SaslMechanisms& sasl_mechanisms() const { return *sasl_; }

 private:
  void build_security(const config::BrokerConfig& config, metadata::MetadataStore& metadata);
  void build_transactions(const config::BrokerConfig& config, storage::LogManager& logs);
  void build_share_coordinator(const config::BrokerConfig& config, storage::LogManager& logs);
  void build_share_groups(const config::BrokerConfig& config, storage::LogManager& logs);

  std::unique_ptr<api::FeatureLevels> features_;  // first: the others read it
  std::unique_ptr<group::GroupCoordinator> groups_;
  std::unique_ptr<txn::ProducerIds> producer_ids_;
  std::unique_ptr<acl::Authorizer> authorizer_;  // null: authorizer.class.name unset
  std::unique_ptr<sasl::SaslMechanisms> sasl_;
  std::unique_ptr<api::quota::QuotaManager> quotas_;
  std::unique_ptr<api::telemetry::ClientMetricsManager> client_metrics_;
  api::Purgatory fetch_purgatory_;
  std::unique_ptr<txn::TxnHost> txn_;
  std::unique_ptr<sharecoord::ShareCoordinator> share_coordinator_;
  std::unique_ptr<group::ShareStateInitializer> share_state_;
  std::unique_ptr<share::ShareGroupConfigPort> share_config_;
  std::unique_ptr<share::StatePersister> share_persister_;
  std::unique_ptr<share::SharePartitionManager> share_partitions_;
  std::unique_ptr<network::ConnectionListener> share_disconnects_;
  std::unique_ptr<LogDeadLetterQueue> share_dead_letters_;  // stopped first: its callbacks reach the above
  coordinator::TimerQueue share_timers_;                    // lock timeouts; destroyed first, stopped by shutdown()
  api::BrokerServices services_;
  bool stopped_ = false;
};

}  // namespace skiff::server
