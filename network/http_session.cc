#include "network/http_session.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <string_view>
#include <utility>

namespace skiff::network {
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

bool header_safe(std::string_view s) { return s.find_first_of("\r\n") == std::string_view::npos; }

// A parse error of the request itself (as opposed to the connection ending).
bool malformed(const beast::error_code& ec) {
  static const auto& category = beast::error_code(http::error::bad_method).category();
  return ec.category() == category && ec != http::error::end_of_stream && ec != http::error::partial_message;
}

HttpResponse plain(int status, const char* text) {
  HttpResponse r;
  r.status = status;
  r.body = text;
  return r;
}

}  // namespace

HttpSession::HttpSession(boost::asio::ip::tcp::socket socket, const HttpRouter& router, const HttpLimits& limits,
                         std::shared_ptr<void> slot)
    : stream_(std::move(socket)), router_(router), limits_(limits), slot_(std::move(slot)) {}

void HttpSession::start() { read_next(); }

void HttpSession::read_next() {
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(limits_.max_header_bytes));
  parser_->body_limit(limits_.max_body_bytes);
  stream_.expires_after(limits_.idle_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](const beast::error_code& ec, size_t) { self->on_read(ec); });
}

void HttpSession::on_read(const beast::error_code& ec) {
  if (!ec) return answer(parser_->release());
  if (ec == http::error::header_limit) return refuse(431, "request header fields too large\n");
  if (ec == http::error::body_limit) return refuse(413, "request body too large\n");
  if (malformed(ec)) return refuse(400, "malformed HTTP request\n");
  // Otherwise the client closed, went silent past the timeout, or reset:
  // returning drops the last reference and closes the socket.
}

void HttpSession::answer(Request request) {
  const bool head = request.method() == http::verb::head;
  const bool keep_alive = request.keep_alive();
  const unsigned version = request.version();
  HttpRequest r;
  r.method = std::string(request.method_string());
  r.target = std::string(request.target());
  r.content_type = std::string(request[http::field::content_type]);
  r.authorization = std::string(request[http::field::authorization]);
  boost::system::error_code ec;
  const auto peer = stream_.socket().remote_endpoint(ec);
  if (!ec) r.peer_address = peer.address().to_string();
  r.body = std::move(request.body());
  send(router_.dispatch(std::move(r)), version, head, keep_alive);
}

void HttpSession::refuse(int status, const char* text) { send(plain(status, text), 11, false, false); }

void HttpSession::send(HttpResponse r, unsigned version, bool head, bool keep_alive) {
  if (r.status < 100 || r.status > 599) r = plain(500, "internal error: bad status\n");
  response_ = {};
  response_.version(version);
  response_.result(static_cast<unsigned>(r.status));
  response_.set(http::field::server, "skiff");
  if (header_safe(r.content_type)) response_.set(http::field::content_type, r.content_type);
  for (const auto& [name, value] : r.headers)
    if (!name.empty() && header_safe(name) && header_safe(value)) response_.set(name, value);
  response_.content_length(r.body.size());  // a HEAD answer says how long the GET one is
  if (!head) response_.body() = std::move(r.body);
  response_.keep_alive(keep_alive);
  stream_.expires_after(limits_.idle_timeout);
  http::async_write(stream_, response_, [self = shared_from_this(), keep_alive](const beast::error_code& ec, size_t) {
    self->on_written(ec, keep_alive);
  });
}

void HttpSession::on_written(const beast::error_code& ec, bool keep_alive) {
  if (ec) return;
  if (keep_alive)
    read_next();
  else
    linger();
}

void HttpSession::linger() {
  beast::error_code ignored;
  stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  stream_.expires_after(limits_.linger);
  drain();
}

void HttpSession::drain() {
  stream_.async_read_some(boost::asio::buffer(scratch_),
                          [self = shared_from_this()](const beast::error_code& ec, size_t) {
                            if (!ec) self->drain();
                          });
}

}  // namespace skiff::network
