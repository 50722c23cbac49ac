// HttpSession: one HTTP/1.1 connection of the HTTP listener
// (network/http_server.h), over plain TCP (HttpSession<PlainHttpStream>) or
// TLS (HttpSession<TlsHttpStream>, an https:// endpoint). The one session
// code serves both; the stream kind decides only the handshake, the peer's
// address and how the connection closes. Reads a request with Boost.Beast
// under the limits, answers it through the HttpRouter, and reads the next
// one (keep-alive) unless either side asked to close.
//
// TLS: the handshake comes first and must finish within the idle timeout;
// one that fails (a plaintext client on the TLS port, a client certificate
// missing under ssl.client.auth=required, a silent client) closes this
// connection only and is reported through HttpSessionEnv::handshake_failed.
// The SSL object is made from the endpoint's current TlsContext
// (network/tls_context.h): the key material and verify mode are its.
//
// Bad input closes this connection only, after an answer: a header over the
// limit 431, a body over the limit 413, anything Beast cannot parse 400.
// Each read and write must finish within the idle timeout, so a silent or
// dribbling client is closed. When the server closes, it first stops
// sending (TLS: close_notify, then the TCP half-close) and reads what the
// client still sends for a moment (lingering close), so the client sees the
// answer rather than a reset.
//
// Asynchronous routes (network/http_exchange.h): the session hands the
// route an HttpExchange and waits, reading nothing more (kAsync) or reading
// the body into the exchange as the route takes it (kAsyncStreamed); it
// writes what the route queues as it comes: a whole answer, or a streamed
// one as chunks. Both the answer and the body done, it reads the next
// request (keep-alive). While it waits, a timer that never fires holds it
// alive, so the server's stop (which destroys pending operations) ends it
// and with it the exchange (closed: the route's calls return).
// An `Expect: 100-continue` request gets the interim answer before its
// body is read.
//
// Threads: everything runs on the HTTP thread (the io_context of the
// socket), the exchange's calls excepted. The session keeps itself alive through its pending operations;
// it holds `slot` until it ends, which is how the server counts connections.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "network/http_exchange.h"
#include "network/http_router.h"
#include "network/tls_context.h"

namespace skiff::network {

struct HttpLimits {
  size_t max_header_bytes = 8 * 1024;
  size_t max_body_bytes = 1024 * 1024;
  std::chrono::milliseconds idle_timeout{30'000};  // each read and write, and the TLS handshake
  std::chrono::milliseconds linger{2'000};         // lingering close, at most
};

// What the sessions of one server share; the server owns it and outlives them.
struct HttpSessionEnv {
  const HttpRouter& router;
  const HttpLimits& limits;
  // A TLS handshake failed: the TlsContext's listener name, the peer's
  // address and why (OpenSSL's words, not escaped).
  std::function<void(const std::string& listener, const std::string& peer, const std::string& why)> handshake_failed;
  std::shared_ptr<HttpPoster> poster;     // wakes a session from an exchange's thread
  size_t exchange_queue_bytes = 1 << 20;  // per connection, each way (http_exchange.h)
  // The body of the session's own refusals (400, 413, 431); unset: plain text.
  std::function<HttpResponse(int status, const std::string& text)> refusal;
};

using PlainHttpStream = boost::beast::tcp_stream;
using TlsHttpStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

template <class Stream>
class HttpSession : public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  // `tls`: the endpoint's TlsContext for a TlsHttpStream, ignored (null) for a plain one.
  HttpSession(boost::asio::ip::tcp::socket socket, const std::shared_ptr<const TlsContext>& tls,
              const HttpSessionEnv& env, std::shared_ptr<void> slot);
  ~HttpSession();
  void start();

 private:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  void on_handshake(const boost::beast::error_code& ec);
  void read_next();
  void on_header(const boost::beast::error_code& ec);
  bool read_failed(const boost::beast::error_code& ec);  // answers or ends; false for no error
  void read_body();
  void on_read(const boost::beast::error_code& ec);
  void answer(Request request);
  void refuse(int status, const char* text);                                                 // answer, then close
  void build_response(HttpResponse response, unsigned version, bool head, bool keep_alive);  // into response_
  void send(HttpResponse response, unsigned version, bool head, bool keep_alive);
  void on_written(const boost::beast::error_code& ec, bool keep_alive);
  void linger();
  void close_send();
  void drain();
  // Asynchronous routes.
  HttpRequest head_request() const;
  void start_exchange(HttpRequest request, bool streamed);
  void on_kick();
  void pump_out();
  void write_out(HttpOut out);
  void on_out(const boost::beast::error_code& ec, size_t bytes, bool last);
  void read_piece();
  void on_piece(const boost::beast::error_code& ec);
  void finish_exchange();
  void fail();  // the connection is unusable: close it, end the exchange

  enum class Mode { kSync, kAsync, kStreamed };
  const std::string peer_;                       // the client's address ("" when the socket could not say)
  const std::shared_ptr<const TlsContext> tls_;  // TLS: what the connection was made with; else null
  Stream stream_;
  const HttpSessionEnv& env_;
  std::shared_ptr<void> slot_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> head_parser_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::buffer_body>> body_parser_;  // kStreamed
  boost::beast::http::response<boost::beast::http::string_body> response_;
  // The exchange in progress (asynchronous routes).
  Mode mode_ = Mode::kSync;
  std::shared_ptr<HttpExchangeChannel> channel_;
  boost::asio::steady_timer hold_;  // pending while an exchange runs: keeps the session alive
  bool keep_alive_ = true, head_ = false;
  unsigned version_ = 11;
  bool out_busy_ = false, answered_ = false, body_done_ = true, reading_ = false, failed_ = false;
  std::optional<boost::beast::http::response<boost::beast::http::empty_body>> stream_head_;
  std::optional<boost::beast::http::response_serializer<boost::beast::http::empty_body>> head_writer_;
  std::string chunk_;                 // the chunk being written
  std::string continue_;              // "HTTP/1.1 100 Continue" being written
  std::vector<char> piece_;           // a streamed body's read buffer
  std::array<char, 4096> scratch_{};  // lingering close: what is read is dropped
};

extern template class HttpSession<PlainHttpStream>;
extern template class HttpSession<TlsHttpStream>;

}  // namespace skiff::network
