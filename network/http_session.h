// HttpSession: one HTTP/1.1 connection of the HTTP listener
// (network/http_server.h). Reads a request with Boost.Beast under the
// limits, answers it through the HttpRouter, and reads the next one
// (keep-alive) unless either side asked to close.
//
// Bad input closes this connection only, after an answer: a header over the
// limit 431, a body over the limit 413, anything Beast cannot parse 400.
// Each read and write must finish within the idle timeout, so a silent or
// dribbling client is closed. When the server closes, it first stops
// sending and reads what the client still sends for a moment (lingering
// close), so the client sees the answer rather than a reset.
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
#include <chrono>
#include <memory>
#include <optional>

#include "network/http_router.h"

namespace skiff::network {

struct HttpLimits {
  size_t max_header_bytes = 8 * 1024;
  size_t max_body_bytes = 1024 * 1024;
  std::chrono::milliseconds idle_timeout{30'000};
  std::chrono::milliseconds linger{2'000};  // lingering close, at most
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(boost::asio::ip::tcp::socket socket, const HttpRouter& router, const HttpLimits& limits,
              std::shared_ptr<void> slot);
  void start();

 private:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  void read_next();
  void on_read(const boost::beast::error_code& ec);
  void answer(Request request);
  void refuse(int status, const char* text);  // answer, then close
  void send(HttpResponse response, unsigned version, bool head, bool keep_alive);
  void on_written(const boost::beast::error_code& ec, bool keep_alive);
  void linger();
  void drain();

  boost::beast::tcp_stream stream_;
  const HttpRouter& router_;
  const HttpLimits& limits_;
  std::shared_ptr<void> slot_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  std::array<char, 4096> scratch_{};  // lingering close: what is read is dropped
};

}  // namespace skiff::network
