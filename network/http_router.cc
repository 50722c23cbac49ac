#include "network/http_router.h"

#include <algorithm>
#include <exception>

#include "common/log_escape.h"
#include "network/net_log.h"

namespace skiff::network {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

HttpResponse plain(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

}  // namespace

std::optional<std::vector<std::string>> path_segments(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    const size_t end = std::min(path.find('/', i), path.size());
    auto decoded = percent_decode(path.substr(i, end - i), /*plus_is_space=*/false);
    if (!decoded) return std::nullopt;
    out.push_back(std::move(*decoded));
    i = end;
  }
  return out;
}

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
    } else if (c != '%') {
      out += c;
    } else {
      int hi = i + 2 < text.size() ? hex_value(text[i + 1]) : -1;
      int lo = hi >= 0 ? hex_value(text[i + 2]) : -1;
      if (lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  return out;
}

std::optional<HttpTarget> parse_http_target(std::string_view target) {
  if (target.empty() || target.front() != '/') return std::nullopt;
  HttpTarget t;
  auto q = target.find('?');
  t.path = std::string(target.substr(0, q));
  std::string_view rest = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  rest = rest.substr(0, rest.find('#'));
  while (!rest.empty()) {
    auto amp = rest.find('&');
    auto pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    auto name = percent_decode(pair.substr(0, eq), true);
    auto value = percent_decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1), true);
    if (!name || !value) return std::nullopt;
    t.query.emplace(std::move(*name), std::move(*value));  // the first of a repeated name wins
  }
  return t;
}

void HttpRouter::add(std::string method, std::string path, HttpHandler handler) {
  routes_[{std::move(path), std::move(method)}] = Route{std::move(handler), {}, HttpBodyMode::kWhole};
}

void HttpRouter::add_async(std::string method, std::string path, AsyncHttpHandler handler, HttpBodyMode body) {
  routes_[{std::move(path), std::move(method)}] = Route{{}, std::move(handler), body};
}

void HttpRouter::set_async_fallback(AsyncHttpHandler handler, std::function<HttpBodyMode(const HttpRequest&)> body) {
  async_fallback_ = std::move(handler);
  async_fallback_body_ = std::move(body);
  fallback_ = {};
}

std::string HttpRouter::allowed_methods(const std::string& path) const {
  std::string out;
  for (auto it = routes_.lower_bound({path, ""}); it != routes_.end() && it->first.first == path; ++it) {
    out += (out.empty() ? "" : ", ") + it->first.second;
    if (it->first.second == "GET" && !routes_.count({path, "HEAD"})) out += ", HEAD";
  }
  return out;
}

const HttpRouter::Route* HttpRouter::find(const HttpRequest& request, const std::string& path) const {
  auto it = routes_.find({path, request.method});
  if (it == routes_.end() && request.method == "HEAD") it = routes_.find({path, "GET"});
  return it == routes_.end() ? nullptr : &it->second;
}

HttpRouteKind HttpRouter::kind(const HttpRequest& head) const {
  auto target = parse_http_target(head.target);
  if (!target) return HttpRouteKind::kSync;  // dispatch() answers 400
  if (const Route* r = find(head, target->path)) {
    if (!r->async) return HttpRouteKind::kSync;
    return r->body == HttpBodyMode::kStreamed ? HttpRouteKind::kAsyncStreamed : HttpRouteKind::kAsync;
  }
  if (!async_fallback_) return HttpRouteKind::kSync;
  if (!async_fallback_body_) return HttpRouteKind::kAsync;
  HttpRequest copy = head;
  copy.path = std::move(target->path);
  copy.query = std::move(target->query);
  return async_fallback_body_(copy) == HttpBodyMode::kStreamed ? HttpRouteKind::kAsyncStreamed : HttpRouteKind::kAsync;
}

HttpResponse HttpRouter::dispatch(HttpRequest request) const {
  auto target = parse_http_target(request.target);
  if (!target) return plain(400, "bad request target: expected /path?name=value, percent-encoded\n");
  request.path = std::move(target->path);
  request.query = std::move(target->query);
  const Route* route = find(request, request.path);
  const HttpHandler* handler = route && route->sync ? &route->sync : nullptr;
  if (!route && fallback_) handler = &fallback_;
  if (!handler) {
    if (route || async_fallback_) return plain(500, "internal error: an asynchronous route\n");
    auto allow = allowed_methods(request.path);
    if (allow.empty()) return plain(404, "not found\n");
    auto r = plain(405, "method not allowed\n");
    r.headers.emplace_back("Allow", std::move(allow));
    return r;
  }
  try {
    return (*handler)(request);
  } catch (const std::exception& e) {
    net_log().error("HTTP {} {}: handler failed: {}", escaped(request.method), escaped(request.target),
                    escaped(e.what()));
  } catch (...) {
    net_log().error("HTTP {} {}: handler failed", escaped(request.method), escaped(request.target));
  }
  return plain(500, "internal error\n");
}

void HttpRouter::dispatch_async(HttpRequest request, const std::shared_ptr<HttpExchange>& exchange) const {
  auto target = parse_http_target(request.target);
  if (!target) {
    exchange->respond(plain(400, "bad request target: expected /path?name=value, percent-encoded\n"));
    return;
  }
  request.path = std::move(target->path);
  request.query = std::move(target->query);
  const Route* route = find(request, request.path);
  const AsyncHttpHandler* handler = route && route->async ? &route->async : nullptr;
  if (!route && async_fallback_) handler = &async_fallback_;
  if (!handler) {
    exchange->respond(dispatch(std::move(request)));
    return;
  }
  const std::string method = request.method, where = request.target;
  try {
    (*handler)(std::move(request), exchange);
    return;
  } catch (const std::exception& e) {
    net_log().error("HTTP {} {}: handler failed: {}", escaped(method), escaped(where), escaped(e.what()));
  } catch (...) {
    net_log().error("HTTP {} {}: handler failed", escaped(method), escaped(where));
  }
  exchange->respond(plain(500, "internal error\n"));
}

}  // namespace skiff::network
