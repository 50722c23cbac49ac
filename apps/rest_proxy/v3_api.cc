#include "apps/rest_proxy/v3_api.h"

#include "apps/rest_proxy/rest_errors.h"

namespace skiff::restproxy {
namespace {

bool match(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
           std::vector<std::string>& params) {
  if (pattern.size() != path.size()) return false;
  params.clear();
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == "{}")
      params.push_back(path[i]);
    else if (pattern[i] != path[i])
      return false;
  }
  return true;
}

}  // namespace

V3Api::V3Api(const RestKafka& kafka, std::string cluster_id, std::shared_ptr<EmbeddedFormats> formats,
             const RestLimits& /*limits*/)
    : kafka_(kafka), cluster_id_(std::move(cluster_id)), formats_(std::move(formats)) {
  add_cluster_routes(routes_);
  add_topic_routes(routes_);
  add_group_routes(routes_);
  add_record_routes(routes_);
}

std::optional<network::HttpResponse> V3Api::route(const RestCall& call, network::HttpExchange& exchange,
                                                  std::string& endpoint) {
  std::vector<std::string> params;
  const Route* found = nullptr;
  bool path_known = false;
  const std::string method = call.request.method == "HEAD" ? "GET" : call.request.method;
  for (const auto& r : routes_) {
    if (!match(r.pattern, call.path, params)) continue;
    path_known = true;
    if (r.method == method) {
      found = &r;
      break;
    }
  }
  if (!found) {
    endpoint = path_known ? "v3.method_not_allowed" : "v3.unknown";
    if (path_known) throw RestError(405, 405, "HTTP 405 Method Not Allowed");
    throw RestError(404, 404, "HTTP 404 Not Found");
  }
  endpoint = found->name;
  // Every v3 path below /v3/clusters/{id} names this broker's cluster.
  if (call.path.size() >= 3 && call.path[2] != cluster_id_) throw RestError(404, 404, "HTTP 404 Not Found");
  auto kafka = kafka_.client(call.principal);
  V3Call v3{call, kafka, kafka_, exchange, params, cluster_id_, formats_.get()};
  return found->handler(v3);
}

}  // namespace skiff::restproxy
