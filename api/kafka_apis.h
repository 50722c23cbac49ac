// KafkaApis: the RequestHandler the handler threads call. It reads the
// request header, checks the API and version against the HandlerRegistry and
// hands the request to that API's handler (one file per API in handlers/).
//
//  - unknown API key, or a version outside the advertised range: the
//    connection is closed and the reason logged, as Apache Kafka does;
//    except ApiVersions above our max, answered in v0 with UNSUPPORTED_VERSION;
//  - a header or body that does not decode: that connection is closed;
//  - a handler that throws: that API's error response, UNKNOWN_SERVER_ERROR.
// Thread-safe: called concurrently from every handler thread.
#pragma once

#include <memory>

#include "api/broker_info.h"
#include "api/broker_services.h"
#include "api/handler_registry.h"
#include "api/purgatory.h"
#include "api/responder.h"
#include "common/log_escape.h"
#include "config/broker_config.h"
#include "coordinator/group/group_coordinator.h"
#include "coordinator/txn/producer_ids.h"
#include "coordinator/txn/txn_host.h"
#include "log/log_manager.h"
#include "metadata/metadata_store.h"
#include "network/request.h"
#include "security/acl/authorizer.h"
#include "security/sasl/sasl_mechanisms.h"

namespace skiff::api {

class ApiVersionsHandler;
class ClientSoftware;
class ErrorObserver;
namespace quota {
class ClientQuotaStore;
class QuotaManager;
}  // namespace quota
class SaslAuthenticateHandler;
namespace telemetry {
class ClientMetricsManager;
}

class KafkaApis : public network::RequestHandler {
 public:
  // `metadata`: the store of the small durable state (ACLs, SCRAM
  // credentials, quotas, client-metrics subscriptions, group configs,
  // producer ids); it outlives this. Throws metadata::Failure when that state
  // is corrupt (the broker does not start).
  KafkaApis(const config::BrokerConfig& config, const BrokerInfo& broker, storage::LogManager& logs,
            metadata::MetadataStore& metadata, config::DynamicBrokerConfig* dynamic = nullptr);
  ~KafkaApis() override;

  void handle(network::Request request, network::ResponseSender& sender) override;

  // Shutdown, first step: answer every waiting request now, wait no more.
  void complete_delayed();
  // Last step, after the handler threads have stopped.
  void shutdown();

  const HandlerRegistry& registry() const { return registry_; }
  txn::TxnHost* txn_host() { return txn_.get(); }  // the transaction coordinator (tests)
  group::GroupCoordinator& groups() { return *groups_; }
  // KIP-714's subscriptions and pushed client metrics (/metrics collects them).
  telemetry::ClientMetricsManager& client_metrics() { return *client_metrics_; }
  quota::QuotaManager& quotas() { return *quotas_; }
  // The SASL listeners' mechanisms (the web console logs users in through them).
  const sasl::SaslMechanisms& sasl_mechanisms() const { return *sasl_; }
  // The client quota configs (connection_creation_rate is enforced by the network layer).
  const std::shared_ptr<quota::ClientQuotaStore>& client_quotas() const { return services_.client_quotas; }

  // Produce's transaction check (the coordinator's host sets it; tests set a
  // fake). Set before requests flow; null: transactional produce is refused.
  void set_txn_produce_gate(txn::TxnProduceGate* gate) { services_.txn_gate = gate; }
  // Messages and bytes per topic (api/topic_metrics.h). Set before requests
  // flow; null: not counted.
  void set_topic_metrics(TopicMetrics* metrics) { services_.topic_metrics = metrics; }
  // Which client software each connection runs (api/client_software.h). Set
  // before requests flow; null: not recorded.
  void set_client_software(ClientSoftware* software);
  // Where each response's error codes are counted (api/error_tally.h). Set
  // before requests flow; null: not counted.
  void set_error_observer(ErrorObserver* observer) { error_observer_ = observer; }

 private:
  // The group coordinator's APIs, classic and KIP-848's, into registry_.
  void add_group_handlers();
  // Transactions and the ACL APIs.
  void add_txn_and_acl_handlers();
  // SaslHandshake and SaslAuthenticate, and the SASL listeners' mechanisms.
  void add_sasl_handlers();
  // KIP-554's SCRAM credential APIs (security/sasl/scram_store.h).
  void add_scram_handlers();
  // KIP-714's GetTelemetrySubscriptions and PushTelemetry (api/telemetry/).
  void add_telemetry_handlers(metadata::MetadataStore& metadata);
  ApiHandler* route(ApiRequest& request, Responder& out, const Escaped& client);
  // A request_percentage quota's client, when one may apply (api/quota/).
  void attach_request_quota(const ApiRequest& request, Responder& out);

  Purgatory fetch_purgatory_;
  std::unique_ptr<group::GroupCoordinator> groups_;
  std::unique_ptr<txn::ProducerIds> producer_ids_;
  std::unique_ptr<acl::Authorizer> authorizer_;  // null: authorizer.class.name unset
  std::unique_ptr<telemetry::ClientMetricsManager> client_metrics_;
  BrokerServices services_;
  std::unique_ptr<quota::QuotaManager> quotas_;
  std::unique_ptr<txn::TxnHost> txn_;
  HandlerRegistry registry_;
  ApiVersionsHandler* api_versions_ = nullptr;
  std::unique_ptr<sasl::SaslMechanisms> sasl_;
  SaslAuthenticateHandler* sasl_authenticate_ = nullptr;  // also takes SaslHandshake v0's bare tokens
  ErrorObserver* error_observer_ = nullptr;
};

}  // namespace skiff::api
