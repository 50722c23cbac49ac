// The routes of the broker's HTTP listener (network/http_server.h), and its
// start from http.listeners.
//
//   GET /healthz  200 "ok" while the process runs (liveness)
//   GET /readyz   200 "ready" once the logs are loaded and the Kafka
//                 listeners are up; before that and during shutdown
//                 503 "not ready: <reason>" (server/readiness.h)
//   GET /metrics  Prometheus text exposition (server/broker_metrics.h) once
//                 the logs are loaded; before that and during shutdown 503
//   GET /         the web console (apps/console/: its page and assets,
//                 and the JSON API under /api/, docs/console-api.md)
//
// Handlers run on the HTTP thread: they read only what HttpRouteContext
// hands them, each safe to read from there.
// Called from the controlling thread (KafkaServer::startup).
#pragma once

#include <memory>

#include "apps/console/console_service.h"
#include "config/broker_config.h"
#include "network/http_server.h"
#include "server/broker_metrics.h"
#include "server/readiness.h"

namespace skiff::server {

// What the routes read. Add here what a new route needs (e.g. /metrics: the
// registry it renders), never a reference to state owned by another thread
// without its synchronisation.
struct HttpRouteContext {
  const Readiness& readiness;
  const PublishedMetrics& metrics;
  const console::ConsoleHost& console;
};

// Every route of the broker's HTTP listener; add new ones here.
void register_http_routes(network::HttpServer& http, const HttpRouteContext& context);

// The HTTP server of `config.http_listeners`, bound and started with the
// routes above, its https:// endpoints with `tls` (server/tls_listeners.h:
// HttpsContexts::http); null when http.listeners is empty, or when it is the
// default and cannot be bound (logged as a warning: HTTP is off, the broker
// runs). Throws network::BindError when an explicitly configured listener
// cannot be bound.
std::unique_ptr<network::HttpServer> start_http_server(
    const config::BrokerConfig& config, const HttpRouteContext& context,
    const std::shared_ptr<network::TlsListenerContext>& tls = nullptr);

// "HTTP on 127.0.0.1:8095" (every bound address, an https:// one written
// "https://127.0.0.1:8443"), or "HTTP off".
std::string http_summary(const network::HttpServer* http);

}  // namespace skiff::server
