// KafkaApis: the RequestHandler the handler threads call. It reads the
// request header, checks the API and version against the HandlerRegistry and
// hands the request to that API's handler (one file per API in handlers/).
//
//  - unknown API key, or a version outside the advertised range: the
//    connection is closed and the reason logged, as Apache Kafka does;
//    except ApiVersions above our max, answered in v0 with UNSUPPORTED_VERSION;
//  - a header or body that does not decode: that connection is closed;
//  - a handler that throws: that API's error response, UNKNOWN_SERVER_ERROR.
// KafkaApis owns the handlers only: the coordinators, stores and services
// they work with are built by server/ (server/broker_components.h) and
// received as BrokerServices, which outlive it.
// Thread-safe: called concurrently from every handler thread.
#pragma once

#include <memory>

#include "api/broker_services.h"
#include "api/handler_registry.h"
#include "api/responder.h"
#include "common/log_escape.h"
#include "network/request.h"

namespace skiff::api {

class ApiVersionsHandler;
class FeatureLevels;
class ClientSoftware;
class ErrorObserver;
class SaslAuthenticateHandler;

class KafkaApis : public network::RequestHandler {
 public:
  // `services` (and everything it refers to) outlives this.
  explicit KafkaApis(BrokerServices& services);
  ~KafkaApis() override;

  void handle(network::Request request, network::ResponseSender& sender) override;

  const HandlerRegistry& registry() const { return registry_; }

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
  void add_share_state_handlers();
  void add_share_group_handlers();
  // SaslHandshake and SaslAuthenticate, and the SASL listeners' mechanisms.
  void add_sasl_handlers();
  // KIP-554's SCRAM credential APIs (security/sasl/scram_store.h).
  void add_scram_handlers();
  // Registers `handler` behind a feature gate.
  void add_gated(std::unique_ptr<ApiHandler> handler, ApiHandler::FeatureGate gate);
  // KIP-714's GetTelemetrySubscriptions and PushTelemetry (api/telemetry/).
  void add_telemetry_handlers();
  ApiHandler* route(ApiRequest& request, Responder& out, const Escaped& client);
  // A request_percentage quota's client, when one may apply (api/quota/).
  void attach_request_quota(const ApiRequest& request, Responder& out);

  // The handler's feature gate is closed (api/api_handler.h).
  bool gated_off(const ApiHandler& handler) const;

  BrokerServices& services_;
  std::unique_ptr<FeatureLevels> own_features_;  // when services_ brings none
  HandlerRegistry registry_;
  ApiVersionsHandler* api_versions_ = nullptr;
  SaslAuthenticateHandler* sasl_authenticate_ = nullptr;  // also takes SaslHandshake v0's bare tokens
  ErrorObserver* error_observer_ = nullptr;
};

}  // namespace skiff::api
