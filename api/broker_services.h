// BrokerServices: what the API handlers share — the configuration, this
// broker's identity, the logs, and the delayed-operation machinery. Filled
// and owned by server/ (server/broker_components.h), which builds what it
// points to; KafkaApis and its handlers hold it by reference. Every member
// is itself thread-safe.
#pragma once

#include <memory>

#include "api/broker_info.h"
#include "config/broker_config.h"
#include "config/dynamic_broker_config.h"
#include "log/log_manager.h"

namespace skiff::group {
class GroupCoordinator;
}
namespace skiff::acl {
class Authorizer;
}
namespace skiff::sasl {
class SaslMechanisms;
class ScramCredentialStore;
class DelegationTokenStore;
}  // namespace skiff::sasl
namespace skiff::share {
class SharePartitionManager;
}
namespace skiff::sharecoord {
class ShareCoordinator;
}
namespace skiff::txn {
class ProducerIds;
class TxnHost;
class TxnProduceGate;
class TxnOffsetMarkerSink;
}  // namespace skiff::txn

namespace skiff::api {

class Purgatory;
class FeatureLevels;
class RemoteReads;
namespace quota {
class ClientQuotaStore;
class QuotaManager;
}  // namespace quota
namespace telemetry {
class ClientMetricsManager;
}
class TopicMetrics;

struct BrokerServices {
  const config::BrokerConfig& config;
  const BrokerInfo& broker;
  storage::LogManager& logs;
  Purgatory* fetch_purgatory = nullptr;       // delayed fetches, woken by appends
  group::GroupCoordinator* groups = nullptr;  // consumer groups and committed offsets
  txn::ProducerIds* producer_ids = nullptr;   // InitProducerId's allocator
  // Runtime changes to broker configs (none: broker configs are read-only).
  config::DynamicBrokerConfig* dynamic = nullptr;
  // Transactions: Produce's check of transactional batches (null: the
  // coordinator is not running, transactional produce is refused), and the
  // group side of markers on __consumer_offsets partitions (KIP-447).
  txn::TxnProduceGate* txn_gate = nullptr;
  txn::TxnOffsetMarkerSink* txn_offsets = nullptr;
  txn::TxnHost* txn = nullptr;  // the transaction coordinator (coordinator/txn/txn_host.h)
  // The share coordinator (coordinator/share/share_coordinator.h): APIs 83-87
  // (null: COORDINATOR_NOT_AVAILABLE).
  sharecoord::ShareCoordinator* share_coordinator = nullptr;
  // The share partitions and share sessions (share/share_partition_manager.h):
  // ShareFetch, ShareAcknowledge; null: share groups are not served.
  share::SharePartitionManager* share_partitions = nullptr;
  // The ACL checks (api/authorize.h); null: no authorizer configured.
  acl::Authorizer* authorizer = nullptr;
  // The SASL mechanisms of the SASL listeners (security/sasl/sasl_mechanisms.h).
  const sasl::SaslMechanisms* sasl = nullptr;
  // The SCRAM credentials (security/sasl/scram_store.h): KIP-554's APIs change
  // them, the SASL exchange reads them. Shared: a connection's SCRAM exchange
  // may hold it.
  std::shared_ptr<sasl::ScramCredentialStore> scram{};
  // Delegation tokens (security/sasl/delegation_tokens.h): the token APIs
  // change them, a "tokenauth" SCRAM login reads them. Shared as `scram`.
  std::shared_ptr<sasl::DelegationTokenStore> delegation_tokens{};
  // Messages and bytes in and out per topic (api/topic_metrics.h); null: not counted.
  TopicMetrics* topic_metrics = nullptr;
  // Client quotas (api/quota/): the durable quota configs, which KIP-546's
  // APIs change, and the throttling that enforces them.
  std::shared_ptr<quota::ClientQuotaStore> client_quotas{};
  quota::QuotaManager* quotas = nullptr;
  // KIP-714: the client-metrics subscriptions and the telemetry clients push
  // (api/telemetry/client_metrics_manager.h).
  telemetry::ClientMetricsManager* client_metrics = nullptr;
  // The finalized feature levels (api/feature_levels.h): ApiVersions,
  // UpdateFeatures and the feature gates read them. Null: KafkaApis keeps the
  // defaults in memory.
  FeatureLevels* features = nullptr;
  RemoteReads* remote_reads = nullptr;  // tiered storage's reads (api/remote_reads.h); null: off
};

}  // namespace skiff::api
