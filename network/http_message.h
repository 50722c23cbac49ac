// What an HTTP route sees and answers (network/http_server.h): a request
// already parsed and limited by the server, and the response a handler
// returns. Plain values, no Beast types, so routes (server/http_routes.h)
// depend on nothing but this header.
// Threads: values; handlers run on the HTTP thread (asynchronous ones hand
// their work on: network/http_exchange.h).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace skiff::network {

struct HttpRequest {
  std::string method;                        // "GET", "HEAD" (routed to GET), "POST", ...
  std::string target;                        // path and query as sent: "/readyz?verbose=1"
  std::string path;                          // "/readyz" (not percent-decoded)
  std::map<std::string, std::string> query;  // percent-decoded ('+' is a space); first of a repeated name wins
  std::string body;                          // at most the server's body limit (1 MiB)
  std::string content_type;                  // the Content-Type field as sent ("" if none)
  std::string authorization;                 // the Authorization field as sent ("" if none)
  std::string accept;                        // the Accept field as sent ("" if none)
  std::string peer_address;                  // the client's IP address, as text ("" if unknown)
  std::string host;                          // the Host field as sent ("" if none)
  bool secure = false;                       // arrived over TLS (an https:// endpoint)
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Extra header fields; Content-Type, Content-Length and Connection are the
  // server's. A name or value holding CR or LF is dropped.
  std::vector<std::pair<std::string, std::string>> headers;
};

// May throw: the client gets 500 and the error is logged.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

}  // namespace skiff::network
