#include "network/http_session.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <string>
#include <string_view>
#include <type_traits>
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

std::string peer_of(const boost::asio::ip::tcp::socket& socket) {
  boost::system::error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  return ec ? std::string() : endpoint.address().to_string();
}

std::string handshake_error(const beast::error_code& ec) {
  if (ec == beast::error::timeout) return "no handshake within the idle timeout";
  const auto code = static_cast<unsigned long>(static_cast<unsigned int>(ec.value()));
  if (ec.category() == boost::asio::error::get_ssl_category() && ERR_GET_REASON(code) == SSL_R_HTTP_REQUEST)
    return "a plain HTTP request on the https:// port";
  return ec.message();
}

template <class Stream>
constexpr bool kTls = std::is_same_v<Stream, TlsHttpStream>;

// asio's ssl::context owns the SSL_CTX it wraps (frees it, and the password
// and verify callbacks asio itself stored there, when destroyed), and the
// stream reads it only while it is built (SSL_new takes a reference of its
// own). So the wrapper is lent a reference of its own and lives only that
// long. TlsContext::build stores neither callback asio would free.
template <class Stream>
Stream make_stream(boost::asio::ip::tcp::socket socket, const std::shared_ptr<const TlsContext>& tls) {
  if constexpr (kTls<Stream>) {
    SSL_CTX_up_ref(tls->native());
    boost::asio::ssl::context borrowed(tls->native());
    return Stream(beast::tcp_stream(std::move(socket)), borrowed);
  } else {
    return Stream(std::move(socket));
  }
}

}  // namespace

template <class Stream>
HttpSession<Stream>::HttpSession(boost::asio::ip::tcp::socket socket, const std::shared_ptr<const TlsContext>& tls,
                                 const HttpSessionEnv& env, std::shared_ptr<void> slot)
    : peer_(peer_of(socket)),
      tls_(tls),
      stream_(make_stream<Stream>(std::move(socket), tls)),
      env_(env),
      slot_(std::move(slot)) {}

template <class Stream>
void HttpSession<Stream>::start() {
  if constexpr (kTls<Stream>) {
    beast::get_lowest_layer(stream_).expires_after(env_.limits.idle_timeout);
    stream_.async_handshake(boost::asio::ssl::stream_base::server,
                            [self = this->shared_from_this()](const beast::error_code& ec) { self->on_handshake(ec); });
  } else {
    read_next();
  }
}

// A failed handshake ends the session: returning drops the last reference.
template <class Stream>
void HttpSession<Stream>::on_handshake(const beast::error_code& ec) {
  if (!ec) return read_next();
  if (env_.handshake_failed) env_.handshake_failed(tls_->listener(), peer_, handshake_error(ec));
}

template <class Stream>
void HttpSession<Stream>::read_next() {
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(env_.limits.max_header_bytes));
  parser_->body_limit(env_.limits.max_body_bytes);
  beast::get_lowest_layer(stream_).expires_after(env_.limits.idle_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = this->shared_from_this()](const beast::error_code& ec, size_t) { self->on_read(ec); });
}

template <class Stream>
void HttpSession<Stream>::on_read(const beast::error_code& ec) {
  if (!ec) return answer(parser_->release());
  if (ec == http::error::header_limit) return refuse(431, "request header fields too large\n");
  if (ec == http::error::body_limit) return refuse(413, "request body too large\n");
  if (malformed(ec)) return refuse(400, "malformed HTTP request\n");
  // Otherwise the client closed, went silent past the timeout, or reset:
  // returning drops the last reference and closes the socket.
}

template <class Stream>
void HttpSession<Stream>::answer(Request request) {
  const bool head = request.method() == http::verb::head;
  const bool keep_alive = request.keep_alive();
  const unsigned version = request.version();
  HttpRequest r;
  r.method = std::string(request.method_string());
  r.target = std::string(request.target());
  r.content_type = std::string(request[http::field::content_type]);
  r.authorization = std::string(request[http::field::authorization]);
  r.peer_address = peer_;
  r.body = std::move(request.body());
  send(env_.router.dispatch(std::move(r)), version, head, keep_alive);
}

template <class Stream>
void HttpSession<Stream>::refuse(int status, const char* text) {
  send(plain(status, text), 11, false, false);
}

template <class Stream>
void HttpSession<Stream>::send(HttpResponse r, unsigned version, bool head, bool keep_alive) {
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
  beast::get_lowest_layer(stream_).expires_after(env_.limits.idle_timeout);
  http::async_write(stream_, response_,
                    [self = this->shared_from_this(), keep_alive](const beast::error_code& ec, size_t) {
                      self->on_written(ec, keep_alive);
                    });
}

template <class Stream>
void HttpSession<Stream>::on_written(const beast::error_code& ec, bool keep_alive) {
  if (ec) return;
  if (keep_alive)
    read_next();
  else
    linger();
}

// Within `linger` in all: TLS first says close_notify (and waits for the
// client's, or for the client to send something else or close), then both
// kinds half-close TCP and drop what still arrives.
template <class Stream>
void HttpSession<Stream>::linger() {
  beast::get_lowest_layer(stream_).expires_after(env_.limits.linger);
  if constexpr (kTls<Stream>)
    stream_.async_shutdown([self = this->shared_from_this()](const beast::error_code&) { self->close_send(); });
  else
    close_send();
}

template <class Stream>
void HttpSession<Stream>::close_send() {
  beast::error_code ignored;
  beast::get_lowest_layer(stream_).socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  drain();
}

template <class Stream>
void HttpSession<Stream>::drain() {
  beast::get_lowest_layer(stream_).async_read_some(
      boost::asio::buffer(scratch_), [self = this->shared_from_this()](const beast::error_code& ec, size_t) {
        if (!ec) self->drain();
      });
}

template class HttpSession<PlainHttpStream>;
template class HttpSession<TlsHttpStream>;

}  // namespace skiff::network
