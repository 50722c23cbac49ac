#include "security/oauth/http_get.h"

#include <fmt/format.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

namespace skiff::oauth {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct Url {
  bool tls = false;
  std::string host, port, target;
};

std::optional<Url> parse_url(const std::string& url) {
  Url u;
  std::string_view rest(url);
  if (rest.starts_with("https://")) {
    u.tls = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  const auto slash = rest.find_first_of("/?#");
  auto authority = rest.substr(0, slash);
  u.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (auto hash = u.target.find('#'); hash != std::string::npos) u.target.erase(hash);
  if (u.target.empty() || u.target[0] == '?') u.target.insert(0, "/");
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  u.port = u.tls ? "443" : "80";
  if (authority.starts_with("[")) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    u.host = std::string(authority.substr(1, close - 1));
    if (authority.size() > close + 2 && authority[close + 1] == ':') u.port = std::string(authority.substr(close + 2));
  } else {
    const auto colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) u.port = std::string(authority.substr(colon + 1));
  }
  if (u.host.empty() || u.port.empty()) return std::nullopt;
  return u;
}

void configure_tls(asio::ssl::context& ctx, const HttpGetOptions& o) {
  ctx.set_verify_mode(asio::ssl::verify_peer);
  if (!o.truststore_location.empty())
    ctx.load_verify_file(o.truststore_location);
  else if (!o.truststore_certificates.empty())
    ctx.add_certificate_authority(asio::buffer(o.truststore_certificates));
  else
    ctx.set_default_verify_paths();
}

// The exchange on `stream` (a tcp_stream or an ssl_stream of one), run on
// `io` for at most the timeout.
template <class Stream>
HttpGetResult exchange(asio::io_context& io, Stream& stream, const Url& u, const HttpGetOptions& o) {
  HttpGetResult r;
  http::request<http::empty_body> req{http::verb::get, u.target, 11};
  req.set(http::field::host, u.host);
  req.set(http::field::user_agent, "skiff-jwks");
  req.set(http::field::accept, "application/json");
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(o.max_body_bytes);
  beast::error_code failed;
  beast::get_lowest_layer(stream).expires_after(o.timeout);
  http::async_write(stream, req, [&](beast::error_code ec, size_t) {
    if (ec) {
      failed = ec;
      return;
    }
    http::async_read(stream, buffer, parser, [&](beast::error_code ec2, size_t) { failed = ec2; });
  });
  io.run();
  if (failed) {
    r.error = failed.message();
    return r;
  }
  auto res = parser.release();
  r.status = static_cast<int>(res.result_int());
  r.body = std::move(res.body());
  r.ok = r.status == 200;
  if (!r.ok) r.error = fmt::format("Non 200 status code ({}) returned", r.status);
  return r;
}

}  // namespace

HttpGetResult http_get(const std::string& url, const HttpGetOptions& o) {
  HttpGetResult r;
  auto u = parse_url(url);
  if (!u) {
    r.error = "not an http(s) URL";
    return r;
  }
  try {
    asio::io_context io;
    tcp::resolver resolver(io);
    beast::error_code ec;
    // Name resolution and connect, bounded by the timeout through the stream.
    auto endpoints = resolver.resolve(u->host, u->port, ec);
    if (ec) {
      r.error = fmt::format("cannot resolve {}: {}", u->host, ec.message());
      return r;
    }
    beast::tcp_stream tcp_stream(io);
    tcp_stream.expires_after(o.timeout);
    tcp_stream.async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
    io.run();
    io.restart();
    if (ec) {
      r.error = fmt::format("cannot connect to {}:{}: {}", u->host, u->port, ec.message());
      return r;
    }
    if (!u->tls) return exchange(io, tcp_stream, *u, o);
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    configure_tls(ctx, o);
    beast::ssl_stream<beast::tcp_stream> tls(std::move(tcp_stream), ctx);
    SSL_set_tlsext_host_name(tls.native_handle(), u->host.c_str());
    if (o.verify_hostname) tls.set_verify_callback(asio::ssl::host_name_verification(u->host));
    beast::get_lowest_layer(tls).expires_after(o.timeout);
    tls.async_handshake(asio::ssl::stream_base::client, [&](beast::error_code e) { ec = e; });
    io.run();
    io.restart();
    if (ec) {
      r.error = fmt::format("TLS handshake with {}:{} failed: {}", u->host, u->port, ec.message());
      return r;
    }
    return exchange(io, tls, *u, o);
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
}

}  // namespace skiff::oauth
