// HttpRouter: the routes of the HTTP listener (network/http_server.h), by
// method and exact path, and the answers that need no route: 404 for an
// unknown path, 405 with Allow for a known path and another method, HEAD
// through the GET route (the server sends no body), 500 when a handler
// throws (logged; the broker keeps running), 400 for a target that is not
// a path or a query that does not decode.
// Asynchronous routes (network/http_exchange.h) answer through an
// HttpExchange, now or later from another thread; a streamed-body one runs
// as soon as the header is read.
// Threads: add() before the server starts; dispatch() on the HTTP thread,
// reading the table only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "network/http_exchange.h"
#include "network/http_message.h"

namespace skiff::network {

// Splits a request target into its path and its decoded query; nullopt when
// the target is not origin-form ("/path?query") or a %-escape is malformed.
struct HttpTarget {
  std::string path;
  std::map<std::string, std::string> query;
};
std::optional<HttpTarget> parse_http_target(std::string_view target);

// %XX escapes decoded, and '+' as a space when `plus_is_space` (query
// strings); nullopt for a '%' not followed by two hex digits.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);
// The percent-decoded segments of `path` ("/a/b%2Fc/" -> {"a", "b/c"}; '+'
// stays '+'); nullopt for a malformed escape.
std::optional<std::vector<std::string>> path_segments(std::string_view path);

// How the session serves a request (HttpRouter::kind).
enum class HttpRouteKind { kSync, kAsync, kAsyncStreamed };

class HttpRouter {
 public:
  void add(std::string method, std::string path, HttpHandler handler);
  void add_async(std::string method, std::string path, AsyncHttpHandler handler,
                 HttpBodyMode body = HttpBodyMode::kWhole);
  // What answers a request no route matches (an app that routes by its own
  // path patterns, e.g. the Schema Registry's /subjects/{s}/versions/{v});
  // unset: 404 or 405 as above.
  void set_fallback(HttpHandler handler) { fallback_ = std::move(handler); }
  // The same, asynchronous; `body` says per request (its header: method,
  // target, fields) how it gets its body (unset: kWhole). Replaces a
  // synchronous fallback.
  void set_async_fallback(AsyncHttpHandler handler, std::function<HttpBodyMode(const HttpRequest&)> body = {});
  // How `head` (a request whose body is not read yet) is served.
  HttpRouteKind kind(const HttpRequest& head) const;
  // `request.path` and `request.query` are filled in here from its target.
  HttpResponse dispatch(HttpRequest request) const;
  // For a kAsync or kAsyncStreamed request: its route answers through
  // `exchange` (a throwing route: 500, when it had not answered yet).
  void dispatch_async(HttpRequest request, const std::shared_ptr<HttpExchange>& exchange) const;

 private:
  struct Route {
    HttpHandler sync;
    AsyncHttpHandler async;  // set: an asynchronous route
    HttpBodyMode body = HttpBodyMode::kWhole;
  };
  const Route* find(const HttpRequest& request, const std::string& path) const;
  std::string allowed_methods(const std::string& path) const;    // "GET, HEAD"; "" for an unknown path
  std::map<std::pair<std::string, std::string>, Route> routes_;  // (path, method)
  HttpHandler fallback_;
  AsyncHttpHandler async_fallback_;
  std::function<HttpBodyMode(const HttpRequest&)> async_fallback_body_;
};

}  // namespace skiff::network
