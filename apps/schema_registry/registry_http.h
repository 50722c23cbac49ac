// RegistryHttp: Confluent Schema Registry's REST API over RegistryService:
// the routes (the table in this folder's CMakeLists.txt), their query
// parameters, request bodies and JSON answers as Confluent's registry
// writes them, and its error body {"error_code": ..., "message": ...}.
//
//   Content types: answers are application/vnd.schemaregistry.v1+json; a
//   body is read as JSON whatever it says (Confluent accepts
//   application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry
//   +json, application/json and application/octet-stream).
//   Paths: segments are percent-decoded ("a%2Fb" is the subject "a/b").
//   Unknown paths: 404 {"error_code":404,"message":"HTTP 404 Not Found"};
//   a known path with another method 405, as Confluent's Jersey answers.
//   Writes wait until the service answers (durable in `_schemas`).
//   Authentication: when `authenticate` is set, every request carries HTTP
//   Basic credentials it accepts, else 401 (error_code 401). Authorization:
//   a write `may_write` refuses is 403 (error_code 40301).
//
// Threads: answer() on the registry's HTTP thread; it blocks that thread
// while a write becomes durable.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "apps/schema_registry/registry_service.h"
#include "common/metrics.h"
#include "network/http_message.h"

namespace skiff::schemareg {

struct RegistryHttpConfig {
  std::string kafka_cluster_id;  // /v1/metadata/id
  // Requests by endpoint and status, latency by endpoint (null: not counted).
  metrics::Registry* metrics = nullptr;
  // The user a request's Authorization header names, nullopt when wrong or
  // missing; unset: no authentication.
  std::function<std::optional<std::string>(const std::string& authorization)> authenticate;
  // Whether the user (the authenticated name, "ANONYMOUS" without
  // authentication) from this address may write: register, delete, PUT and
  // DELETE config and mode need ALTER on the cluster or a super user, as the
  // broker's authorizer decides; unset: everyone may (no authorizer).
  std::function<bool(const std::string& user, const std::string& host)> may_write;
};

class RegistryHttp {
 public:
  RegistryHttp(RegistryService& service, RegistryHttpConfig config);

  network::HttpResponse answer(const network::HttpRequest& request);

 private:
  network::HttpResponse route(const network::HttpRequest& request, std::string& endpoint);

  RegistryService& service_;
  RegistryHttpConfig config_;
  metrics::Family<metrics::Counter>* requests_ = nullptr;
  metrics::Family<metrics::Histogram>* latency_ = nullptr;
};

}  // namespace skiff::schemareg
