// KafkaServer: startup, wiring and shutdown of the broker.
//
// Startup: check the log dirs, start the HTTP listener (/healthz, /readyz:
// server/http_routes.h; ready once the Kafka listeners are up), load the
// dynamic broker configs kept in the log dirs, load the logs (recovering after an unclean stop),
// bind the listeners (SocketServer), work out the advertised endpoints,
// create KafkaApis and start the M handler threads.
// Shutdown (graceful): stop accepting, answer what is in flight (bounded by
// skiff.shutdown.timeout.ms), stop the handlers, close everything, the
// HTTP listener last (/readyz answers 503 from the start of shutdown).
// Called from the main thread only.
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "api/broker_info.h"
#include "api/kafka_apis.h"
#include "apps/console/console_service.h"
#include "apps/rest_proxy/rest_proxy_app.h"
#include "apps/rest_proxy/v2_api.h"
#include "apps/schema_registry/schema_registry_app.h"
#include "config/broker_config.h"
#include "config/dynamic_broker_config.h"
#include "coordinator/runtime/state_topic.h"
#include "log/log_manager.h"
#include "metadata/metadata_store.h"
#include "network/http_server.h"
#include "network/request_channel.h"
#include "network/socket_server.h"
#include "server/broker_components.h"
#include "server/broker_metrics.h"
#include "server/console_schema_catalog.h"
#include "server/readiness.h"
#include "server/request_handler_pool.h"
#include "server/tiered_storage.h"
#include "server/tls_listeners.h"

namespace skiff::server {

class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KafkaServer {
 public:
  explicit KafkaServer(config::BrokerConfig config);
  ~KafkaServer();

  void startup();   // throws StartupError (or TlsStartupError) with a clear reason
  void shutdown();  // idempotent

  const api::BrokerInfo& broker_info() const { return broker_info_; }
  const network::SocketServer& socket_server() const { return *socket_server_; }
  // One line: listeners as bound and as advertised.
  std::string listeners_summary() const;
  // "HTTP on 127.0.0.1:8095" (every bound address) or "HTTP off".
  std::string http_summary() const;
  // "schema registry on 127.0.0.1:8081" or "schema registry off".
  std::string schema_registry_summary() const;
  // "REST proxy on 127.0.0.1:8082" or "REST proxy off".
  std::string rest_proxy_summary() const;

 private:
  void prepare_log_dirs();
  void open_metadata();
  void start_http();
  void open_logs();
  void resolve_advertised_endpoints();
  void start_console();
  void start_schema_registry();
  void start_rest_proxy();
  void start_tiered_storage();

  config::BrokerConfig config_;                           // static: file, environment, command line
  std::unique_ptr<metadata::MetadataStore> metadata_;     // small durable state; outlives apis_
  std::unique_ptr<config::DynamicBrokerConfig> dynamic_;  // runtime changes over config_
  api::BrokerInfo broker_info_;
  Readiness readiness_;                                                      // read by the HTTP thread
  PublishedMetrics published_metrics_;                                       // read by the HTTP thread
  console::ConsoleHost console_host_;                                        // read by the HTTP thread
  std::unique_ptr<network::HttpServer> http_;                                // null: HTTP off
  std::map<std::string, std::shared_ptr<network::TlsListenerContext>> tls_;  // SSL listeners
  HttpsContexts https_;  // TLS of the https:// endpoints (http.listeners, schema.registry.listeners)
  std::unique_ptr<network::RequestChannel> channel_;
  std::unique_ptr<network::SocketServer> socket_server_;
  std::unique_ptr<storage::LogManager> logs_;
  // Null unless remote.log.storage.system.enable; stopped before the logs close.
  std::unique_ptr<TieredStorage> tiered_;
  std::unique_ptr<BrokerMetrics> metrics_;        // reads logs_; published once they are loaded
  std::unique_ptr<BrokerComponents> components_;  // coordinators and stores KafkaApis serves with; outlive apis_
  std::unique_ptr<api::KafkaApis> apis_;
  std::unique_ptr<RequestHandlerPool> handlers_;
  std::unique_ptr<console::ConsoleService> console_;          // its sender outlives apis_'s requests: reset after apis_
  std::unique_ptr<coordinator::StateTopic> schemas_topic_;    // `_schemas`; outlives registry_
  std::unique_ptr<schemareg::SchemaRegistryApp> registry_;    // null: schema.registry.listeners empty
  std::unique_ptr<RegistryCatalog> schema_catalog_;           // the console's view of registry_; reset before it
  std::shared_ptr<restproxy::EmbeddedFormats> rest_formats_;  // the REST proxy's port to registry_ (null: none)
  std::unique_ptr<restproxy::RestProxyApp> rest_proxy_;  // null: rest.proxy.listeners empty; stopped before apis_ goes
  // The v2 API's consumer instances (on rest_proxy_'s RestKafka): reset once
  // rest_proxy_ stopped, while KafkaApis still answers (they commit and leave).
  std::unique_ptr<restproxy::V2Api> rest_v2_;
  bool started_ = false;
};

}  // namespace skiff::server
