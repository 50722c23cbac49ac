#include "apps/schema_registry/registry_http.h"

#include <chrono>
#include <future>
#include <memory>

#include "apps/schema_registry/registry_json.h"
#include "apps/schema_registry/registry_routes.h"
#include "network/http_router.h"

namespace skiff::schemareg {
namespace {

constexpr const char* kContentType = "application/vnd.schemaregistry.v1+json";

network::HttpResponse respond(int status, std::string body) {
  return network::HttpResponse{status, kContentType, std::move(body), {}};
}

}  // namespace

network::HttpResponse error_response(const RegistryError& e) {
  auto r = respond(e.http_status, error_json(e));
  if (e.http_status == 401) r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"skiff\", charset=\"UTF-8\"");
  return r;
}

network::HttpResponse ok_response(std::string body) { return respond(200, std::move(body)); }

RegistryHttp::RegistryHttp(RegistryService& service, RegistryHttpConfig config)
    : service_(service), config_(std::move(config)) {
  if (!config_.metrics) return;
  requests_ =
      &config_.metrics->counter("skiff_schema_registry_requests_total",
                                "Schema Registry requests by endpoint and HTTP status.", {"endpoint", "status"});
  latency_ = &config_.metrics->histogram(
      "skiff_schema_registry_request_seconds", "Schema Registry request latency by endpoint, in seconds.", {"endpoint"},
      {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5});
}

network::HttpResponse RegistryHttp::route(const network::HttpRequest& request, std::string& endpoint) {
  endpoint = "unknown";
  std::optional<std::string> user;
  if (config_.authenticate && !(user = config_.authenticate(request.authorization)))
    return error_response(RegistryError{401, 401, "Unauthorized"});
  auto parts = network::path_segments(request.path);
  if (!parts) return error_response(RegistryError{400, 400, "HTTP 400 Bad Request"});
  RouteCall call{service_, request, *parts, config_, user.value_or("ANONYMOUS")};
  return dispatch(call, endpoint);
}

network::HttpResponse RegistryHttp::answer(const network::HttpRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  std::string endpoint;
  auto response = route(request, endpoint);
  if (requests_) {
    requests_->with({endpoint, std::to_string(response.status)}).add();
    latency_->with({endpoint}).observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return response;
}

}  // namespace skiff::schemareg
