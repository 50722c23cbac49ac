#include "remote/s3/http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

namespace skiff::remote::s3 {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct HttpClient::TlsContext {
  asio::ssl::context ctx{asio::ssl::context::tls_client};
};

struct HttpClient::Connection {
  asio::io_context io;
  std::unique_ptr<beast::tcp_stream> plain;
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::tcp_stream& lowest() { return secure ? beast::get_lowest_layer(*secure) : *plain; }
};

namespace {

S3Error error_of(const beast::error_code& ec, const std::string& what) {
  const bool timeout = ec == beast::error::timeout;
  return transport_error(timeout ? S3ErrorKind::kTimeout : S3ErrorKind::kConnection,
                         what + (timeout ? ": timed out" : ": " + ec.message()));
}

struct Outcome {
  beast::error_code ec;
  bool got_some = false;  // any byte of an answer was parsed
  std::optional<HttpResponse> response;
  bool keep_alive = false;
};

template <class Stream>
Outcome exchange(HttpClient::Connection& c, Stream& stream, const HttpRequest& r, const HttpOptions& o) {
  http::request<http::span_body<const char>> req;
  req.method_string(r.method);
  req.target(r.target);
  req.version(11);
  for (const auto& [n, v] : r.headers) req.set(n, v);
  req.body() = {r.body.data(), r.body.size()};
  req.prepare_payload();
  req.keep_alive(true);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(o.max_response_bytes);
  parser.header_limit(64 * 1024);
  if (r.method == "HEAD") parser.skip(true);
  Outcome out;
  c.lowest().expires_after(o.io_timeout);
  http::async_write(stream, req, [&](beast::error_code ec, size_t) {
    if (ec) {
      out.ec = ec;
      return;
    }
    c.lowest().expires_after(o.io_timeout);
    http::async_read(stream, buffer, parser, [&](beast::error_code ec2, size_t) { out.ec = ec2; });
  });
  c.io.restart();
  c.io.run();
  out.got_some = parser.got_some();
  if (out.ec) return out;
  auto res = parser.release();
  HttpResponse hr;
  hr.status = static_cast<int>(res.result_int());
  for (const auto& f : res) {
    std::string name(f.name_string());
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    hr.headers.emplace_back(std::move(name), std::string(f.value()));
  }
  hr.body = std::move(res.body());
  out.keep_alive = res.keep_alive();
  out.response = std::move(hr);
  return out;
}

}  // namespace

std::string HttpResponse::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (n == name) return v;
  return "";
}

HttpClient::HttpClient(HttpOptions options) : options_(std::move(options)) {
  try {
    tls_ = std::make_unique<TlsContext>();
    tls_->ctx.set_verify_mode(asio::ssl::verify_peer);
    if (!options_.ca_file.empty()) tls_->ctx.load_verify_file(options_.ca_file);
    if (!options_.ca_dir.empty()) tls_->ctx.add_verify_path(options_.ca_dir);
    if (options_.ca_file.empty() && options_.ca_dir.empty()) tls_->ctx.set_default_verify_paths();
  } catch (const std::exception& e) {
    tls_.reset();
    tls_error_ = std::string("TLS trust store: ") + e.what();
  }
}

HttpClient::~HttpClient() = default;

size_t HttpClient::connections_opened() const {
  std::lock_guard lock(mu_);
  return opened_;
}

std::unique_ptr<HttpClient::Connection> HttpClient::take_idle(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = idle_.find(key);
  if (it == idle_.end() || it->second.empty()) return nullptr;
  auto c = std::move(it->second.back());
  it->second.pop_back();
  return c;
}

void HttpClient::give_back(const std::string& key, std::unique_ptr<Connection> c) {
  std::lock_guard lock(mu_);
  auto& v = idle_[key];
  if (v.size() < options_.max_idle_per_host) v.push_back(std::move(c));
}

Expected<std::unique_ptr<HttpClient::Connection>, S3Error> HttpClient::connect(const HttpPeer& peer) {
  if (peer.tls && !tls_) return unexpected(transport_error(S3ErrorKind::kConfig, tls_error_));
  auto c = std::make_unique<Connection>();
  const std::string where = peer.host + ":" + peer.port;
  beast::error_code ec;
  tcp::resolver resolver(c->io);
  const auto forced = options_.resolve_overrides.find(peer.host);
  const std::string& dial = forced == options_.resolve_overrides.end() ? peer.host : forced->second;
  auto endpoints = resolver.resolve(dial, peer.port, ec);
  if (ec) return unexpected(error_of(ec, "cannot resolve " + peer.host));
  c->plain = std::make_unique<beast::tcp_stream>(c->io);
  c->plain->expires_after(options_.connect_timeout);
  c->plain->async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
  c->io.run();
  if (ec) return unexpected(error_of(ec, "cannot connect to " + where));
  c->plain->socket().set_option(tcp::no_delay(true), ec);
  if (peer.tls) {
    c->secure = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(std::move(*c->plain), tls_->ctx);
    c->plain.reset();
    SSL_set_tlsext_host_name(c->secure->native_handle(), peer.host.c_str());
    if (options_.verify_hostname) c->secure->set_verify_callback(asio::ssl::host_name_verification(peer.host));
    c->lowest().expires_after(options_.connect_timeout);
    c->secure->async_handshake(asio::ssl::stream_base::client, [&](beast::error_code e) { ec = e; });
    c->io.restart();
    c->io.run();
    if (ec) {
      // A certificate the trust store or the host name refuses stays refused:
      // not retriable. A handshake cut by the network is.
      S3Error e = error_of(ec, "TLS handshake with " + where + " failed");
      if (ec.category() == asio::error::get_ssl_category()) e.retriable = false;
      return unexpected(std::move(e));
    }
  }
  std::lock_guard lock(mu_);
  ++opened_;
  return c;
}

Expected<HttpResponse, S3Error> HttpClient::send(const HttpPeer& peer, const HttpRequest& request) {
  const std::string key = (peer.tls ? "https://" : "http://") + peer.host + ":" + peer.port;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto c = attempt == 0 ? take_idle(key) : nullptr;
    const bool reused = c != nullptr;
    if (!c) {
      auto fresh = connect(peer);
      if (!fresh) return unexpected(std::move(fresh.error()));
      c = std::move(*fresh);
    }
    Outcome out;
    try {
      out = c->secure ? exchange(*c, *c->secure, request, options_) : exchange(*c, *c->plain, request, options_);
    } catch (const std::exception& e) {
      return unexpected(transport_error(S3ErrorKind::kConnection, std::string("HTTP exchange: ") + e.what()));
    }
    if (out.ec) {
      // A pooled connection the server closed while idle: once more on a new one.
      if (reused && !out.got_some && out.ec != beast::error::timeout) continue;
      return unexpected(error_of(out.ec, request.method + " " + key));
    }
    if (out.keep_alive) give_back(key, std::move(c));
    return std::move(*out.response);
  }
  return unexpected(transport_error(S3ErrorKind::kConnection, "unreachable"));
}

}  // namespace skiff::remote::s3
