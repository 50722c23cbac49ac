// The routes of the Schema Registry's REST API (internal to
// apps/schema_registry/, used by registry_http.cc): a table of (method,
// path pattern, handler), patterns matched segment by segment with "*" for
// a path parameter, each handler a thin call of RegistryService.
// Threads: the registry's HTTP thread.
#pragma once

#include <string>
#include <vector>

#include "apps/schema_registry/registry_http.h"

namespace skiff::schemareg {

struct RouteCall {
  RegistryService& service;
  const network::HttpRequest& request;
  const std::vector<std::string>& path;  // percent-decoded segments
  const RegistryHttpConfig& config;
  std::string user = "ANONYMOUS";  // who asks (authenticated name)
};

// The answer, and in `endpoint` the route that took the request
// ("GET /subjects/{}/versions"; "unknown" when none did), a bounded label.
network::HttpResponse dispatch(RouteCall& call, std::string& endpoint);

// The answers every route writes (registry_http.cc).
network::HttpResponse error_response(const RegistryError& e);
network::HttpResponse ok_response(std::string body);

}  // namespace skiff::schemareg
