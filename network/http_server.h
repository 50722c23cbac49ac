// HttpServer: the broker's HTTP/1.1 listener (http.listeners), for
// operators and orchestrators: /healthz, /readyz, /metrics and the web console
// (server/http_routes.h holds the routes). Boost.Beast on one thread of its
// own with its own io_context, apart from the Kafka Acceptor and
// Processors, so nothing done for HTTP delays a Kafka request.
//
// Protection (network/http_session.h): request header at most 8 KiB (431),
// body at most 1 MiB (413), malformed requests 400, each closing that
// connection only; every read and write within the idle timeout (30 s); at
// most `max_connections` (64) connections at once, further ones closed as
// soon as they are accepted, so HTTP cannot use up descriptors; failed
// accepts (out of descriptors) retry after 100 ms. Routing and its answers
// (404, 405, HEAD, 500) are network/http_router.h's.
//
// HTTPS: an address bound with a TlsListenerContext serves TLS
// (network/http_session.h: the handshake first, within the idle timeout).
// A failed handshake closes that connection only; failures are logged at
// most once per 10 s with their count, the latest peer and reason. Every
// 3 s a timer on the HTTP thread asks each bound TlsListenerContext to
// reload its PEM files if they changed (as the Acceptor does for the Kafka
// listeners), so a rotated certificate serves new connections without a
// restart; open connections keep the one they started with.
//
// Asynchronous routes (network/http_exchange.h) answer later from other
// threads, stream their answers and read streamed bodies; stop() first
// closes the way their threads wake the HTTP thread, so an exchange
// outliving the server is safe (its calls return false).
//
// Threads: route(), bind() and start() from one controlling thread before
// the HTTP thread runs; handlers then run on the HTTP thread and must only
// read what is safe to read from there (atomics, their own locks). stop()
// from the controlling thread (or the destructor) closes everything and
// joins the thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "network/http_message.h"
#include "network/http_router.h"
#include "network/http_session.h"
#include "network/listen_socket.h"
#include "network/tls_context.h"

namespace skiff::network {

struct HttpServerConfig {
  HttpLimits limits;
  int max_connections = 64;
  size_t exchange_queue_bytes = 1 << 20;  // an asynchronous route's queues, each way (http_exchange.h)
  // The answer to a request refused before any route (400, 413, 431), from
  // its status and plain-text reason; unset: that text as text/plain.
  std::function<HttpResponse(int status, const std::string& text)> refusal;
};

class HttpServer {
 public:
  explicit HttpServer(HttpServerConfig config = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Exact path match; a GET route also answers HEAD. Before start().
  void route(std::string method, std::string path, HttpHandler handler);
  // An asynchronous route (network/http_exchange.h). Before start().
  void route_async(std::string method, std::string path, AsyncHttpHandler handler,
                   HttpBodyMode body = HttpBodyMode::kWhole);
  // Answers what no route matches (network/http_router.h). Before start().
  void set_fallback(HttpHandler handler) { router_.set_fallback(std::move(handler)); }
  void set_async_fallback(AsyncHttpHandler handler, std::function<HttpBodyMode(const HttpRequest&)> body = {}) {
    router_.set_async_fallback(std::move(handler), std::move(body));
  }
  // Listens on every address `host` stands for (network/listen_socket.h);
  // port 0: a free port; `tls`: serve HTTPS there with its current context.
  // Throws BindError saying which and why. Before start().
  void bind(const std::string& host, uint16_t port, const std::shared_ptr<TlsListenerContext>& tls = nullptr);
  void start();
  void stop();  // idempotent

  // Every address bound so far, with its actual port.
  const std::vector<boost::asio::ip::tcp::endpoint>& endpoints() const { return endpoints_; }
  // The same for the log: "127.0.0.1:8095" (plain HTTP, as endpoint_text
  // writes it) or "https://127.0.0.1:8443".
  std::vector<std::string> endpoint_texts() const;

 private:
  struct Slot;  // one open connection, counted in live_
  struct Listening {
    boost::asio::ip::tcp::acceptor acceptor;
    std::shared_ptr<TlsListenerContext> tls;  // null: plain HTTP
  };
  void accept_next(Listening& l);
  void on_accepted(Listening& l, const boost::system::error_code& ec, boost::asio::ip::tcp::socket socket);
  void retry_accept(Listening& l, const boost::system::error_code& ec);
  void refuse(boost::asio::ip::tcp::socket socket);
  void start_tls_session(Listening& l, boost::asio::ip::tcp::socket socket);
  void on_handshake_failed(const std::string& listener, const std::string& peer, const std::string& why);
  void schedule_tls_reload();

  HttpServerConfig config_;
  HttpRouter router_;
  HttpSessionEnv env_;
  std::unique_ptr<boost::asio::io_context> io_;
  std::vector<std::unique_ptr<Listening>> listening_;
  std::vector<boost::asio::ip::tcp::endpoint> endpoints_;
  std::vector<bool> endpoint_tls_;                               // per endpoints_ entry
  std::unique_ptr<boost::asio::steady_timer> tls_reload_timer_;  // when an address serves TLS
  std::thread thread_;
  int live_ = 0;  // open connections; HTTP thread (then the stopping thread, after the join)
  std::chrono::steady_clock::time_point last_report_{};
  uint64_t unreported_ = 0;                                        // refused or failed accepts since the last log line
  std::chrono::steady_clock::time_point last_handshake_report_{};  // HTTP thread
  uint64_t unreported_handshakes_ = 0;                             // failed since the last log line
};

}  // namespace skiff::network
