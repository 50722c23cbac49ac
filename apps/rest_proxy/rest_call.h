// RestCall: one REST proxy request as a route sees it, after the app has
// authenticated it (HTTP Basic against the SASL users, when configured) and
// split its path; RestLimits: the proxy's bounds that routes apply (from the
// rest.proxy.* keys). Routes run on the app's worker threads, never on the
// HTTP thread, so a route may block (a consumer's long poll) up to the
// bounds given here.
// Threads: values, read by the route's worker thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "network/http_message.h"

namespace skiff::restproxy {

struct RestLimits {
  std::chrono::milliseconds consumer_instance_timeout{300000};  // an idle v2 consumer instance expires
  std::chrono::milliseconds consumer_request_timeout{1000};     // GET .../records waits at most this (default)
  int64_t consumer_request_max_bytes = 64LL << 20;              // GET .../records answers at most this
  int max_consumer_instances_per_user = 100;                    // more: 429 (error_code 42900)
  int max_records_per_response = 10000;                         // GET .../records and produce bodies
  int64_t max_request_bytes = 64LL << 20;                       // a request body (streamed: per record)
};

struct RestCall {
  const network::HttpRequest& request;
  const std::vector<std::string>& path;  // percent-decoded segments: {"topics", "t1", "partitions", "0"}
  std::string principal = "User:ANONYMOUS";
  std::string user;      // the Basic login name, "" when none is asked (per-user bounds)
  std::string base_uri;  // how the client reached us: "http://127.0.0.1:8082" (v2 consumers' base_uri)
  const RestLimits& limits;
};

}  // namespace skiff::restproxy
