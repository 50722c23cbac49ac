// RestProxyApp: the built-in REST proxy (issue 53) as the broker runs it:
// Confluent REST Proxy's API on its own HTTP listener (rest.proxy.listeners,
// default http://127.0.0.1:8082; https:// endpoints serve TLS with `tls`),
// every call ordinary Kafka requests through RestKafka.
//
// A request goes: HTTP thread (network/http_server.h, an asynchronous
// fallback) -> a worker of the bounded pool (rest_workers.h; full: 503) ->
// authentication (HTTP Basic against the SASL users when `authenticate` is
// set; else User:ANONYMOUS) -> negotiation (rest_media.h: 406, 415) -> /v3
// paths to the v3 routes (v3_api.h), every other path to the `v2` hook
// (nullopt or unset: 404). Errors are Confluent's bodies (rest_errors.h);
// the HTTP layer's own refusals (413, 431, 400) too. Requests are counted
// by endpoint and status (skiff_rest_proxy_requests_total) with their
// latency (skiff_rest_proxy_request_seconds).
//
// Lifecycle: start() binds and starts the listener (a busy port: throws
// std::runtime_error when the listeners were set explicitly, else warns and
// leaves the proxy off); stop() closes the listener (open exchanges see the
// connection gone), then joins the workers. The app must stop before the
// RequestHandler goes; it owns the InProcessSender its clients answer
// through, so it is destroyed after the handler's last request.
// Threads: start()/stop() on the controlling thread; the rest on the HTTP
// thread and the workers.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/rest_proxy/embedded_formats.h"
#include "apps/rest_proxy/rest_call.h"
#include "apps/rest_proxy/rest_kafka.h"
#include "apps/rest_proxy/rest_workers.h"
#include "common/metrics.h"
#include "config/listener.h"
#include "network/http_exchange.h"
#include "network/http_server.h"
#include "network/tls_context.h"

namespace skiff::restproxy {

class V3Api;

// The v2 API (produce, metadata, consumer instances): nullopt for a path it
// does not serve (404). May throw RestError.
using V2Routes = std::function<std::optional<network::HttpResponse>(const RestCall&)>;

struct RestProxyAppConfig {
  std::vector<config::Listener> listeners;           // http:// or https:// (config::is_https)
  bool listeners_explicit = false;                   // a busy port fails start() (else: warn, proxy off)
  std::shared_ptr<network::TlsListenerContext> tls;  // https:// endpoints; null when none is
  RestLimits limits;
  int worker_threads = 8;
  std::string kafka_listener;            // the listener name RestKafka's requests are said to arrive on
  std::string cluster_id;                // v3's cluster_id
  metrics::Registry* metrics = nullptr;  // null: requests not counted
  // The user an Authorization header names, nullopt when wrong or missing;
  // unset: no authentication (every call is User:ANONYMOUS).
  std::function<std::optional<std::string>(const std::string& authorization)> authenticate;
  V2Routes v2;
  std::shared_ptr<EmbeddedFormats> formats;  // null: avro/jsonschema/protobuf are refused
};

class RestProxyApp {
 public:
  RestProxyApp(network::RequestHandler& handler, RestProxyAppConfig config);
  ~RestProxyApp();
  RestProxyApp(const RestProxyApp&) = delete;
  RestProxyApp& operator=(const RestProxyApp&) = delete;

  void start();
  void stop();  // idempotent

  // The addresses bound (empty when off), https:// ones with their scheme.
  std::vector<std::string> endpoints() const;
  const RestKafka& kafka() const { return kafka_; }

 private:
  void accept(network::HttpRequest request, const std::shared_ptr<network::HttpExchange>& exchange);
  void serve(const network::HttpRequest& request, network::HttpExchange& exchange);
  // The answer, or nullopt when the route answered through `exchange`.
  std::optional<network::HttpResponse> route(const network::HttpRequest& request, network::HttpExchange& exchange,
                                             std::string& endpoint, std::string& error_type);
  void count(const std::string& endpoint, int status, double seconds);

  RestProxyAppConfig config_;
  client::InProcessSender sender_;  // outlives every request given to the handler
  RestKafka kafka_;
  std::unique_ptr<V3Api> v3_;
  std::unique_ptr<RestWorkers> workers_;
  std::unique_ptr<network::HttpServer> server_;
  metrics::Family<metrics::Counter>* requests_ = nullptr;
  metrics::Family<metrics::Histogram>* latency_ = nullptr;
};

// Whether a request streams its body (v3's POST .../records).
bool streams_body(const network::HttpRequest& head);

}  // namespace skiff::restproxy
