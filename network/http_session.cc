#include "network/http_session.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <limits>
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

// The request's fields as a route sees them (no body).
template <class Fields>
HttpRequest to_request(const http::request_header<Fields>& h, const std::string& peer, bool secure) {
  HttpRequest r;
  r.method = std::string(h.method_string());
  r.target = std::string(h.target());
  r.content_type = std::string(h[http::field::content_type]);
  r.authorization = std::string(h[http::field::authorization]);
  r.accept = std::string(h[http::field::accept]);
  r.peer_address = peer;
  r.host = std::string(h[http::field::host]);
  r.secure = secure;
  return r;
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
      slot_(std::move(slot)),
      hold_(stream_.get_executor()) {}

template <class Stream>
HttpSession<Stream>::~HttpSession() {
  if (channel_) channel_->close();  // the route's calls return
}

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

// The header first: its route decides how the body is read.
template <class Stream>
void HttpSession<Stream>::read_next() {
  parser_.reset();
  body_parser_.reset();
  head_parser_.emplace();
  head_parser_->header_limit(static_cast<uint32_t>(env_.limits.max_header_bytes));
  // Per route, once the header is read (Boost 1.74 counts boost::none as
  // smaller than any length: a number it is).
  head_parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  beast::get_lowest_layer(stream_).expires_after(env_.limits.idle_timeout);
  http::async_read_header(
      stream_, buffer_, *head_parser_,
      [self = this->shared_from_this()](const beast::error_code& ec, size_t) { self->on_header(ec); });
}

template <class Stream>
bool HttpSession<Stream>::read_failed(const beast::error_code& ec) {
  if (!ec) return false;
  if (ec == http::error::header_limit) {
    refuse(431, "request header fields too large\n");
  } else if (ec == http::error::body_limit) {
    refuse(413, "request body too large\n");
  } else if (malformed(ec)) {
    refuse(400, "malformed HTTP request\n");
  }
  // Otherwise the client closed, went silent past the timeout, or reset:
  // returning drops the last reference and closes the socket.
  return true;
}

template <class Stream>
void HttpSession<Stream>::on_header(const beast::error_code& ec) {
  if (read_failed(ec)) return;
  const auto kind = env_.router.kind(head_request());
  mode_ = kind == HttpRouteKind::kSync ? Mode::kSync : kind == HttpRouteKind::kAsync ? Mode::kAsync : Mode::kStreamed;
  const auto length = head_parser_->content_length();
  if (mode_ != Mode::kStreamed && length && *length > env_.limits.max_body_bytes)
    return refuse(413, "request body too large\n");
  const bool expect = beast::iequals(head_parser_->get()[http::field::expect], "100-continue");
  if (!expect || (length && *length == 0)) return read_body();
  continue_ = "HTTP/1.1 100 Continue\r\n\r\n";
  boost::asio::async_write(stream_, boost::asio::buffer(continue_),
                           [self = this->shared_from_this()](const beast::error_code& wec, size_t) {
                             if (!wec) self->read_body();
                           });
}

template <class Stream>
void HttpSession<Stream>::read_body() {
  if (mode_ == Mode::kStreamed) {
    auto request = head_request();
    keep_alive_ = head_parser_->get().keep_alive();
    version_ = head_parser_->get().version();
    head_ = false;
    body_parser_.emplace(std::move(*head_parser_));
    head_parser_.reset();
    piece_.resize(size_t{64} * 1024);
    start_exchange(std::move(request), true);
    return read_piece();
  }
  parser_.emplace(std::move(*head_parser_));
  head_parser_.reset();
  parser_->body_limit(env_.limits.max_body_bytes);
  beast::get_lowest_layer(stream_).expires_after(env_.limits.idle_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = this->shared_from_this()](const beast::error_code& ec, size_t) { self->on_read(ec); });
}

template <class Stream>
void HttpSession<Stream>::on_read(const beast::error_code& ec) {
  if (read_failed(ec)) return;
  auto request = parser_->release();
  if (mode_ == Mode::kSync) return answer(std::move(request));
  HttpRequest r = to_request(request, peer_, kTls<Stream>);
  r.body = std::move(request.body());
  keep_alive_ = request.keep_alive();
  version_ = request.version();
  head_ = request.method() == http::verb::head;
  start_exchange(std::move(r), false);
}

template <class Stream>
HttpRequest HttpSession<Stream>::head_request() const {
  return to_request(head_parser_->get(), peer_, kTls<Stream>);
}

template <class Stream>
void HttpSession<Stream>::answer(Request request) {
  const bool head = request.method() == http::verb::head;
  const bool keep_alive = request.keep_alive();
  const unsigned version = request.version();
  HttpRequest r = to_request(request, peer_, kTls<Stream>);
  r.body = std::move(request.body());
  send(env_.router.dispatch(std::move(r)), version, head, keep_alive);
}

template <class Stream>
void HttpSession<Stream>::refuse(int status, const char* text) {
  send(env_.refusal ? env_.refusal(status, text) : plain(status, text), 11, false, false);
}

template <class Stream>
void HttpSession<Stream>::build_response(HttpResponse r, unsigned version, bool head, bool keep_alive) {
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
}

template <class Stream>
void HttpSession<Stream>::send(HttpResponse r, unsigned version, bool head, bool keep_alive) {
  build_response(std::move(r), version, head, keep_alive);
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

// The route runs now (on this thread; it hands the exchange on); the
// session waits for what it queues, held alive by hold_.
template <class Stream>
void HttpSession<Stream>::start_exchange(HttpRequest request, bool streamed) {
  channel_ = std::make_shared<HttpExchangeChannel>(env_.exchange_queue_bytes);
  channel_->set_kick([poster = env_.poster, weak = this->weak_from_this()] {
    if (poster)
      poster->post([weak] {
        if (auto self = weak.lock()) self->on_kick();
      });
  });
  answered_ = false;
  out_busy_ = false;
  reading_ = false;
  body_done_ = !streamed;
  hold_.expires_at(boost::asio::steady_timer::time_point::max());
  hold_.async_wait([self = this->shared_from_this()](const beast::error_code&) {});
  env_.router.dispatch_async(std::move(request), std::make_shared<HttpExchange>(channel_));
}

template <class Stream>
void HttpSession<Stream>::on_kick() {
  if (!channel_ || failed_) return;
  channel_->kicked();
  pump_out();
  if (channel_ && mode_ == Mode::kStreamed && !body_done_ && !reading_ && !answered_ && channel_->in_room())
    read_piece();
}

template <class Stream>
void HttpSession<Stream>::pump_out() {
  if (!channel_ || failed_ || out_busy_ || answered_) return;
  HttpOut out;
  if (channel_->pop_out(out)) write_out(std::move(out));
}

template <class Stream>
void HttpSession<Stream>::write_out(HttpOut out) {
  auto self = this->shared_from_this();
  beast::get_lowest_layer(stream_).expires_after(env_.limits.idle_timeout);
  out_busy_ = true;
  switch (out.kind) {
    case HttpOut::Kind::kWhole:
      build_response(std::move(out.response), version_, head_, keep_alive_);
      http::async_write(stream_, response_, [self](const beast::error_code& ec, size_t) { self->on_out(ec, 0, true); });
      return;
    case HttpOut::Kind::kHead: {
      auto& r = stream_head_.emplace();
      r.version(version_);
      r.result(
          static_cast<unsigned>(out.response.status >= 100 && out.response.status <= 599 ? out.response.status : 500));
      r.set(http::field::server, "skiff");
      if (header_safe(out.response.content_type)) r.set(http::field::content_type, out.response.content_type);
      for (const auto& [name, value] : out.response.headers)
        if (!name.empty() && header_safe(name) && header_safe(value)) r.set(name, value);
      r.chunked(true);
      r.keep_alive(keep_alive_);
      head_writer_.emplace(r);
      http::async_write_header(stream_, *head_writer_,
                               [self](const beast::error_code& ec, size_t) { self->on_out(ec, 0, false); });
      return;
    }
    case HttpOut::Kind::kChunk: {
      chunk_ = std::move(out.chunk);
      const size_t n = chunk_.size();
      boost::asio::async_write(stream_, http::make_chunk(boost::asio::buffer(chunk_)),
                               [self, n](const beast::error_code& ec, size_t) { self->on_out(ec, n, false); });
      return;
    }
    case HttpOut::Kind::kEnd:
      boost::asio::async_write(stream_, http::make_chunk_last(),
                               [self](const beast::error_code& ec, size_t) { self->on_out(ec, 0, true); });
      return;
    case HttpOut::Kind::kAbort:
      out_busy_ = false;
      return fail();
  }
}

template <class Stream>
void HttpSession<Stream>::on_out(const beast::error_code& ec, size_t bytes, bool last) {
  out_busy_ = false;
  if (failed_ || !channel_) return;
  channel_->written(bytes);
  if (ec) return fail();
  if (!last) return pump_out();
  answered_ = true;
  finish_exchange();
}

template <class Stream>
void HttpSession<Stream>::read_piece() {
  if (failed_ || !channel_) return;
  if (body_parser_->is_done()) {
    body_done_ = true;
    channel_->in_end();
    return finish_exchange();
  }
  auto& body = body_parser_->get().body();
  body.data = piece_.data();
  body.size = piece_.size();
  body.more = true;
  reading_ = true;
  beast::get_lowest_layer(stream_).expires_after(env_.limits.idle_timeout);
  http::async_read_some(stream_, buffer_, *body_parser_,
                        [self = this->shared_from_this()](const beast::error_code& ec, size_t) { self->on_piece(ec); });
}

template <class Stream>
void HttpSession<Stream>::on_piece(const beast::error_code& ec) {
  reading_ = false;
  if (failed_ || !channel_) return;
  if (ec && ec != http::error::need_buffer) return answered_ ? finish_exchange() : fail();
  const size_t n = piece_.size() - body_parser_->get().body().size;
  const bool room = n == 0 || channel_->push_in(std::string(piece_.data(), n));
  if (body_parser_->is_done()) {
    body_done_ = true;
    channel_->in_end();
    return finish_exchange();
  }
  if (answered_) return finish_exchange();  // nobody reads the rest: the connection closes
  if (room) read_piece();
}

// Once the answer is out: the next request, or (the body not read to its
// end, or a close asked) the lingering close.
template <class Stream>
void HttpSession<Stream>::finish_exchange() {
  if (!answered_ || reading_ || failed_) return;
  if (!body_done_) keep_alive_ = false;
  channel_->close();
  channel_.reset();
  hold_.cancel();
  if (keep_alive_)
    read_next();
  else
    linger();
}

template <class Stream>
void HttpSession<Stream>::fail() {
  if (failed_) return;
  failed_ = true;
  if (channel_) channel_->close();
  hold_.cancel();
  beast::get_lowest_layer(stream_).close();
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
