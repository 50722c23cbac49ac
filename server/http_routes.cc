#include "server/http_routes.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "apps/console/console_assets.h"

namespace skiff::server {
namespace {

network::HttpResponse text(int status, std::string body) {
  network::HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace

void register_http_routes(network::HttpServer& http, const HttpRouteContext& context) {
  http.route("GET", "/healthz", [](const network::HttpRequest&) { return text(200, "ok\n"); });
  const Readiness* readiness = &context.readiness;
  http.route("GET", "/readyz", [readiness](const network::HttpRequest&) {
    auto state = readiness->state();
    if (state == Readiness::State::kReady) return text(200, "ready\n");
    return text(503, fmt::format("not ready: {}\n", Readiness::reason(state)));
  });
  const PublishedMetrics* metrics = &context.metrics;
  http.route("GET", "/metrics", [metrics](const network::HttpRequest&) {
    auto body = metrics->scrape();
    if (!body) return text(503, "not ready: metrics appear once the logs are loaded\n");
    auto r = text(200, std::move(*body));
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";  // Prometheus's text format
    return r;
  });
  for (const auto& asset : console::console_assets()) {
    http.route("GET", std::string(asset.path), [&asset](const network::HttpRequest&) {
      network::HttpResponse r;
      r.content_type = std::string(asset.content_type);
      r.body = std::string(asset.body);
      r.headers.emplace_back("Cache-Control", "no-cache");
      r.headers.emplace_back("X-Content-Type-Options", "nosniff");
      r.headers.emplace_back("Content-Security-Policy", "default-src 'self'; img-src 'self' data:");
      return r;
    });
  }
  console::register_console_routes(http, context.console);
}

std::unique_ptr<network::HttpServer> start_http_server(const config::BrokerConfig& config,
                                                       const HttpRouteContext& context,
                                                       const std::shared_ptr<network::TlsListenerContext>& tls) {
  if (config.http_listeners.empty()) return nullptr;
  auto http = std::make_unique<network::HttpServer>();
  register_http_routes(*http, context);
  try {
    for (const auto& l : config.http_listeners) http->bind(l.host, l.port, config::is_https(l) ? tls : nullptr);
  } catch (const network::BindError& e) {
    if (config.set_explicitly("http.listeners")) throw;
    spdlog::warn(
        "HTTP is off: {} (http.listeners is the default; set it to a free port, e.g. "
        "--override http.listeners=http://127.0.0.1:0, or empty to run without HTTP)",
        e.what());
    return nullptr;
  }
  http->start();
  return http;
}

std::string http_summary(const network::HttpServer* http) {
  if (!http) return "HTTP off";
  std::string out;
  for (const auto& ep : http->endpoint_texts()) out += (out.empty() ? "HTTP on " : ", ") + ep;
  return out;
}

}  // namespace skiff::server
