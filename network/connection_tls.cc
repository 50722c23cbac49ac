// Connection's transport: plain socket operations on a PLAINTEXT listener,
// the TLS handshake and TlsStream reads and writes on an SSL one
// (tls_stream.h states why the SSL object sits on the socket and how it is
// driven). Processor thread only, as all of Connection.
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>

#include "common/log_escape.h"
#include "network/connection.h"
#include "network/net_log.h"

namespace skiff::network {

void Connection::continue_handshake() {
  if (closed_) return;
  std::string error;
  const TlsIo io = tls_->handshake(error);
  switch (io) {
    case TlsIo::kOk:
      on_handshake_done();
      return;
    case TlsIo::kWantRead:
    case TlsIo::kWantWrite: {
      auto wait = io == TlsIo::kWantWrite ? boost::asio::socket_base::wait_write : boost::asio::socket_base::wait_read;
      socket_.async_wait(wait, [self = shared_from_this()](const boost::system::error_code& ec) {
        if (self->closed_) return;
        if (ec) {
          self->close(ec.message());
          return;
        }
        self->continue_handshake();
      });
      return;
    }
    case TlsIo::kEof:
    case TlsIo::kFailed:
      net_log().info("closing connection from {} on listener {}: TLS handshake failed: {}", context_.peer_address,
                     context_.listener_name, escaped(error));
      close("");
      return;
  }
}

void Connection::on_handshake_done() {
  std::string error;
  auto principal = tls_->principal(error);
  if (!principal) {
    net_log().info("closing connection from {} on listener {}: {}", context_.peer_address, context_.listener_name,
                   escaped(error));
    close("");
    return;
  }
  context_.principal = std::move(*principal);
  net_log().debug("TLS connection {} from {} on listener {}: {}, principal {}", context_.connection_id,
                  context_.peer_address, context_.listener_name, tls_->describe(), escaped(context_.principal));
  process_buffer();
}

void Connection::read_some(uint8_t* data, size_t size, ReadHandler done) {
  if (!tls_) {
    socket_.async_read_some(boost::asio::buffer(data, size), std::move(done));
    return;
  }
  size_t n = 0;
  std::string error;
  const TlsIo io = tls_->read(data, size, n, error);
  switch (io) {
    case TlsIo::kOk:  // never complete inline: the handler may read again
      boost::asio::post(socket_.get_executor(), [done = std::move(done), n] { done({}, n); });
      return;
    case TlsIo::kWantRead:
    case TlsIo::kWantWrite: {
      auto wait = io == TlsIo::kWantWrite ? boost::asio::socket_base::wait_write : boost::asio::socket_base::wait_read;
      socket_.async_wait(wait, [self = shared_from_this(), data, size,
                                done = std::move(done)](const boost::system::error_code& ec) mutable {
        if (ec || self->closed_) {
          done(ec ? ec : boost::asio::error::operation_aborted, 0);
          return;
        }
        self->read_some(data, size, std::move(done));
      });
      return;
    }
    case TlsIo::kEof:
      boost::asio::post(socket_.get_executor(), [done = std::move(done)] { done(boost::asio::error::eof, 0); });
      return;
    case TlsIo::kFailed:
      net_log().info("closing connection from {} on listener {}: TLS error: {}", context_.peer_address,
                     context_.listener_name, escaped(error));
      boost::asio::post(socket_.get_executor(),
                        [done = std::move(done)] { done(boost::asio::error::connection_aborted, 0); });
      return;
  }
}

void Connection::read_exactly(uint8_t* data, size_t size, ReadHandler done) {
  if (!tls_) {
    boost::asio::async_read(socket_, boost::asio::buffer(data, size), std::move(done));
    return;
  }
  read_some(data, size,
            [self = shared_from_this(), data, size, done = std::move(done)](const boost::system::error_code& ec,
                                                                            size_t n) mutable {
              if (ec || n == size || self->closed_) {
                done(ec, n);
                return;
              }
              self->read_exactly(data + n, size - n, std::move(done));
            });
}

WriteStatus Connection::write_some(std::string& error) {
  if (!tls_) return write_response_chunks(socket_.native_handle(), response_.chunks, cursor_, error);
  switch (tls_->write(response_.chunks, cursor_, error)) {
    case TlsIo::kOk:
      return WriteStatus::kDone;
    case TlsIo::kWantRead:
      write_wants_read_ = true;
      return WriteStatus::kBlocked;
    case TlsIo::kWantWrite:
      write_wants_read_ = false;
      return WriteStatus::kBlocked;
    case TlsIo::kEof:
      error = "the client closed the connection";
      return WriteStatus::kFailed;
    case TlsIo::kFailed:
      error = "TLS: " + error;
      return WriteStatus::kFailed;
  }
  return WriteStatus::kFailed;
}

}  // namespace skiff::network
