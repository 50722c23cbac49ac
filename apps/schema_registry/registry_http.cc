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

// Segments of a path, percent-decoded; nullopt when an escape is malformed.
std::optional<std::vector<std::string>> segments(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    const size_t end = std::min(path.find('/', i), path.size());
    auto decoded = network::percent_decode(path.substr(i, end - i), /*plus_is_space=*/false);
    if (!decoded) return std::nullopt;
    out.push_back(std::move(*decoded));
    i = end;
  }
  return out;
}

}  // namespace

network::HttpResponse error_response(const RegistryError& e) {
  auto r = respond(e.http_status, error_json(e));
  if (e.http_status == 401) r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"skiff\", charset=\"UTF-8\"");
  return r;
}

network::HttpResponse ok_response(std::string body) { return respond(200, std::move(body)); }

network::HttpResponse RegistryHttp::answer(const network::HttpRequest& request) {
  if (config_.authenticate && !config_.authenticate(request.authorization))
    return error_response(RegistryError{401, 401, "Unauthorized"});
  auto parts = segments(request.path);
  if (!parts) return error_response(RegistryError{400, 400, "HTTP 400 Bad Request"});
  RouteCall call{service_, request, *parts, config_};
  return dispatch(call);
}

}  // namespace skiff::schemareg
