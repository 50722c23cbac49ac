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
// Threads: everything runs on the HTTP thread (the io_context of the
// socket). The session keeps itself alive through its pending operations;
// it holds `slot` until it ends, which is how the server counts connections.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

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
};

using PlainHttpStream = boost::beast::tcp_stream;
using TlsHttpStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

template <class Stream>
class HttpSession : public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  // `tls`: the endpoint's TlsContext for a TlsHttpStream, ignored (null) for a plain one.
  HttpSession(boost::asio::ip::tcp::socket socket, const std::shared_ptr<const TlsContext>& tls,
              const HttpSessionEnv& env, std::shared_ptr<void> slot);
  void start();

 private:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  void on_handshake(const boost::beast::error_code& ec);
  void read_next();
  void on_read(const boost::beast::error_code& ec);
  void answer(Request request);
  void refuse(int status, const char* text);  // answer, then close
  void send(HttpResponse response, unsigned version, bool head, bool keep_alive);
  void on_written(const boost::beast::error_code& ec, bool keep_alive);
  void linger();
  void close_send();
  void drain();

  const std::string peer_;                       // the client's address ("" when the socket could not say)
  const std::shared_ptr<const TlsContext> tls_;  // TLS: what the connection was made with; else null
  Stream stream_;
  const HttpSessionEnv& env_;
  std::shared_ptr<void> slot_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  std::array<char, 4096> scratch_{};  // lingering close: what is read is dropped
};

extern template class HttpSession<PlainHttpStream>;
extern template class HttpSession<TlsHttpStream>;

}  // namespace skiff::network
