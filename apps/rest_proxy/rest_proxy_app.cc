#include "apps/rest_proxy/rest_proxy_app.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/rest_kafka_errors.h"
#include "apps/rest_proxy/rest_media.h"
#include "apps/rest_proxy/v3_api.h"
#include "common/log_escape.h"
#include "network/http_router.h"
#include "network/listen_socket.h"

namespace skiff::restproxy {
namespace {

// Tasks waiting for a worker, at most: beyond, 503.
constexpr size_t kQueuePerWorker = 16;

bool is_v3(std::string_view path) { return path == "/v3" || path.starts_with("/v3/"); }

bool has_body(const network::HttpRequest& r) {
  return r.method == "POST" || r.method == "PUT" || r.method == "PATCH" || !r.body.empty();
}

std::string base_uri(const network::HttpRequest& r) {
  return std::string(r.secure ? "https://" : "http://") + (r.host.empty() ? "localhost" : r.host);
}

// 406 for an Accept without the answer's type, 415 for a body in a type
// not Confluent's (v3: application/json only); `type`: v2's answer type.
void negotiate(const network::HttpRequest& request, bool v3, std::string& type) {
  if (v3 && !accepts_json(request.accept)) throw RestError(406, 406, "HTTP 406 Not Acceptable");
  if (!v3) {
    auto negotiated = negotiate_v2(request.accept);
    if (!negotiated) throw RestError(406, 406, "HTTP 406 Not Acceptable");
    type = *negotiated;
  }
  if (has_body(request) && !request.content_type.empty()) {
    auto media = parse_media_type(request.content_type);
    if (!media || (v3 && media->name != kJson)) throw RestError(415, 415, "HTTP 415 Unsupported Media Type");
  }
}

}  // namespace

bool streams_body(const network::HttpRequest& head) {
  if (head.method != "POST" || !is_v3(head.path)) return false;
  auto parts = network::path_segments(head.path);
  // v3 clusters {id} topics {t} records
  return parts && parts->size() == 6 && (*parts)[1] == "clusters" && (*parts)[3] == "topics" &&
         (*parts)[5] == "records";
}

RestProxyApp::RestProxyApp(network::RequestHandler& handler, RestProxyAppConfig config)
    : config_(std::move(config)), kafka_{handler, sender_, config_.kafka_listener} {
  v3_ = std::make_unique<V3Api>(kafka_, config_.cluster_id, config_.formats, config_.limits);
  if (!config_.metrics) return;
  requests_ = &config_.metrics->counter("skiff_rest_proxy_requests_total",
                                        "REST proxy requests by endpoint and HTTP status.", {"endpoint", "status"});
  latency_ = &config_.metrics->histogram(
      "skiff_rest_proxy_request_seconds", "REST proxy request latency by endpoint, in seconds.", {"endpoint"},
      {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10});
}

RestProxyApp::~RestProxyApp() { stop(); }

void RestProxyApp::start() {
  network::HttpServerConfig http;
  http.limits.max_body_bytes = static_cast<size_t>(config_.limits.max_request_bytes);
  http.refusal = [](int status, const std::string& text) {
    std::string message = text;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return error_response(RestError(status, status, message), kJson);
  };
  auto server = std::make_unique<network::HttpServer>(http);
  server->set_async_fallback(
      [this](network::HttpRequest r, const std::shared_ptr<network::HttpExchange>& e) { accept(std::move(r), e); },
      [](const network::HttpRequest& head) {
        return streams_body(head) ? network::HttpBodyMode::kStreamed : network::HttpBodyMode::kWhole;
      });
  try {
    for (const auto& l : config_.listeners) server->bind(l.host, l.port, config::is_https(l) ? config_.tls : nullptr);
  } catch (const network::BindError& e) {
    if (config_.listeners_explicit) throw std::runtime_error(std::string("rest.proxy.listeners ") + e.what());
    spdlog::warn(
        "REST proxy is off: {} (rest.proxy.listeners is the default; set it to a free port, e.g. --override "
        "rest.proxy.listeners=http://127.0.0.1:0, or empty to run without it)",
        e.what());
    return;
  }
  const int threads = std::max(config_.worker_threads, 1);
  workers_ = std::make_unique<RestWorkers>(threads, kQueuePerWorker * static_cast<size_t>(threads), "skiff-rest");
  server->start();
  server_ = std::move(server);
}

void RestProxyApp::stop() {
  if (server_) server_->stop();  // open exchanges: closed, their workers' calls return
  if (workers_) workers_->stop();
  server_.reset();
  workers_.reset();
}

std::vector<std::string> RestProxyApp::endpoints() const {
  return server_ ? server_->endpoint_texts() : std::vector<std::string>{};
}

// HTTP thread: hand the request to a worker.
void RestProxyApp::accept(network::HttpRequest request, const std::shared_ptr<network::HttpExchange>& exchange) {
  const auto type = is_v3(request.path) ? kJson : kV2Json;  // before the request moves into the task
  auto task = [this, request = std::move(request), exchange]() mutable { serve(request, *exchange); };
  if (workers_ && workers_->submit(std::move(task))) return;
  exchange->respond(error_response(RestError(503, 50301, "The REST proxy is busy; retry later"), type));
  count("busy", 503, 0);
}

void RestProxyApp::serve(const network::HttpRequest& request, network::HttpExchange& exchange) {
  const auto start = std::chrono::steady_clock::now();
  std::string endpoint = "unknown";
  std::string type = is_v3(request.path) ? kJson : kV2Json;
  int status = 500;
  try {
    auto response = route(request, exchange, endpoint, type);
    status = response ? response->status : 200;
    if (response) exchange.respond(std::move(*response));
  } catch (const RestError& e) {
    status = e.status;
    if (!exchange.respond(error_response(e, type))) exchange.end();
  } catch (const client::ClientError& e) {  // the in-process client: a Kafka error, or no answer
    const auto mapped = e.error_code > 0 ? kafka_rest_error(static_cast<int16_t>(e.error_code), e.what())
                                         : RestError(500, 50002, e.what());
    status = mapped.status;
    if (!exchange.respond(error_response(mapped, type))) exchange.end();
  } catch (const std::exception& e) {
    spdlog::error("REST proxy {} {}: {}", escaped(request.method), escaped(request.target), escaped(e.what()));
    if (!exchange.respond(error_response(RestError(500, 50001, e.what()), type))) exchange.end();
  }
  count(endpoint, status, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

std::optional<network::HttpResponse> RestProxyApp::route(const network::HttpRequest& request,
                                                         network::HttpExchange& exchange, std::string& endpoint,
                                                         std::string& type) {
  const bool v3 = is_v3(request.path);
  std::optional<std::string> user;
  if (config_.authenticate && !(user = config_.authenticate(request.authorization))) {
    auto r = error_response(RestError(401, 401, "Unauthorized"), type);
    r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"skiff\", charset=\"UTF-8\"");
    return r;
  }
  auto segments = network::path_segments(request.path);
  if (!segments) throw RestError(400, 400, "HTTP 400 Bad Request: a malformed %-escape in the path");
  const std::string first = segments->empty() ? "" : segments->front();
  if (v3)
    endpoint = v3_->endpoint(request.method, *segments);
  else
    endpoint = first == "topics" || first == "consumers" || first == "brokers" ? "v2." + first : "v2.other";
  negotiate(request, v3, type);
  RestCall call{request,           *segments,         user ? "User:" + *user : "User:ANONYMOUS",
                user.value_or(""), base_uri(request), config_.limits};
  if (v3) return v3_->route(call, exchange, endpoint);
  std::optional<network::HttpResponse> answer;
  if (config_.v2) answer = config_.v2(call);
  if (!answer) throw RestError(404, 404, "HTTP 404 Not Found");
  return answer;
}

void RestProxyApp::count(const std::string& endpoint, int status, double seconds) {
  if (!requests_) return;
  requests_->with({endpoint, std::to_string(status)}).add();
  latency_->with({endpoint}).observe(seconds);
}

}  // namespace skiff::restproxy
