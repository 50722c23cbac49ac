#include "network/http_server.h"

#include <fmt/format.h>
#include <pthread.h>

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <exception>
#include <string>
#include <vector>

#include "common/log_escape.h"
#include "network/net_log.h"

namespace skiff::network {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr auto kAcceptRetry = std::chrono::milliseconds(100);
constexpr auto kAcceptFailureReportInterval = std::chrono::seconds(10);
constexpr auto kHttpTlsReloadPeriod = std::chrono::seconds(3);  // as the Kafka listeners' (acceptor.cc)

std::string host_port(const std::string& host, uint16_t port) {
  return host.find(':') == std::string::npos ? fmt::format("{}:{}", host, port) : fmt::format("[{}]:{}", host, port);
}

}  // namespace

struct HttpServer::Slot {
  explicit Slot(int& live) : live(live) { ++live; }
  ~Slot() { --live; }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  int& live;
};

HttpServer::HttpServer(HttpServerConfig config)
    : config_(std::move(config)),
      env_{router_,
           config_.limits,
           [this](const std::string& listener, const std::string& peer, const std::string& why) {
             on_handshake_failed(listener, peer, why);
           },
           nullptr,  // poster: once io_ exists
           config_.exchange_queue_bytes,
           config_.refusal},
      io_(std::make_unique<asio::io_context>(1)) {
  env_.poster = std::make_shared<HttpPoster>(*io_);
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::route(std::string method, std::string path, HttpHandler handler) {
  router_.add(std::move(method), std::move(path), std::move(handler));
}

void HttpServer::route_async(std::string method, std::string path, AsyncHttpHandler handler, HttpBodyMode body) {
  router_.add_async(std::move(method), std::move(path), std::move(handler), body);
}

void HttpServer::bind(const std::string& host, uint16_t port, const std::shared_ptr<TlsListenerContext>& tls) {
  // As the Kafka listeners (listen_socket.h), ::1 of localhost optional.
  const char* scheme = tls ? "https" : "http";
  for (auto& a :
       listen_all(*io_, host, port, "http.listeners", fmt::format("{}://{}", scheme, host_port(host, port)))) {
    endpoints_.push_back(a.local_endpoint());
    endpoint_tls_.push_back(tls != nullptr);
    listening_.push_back(std::make_unique<Listening>(Listening{std::move(a), tls}));
  }
}

std::vector<std::string> HttpServer::endpoint_texts() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < endpoints_.size(); ++i)
    out.push_back((endpoint_tls_[i] ? "https://" : "") + endpoint_text(endpoints_[i]));
  return out;
}

void HttpServer::start() {
  for (auto& l : listening_) accept_next(*l);
  schedule_tls_reload();
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "skiff-http");
    io_->run();
  });
}

void HttpServer::stop() {
  if (!io_) return;
  env_.poster->close();  // an exchange's thread posts nothing more
  io_->stop();
  if (thread_.joinable()) thread_.join();
  listening_.clear();
  tls_reload_timer_.reset();
  io_.reset();  // destroys the pending operations, and with them the sessions
}

void HttpServer::accept_next(Listening& l) {
  l.acceptor.async_accept(
      [this, &l](const boost::system::error_code& ec, tcp::socket socket) { on_accepted(l, ec, std::move(socket)); });
}

void HttpServer::on_accepted(Listening& l, const boost::system::error_code& ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted) return;
  if (ec) return retry_accept(l, ec);
  if (live_ >= config_.max_connections) {
    refuse(std::move(socket));
  } else if (l.tls) {
    start_tls_session(l, std::move(socket));
  } else {
    auto slot = std::make_shared<Slot>(live_);
    std::make_shared<HttpSession<PlainHttpStream>>(std::move(socket), nullptr, env_, std::move(slot))->start();
  }
  accept_next(l);
}

// OpenSSL out of memory for a new SSL object: that connection is closed,
// the server goes on.
void HttpServer::start_tls_session(Listening& l, tcp::socket socket) {
  auto slot = std::make_shared<Slot>(live_);
  try {
    std::make_shared<HttpSession<TlsHttpStream>>(std::move(socket), l.tls->current(), env_, std::move(slot))->start();
  } catch (const std::exception& e) {
    net_log().error("HTTPS: cannot start a TLS connection: {}", e.what());
  }
}

// Out of descriptors, most likely: wait a little rather than spin.
void HttpServer::retry_accept(Listening& l, const boost::system::error_code& ec) {
  auto now = std::chrono::steady_clock::now();
  ++unreported_;
  if (now - last_report_ >= kAcceptFailureReportInterval) {
    net_log().warn("HTTP: accept failed {} time(s) ({}); retrying", unreported_, ec.message());
    last_report_ = now;
    unreported_ = 0;
  }
  auto timer = std::make_shared<asio::steady_timer>(*io_, kAcceptRetry);
  timer->async_wait([this, &l, timer](const boost::system::error_code& wait_ec) {
    if (!wait_ec) accept_next(l);
  });
}

void HttpServer::refuse(tcp::socket socket) {
  boost::system::error_code ignored;
  socket.close(ignored);
  auto now = std::chrono::steady_clock::now();
  ++unreported_;
  if (now - last_report_ >= kAcceptFailureReportInterval) {
    net_log().warn("HTTP: {} connections open, the most allowed; closed {} new one(s)", live_, unreported_);
    last_report_ = now;
    unreported_ = 0;
  }
}

// A plaintext client on a TLS port, a scanner, a client without the
// certificate ssl.client.auth=required asks for: one line per interval.
void HttpServer::on_handshake_failed(const std::string& listener, const std::string& peer, const std::string& why) {
  auto now = std::chrono::steady_clock::now();
  ++unreported_handshakes_;
  if (now - last_handshake_report_ < kAcceptFailureReportInterval) return;
  net_log().info("HTTPS listener {}: {} TLS handshake(s) failed, their connections closed; the latest from {}: {}",
                 listener, unreported_handshakes_, escaped(peer), escaped(why));
  last_handshake_report_ = now;
  unreported_handshakes_ = 0;
}

void HttpServer::schedule_tls_reload() {
  if (std::none_of(listening_.begin(), listening_.end(), [](auto& l) { return l->tls != nullptr; })) return;
  if (!tls_reload_timer_) tls_reload_timer_ = std::make_unique<asio::steady_timer>(*io_);
  tls_reload_timer_->expires_after(kHttpTlsReloadPeriod);
  tls_reload_timer_->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    std::vector<TlsListenerContext*> done;  // one context serves several addresses
    for (auto& l : listening_) {
      if (!l->tls || std::find(done.begin(), done.end(), l->tls.get()) != done.end()) continue;
      l->tls->reload_if_changed();
      done.push_back(l->tls.get());
    }
    schedule_tls_reload();
  });
}

}  // namespace skiff::network
