#include "network/http_server.h"

#include <fmt/format.h>
#include <pthread.h>

#include <boost/asio/steady_timer.hpp>

#include "network/net_log.h"

namespace skiff::network {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr auto kAcceptRetry = std::chrono::milliseconds(100);
constexpr auto kAcceptFailureReportInterval = std::chrono::seconds(10);

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

HttpServer::HttpServer(HttpServerConfig config) : config_(config), io_(std::make_unique<asio::io_context>(1)) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::route(std::string method, std::string path, HttpHandler handler) {
  router_.add(std::move(method), std::move(path), std::move(handler));
}

void HttpServer::bind(const std::string& host, uint16_t port) {
  // As the Kafka listeners (listen_socket.h), ::1 of localhost optional.
  for (auto& a : listen_all(*io_, host, port, "http.listeners", fmt::format("http://{}", host_port(host, port)))) {
    endpoints_.push_back(a.local_endpoint());
    acceptors_.push_back(std::make_unique<tcp::acceptor>(std::move(a)));
  }
}

void HttpServer::start() {
  for (auto& a : acceptors_) accept_next(*a);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "skiff-http");
    io_->run();
  });
}

void HttpServer::stop() {
  if (!io_) return;
  io_->stop();
  if (thread_.joinable()) thread_.join();
  acceptors_.clear();
  io_.reset();  // destroys the pending operations, and with them the sessions
}

void HttpServer::accept_next(tcp::acceptor& acceptor) {
  acceptor.async_accept([this, &acceptor](const boost::system::error_code& ec, tcp::socket socket) {
    on_accepted(acceptor, ec, std::move(socket));
  });
}

void HttpServer::on_accepted(tcp::acceptor& acceptor, const boost::system::error_code& ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted) return;
  if (ec) return retry_accept(acceptor, ec);
  if (live_ >= config_.max_connections) {
    refuse(std::move(socket));
  } else {
    auto slot = std::make_shared<Slot>(live_);
    std::make_shared<HttpSession>(std::move(socket), router_, config_.limits, std::move(slot))->start();
  }
  accept_next(acceptor);
}

// Out of descriptors, most likely: wait a little rather than spin.
void HttpServer::retry_accept(tcp::acceptor& acceptor, const boost::system::error_code& ec) {
  auto now = std::chrono::steady_clock::now();
  ++unreported_;
  if (now - last_report_ >= kAcceptFailureReportInterval) {
    net_log().warn("HTTP: accept failed {} time(s) ({}); retrying", unreported_, ec.message());
    last_report_ = now;
    unreported_ = 0;
  }
  auto timer = std::make_shared<asio::steady_timer>(*io_, kAcceptRetry);
  timer->async_wait([this, &acceptor, timer](const boost::system::error_code& wait_ec) {
    if (!wait_ec) accept_next(acceptor);
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

}  // namespace skiff::network
