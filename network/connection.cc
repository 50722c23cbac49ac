#include "network/connection.h"

#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstring>

#include "common/byte_order.h"
#include "common/log_escape.h"
#include "network/net_log.h"
#include "network/processor.h"

namespace skiff::network {
namespace {

constexpr size_t kReadBufferSize = 64 * 1024;
// A frame up to this size is read into a read buffer grown to hold it (and
// then handed on without a copy); a larger one gets a buffer of its own.
constexpr size_t kMaxReadBufferSize = 1024 * 1024;
// Room kept after a frame that needed a bigger buffer, so that the next,
// similar-sized frame fits without another reallocation.
constexpr size_t kGrowSlack = 4 * 1024;
// How long a muted connection waits before retrying a full RequestChannel.
constexpr auto kQueueFullRetry = std::chrono::milliseconds(2);

}  // namespace

Connection::Connection(Processor& processor, boost::asio::ip::tcp::socket socket, ConnectionQuotas::Slot slot,
                       RequestContext context)
    : processor_(processor),
      socket_(std::move(socket)),
      slot_(std::move(slot)),
      context_(std::move(context)),
      retry_timer_(processor.io_context()),
      buf_(kReadBufferSize),
      cap_(kReadBufferSize),
      last_active_(std::chrono::steady_clock::now()) {}

void Connection::start() {
  boost::system::error_code ec;
  socket_.native_non_blocking(true, ec);  // write_chunks and sendfile write directly, never blocking
  process_buffer();
}

void Connection::close(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  if (!reason.empty())
    net_log().debug("closing connection {} from {}: {}", context_.connection_id, context_.peer_address,
                    escaped(reason));
  boost::system::error_code ec;
  socket_.shutdown(boost::asio::socket_base::shutdown_both, ec);
  socket_.close(ec);
  retry_timer_.cancel();
  pending_.reset();
  lease_.reset();
  wanted_bytes_ = 0;
  slot_.release();
  processor_.remove(context_.connection_id);
}

// Looks for one complete frame in the buffer; dispatches it or reads more.
void Connection::process_buffer() {
  if (closed_ || muted_ || wanted_bytes_ > 0) return;
  size_t have = wpos_ - rpos_;
  if (have >= 4) {
    int32_t size = load_be<int32_t>(buf_.data() + rpos_);
    if (size < 0 || size > processor_.config().max_request_bytes) {
      net_log().warn("closing connection from {}: frame size {} is outside [0, {}] (socket.request.max.bytes)",
                     context_.peer_address, size, processor_.config().max_request_bytes);
      close("");
      return;
    }
    if (!lease_ && !reserve_memory(size)) return;
    size_t need = 4 + static_cast<size_t>(size);
    if (have >= need) {
      // The frame stays where it was read: the request shares the buffer.
      Frame frame(buf_, buf_.data() + rpos_ + 4, static_cast<size_t>(size));
      rpos_ += need;
      dispatch(std::move(frame));
      return;
    }
    if (need > kMaxReadBufferSize) {
      // Too big to keep a buffer for: read the rest straight into the frame.
      Frame frame(size);
      size_t body = have - 4;
      if (body) std::memcpy(frame.data(), buf_.data() + rpos_ + 4, body);
      rpos_ = wpos_;
      read_large_frame(std::move(frame), body);
      return;
    }
    make_room(need);
  }
  read_more();
}

// Takes the frame's bytes from the MemoryPool, or queues for them on the
// Processor and stops reading until they are granted.
bool Connection::reserve_memory(int64_t frame_bytes) {
  lease_ = processor_.memory_pool().try_acquire(frame_bytes);
  if (lease_) return true;
  wanted_bytes_ = frame_bytes;
  processor_.wait_for_memory(shared_from_this());
  return false;
}

bool Connection::try_admit_waiting_frame() {
  if (wanted_bytes_ == 0) return true;
  lease_ = processor_.memory_pool().try_acquire(wanted_bytes_);
  if (!lease_) return false;
  wanted_bytes_ = 0;
  last_active_ = std::chrono::steady_clock::now();  // the idle clock restarts for the body
  return true;
}

void Connection::resume_reading() { process_buffer(); }

// Makes [rpos_, rpos_ + need) fit in a buffer that only we use from rpos_ on,
// moving the unread bytes as little as possible.
void Connection::make_room(size_t need) {
  const size_t have = wpos_ - rpos_;
  if (buf_.unique()) {  // no request holds a view: the whole buffer is ours
    if (have == 0) {
      rpos_ = wpos_ = 0;
    }
    if (rpos_ + need <= cap_ && wpos_ < cap_) return;
    if (need <= cap_) {
      std::memmove(buf_.data(), buf_.data() + rpos_, have);
      rpos_ = 0;
      wpos_ = have;
      return;
    }
  } else if (rpos_ + need <= cap_ && wpos_ < cap_) {
    return;  // the free tail after the frame in flight is enough
  }
  // A bigger buffer, or a fresh one because a request still holds this one.
  const size_t cap = std::max(cap_, need <= kReadBufferSize ? kReadBufferSize : need + kGrowSlack);
  SharedBuffer fresh(cap);
  if (have) std::memcpy(fresh.data(), buf_.data() + rpos_, have);
  buf_ = std::move(fresh);
  cap_ = cap;
  rpos_ = 0;
  wpos_ = have;
}

void Connection::read_more() {
  if (reading_ || closed_) return;
  make_room(std::max<size_t>(wpos_ - rpos_ + 1, 4));
  reading_ = true;
  socket_.async_read_some(boost::asio::buffer(buf_.data() + wpos_, cap_ - wpos_),
                          [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
                            self->reading_ = false;
                            if (self->closed_) return;
                            if (ec) {
                              self->close(ec == boost::asio::error::eof ? "" : ec.message());
                              return;
                            }
                            self->wpos_ += n;
                            self->process_buffer();
                          });
}

void Connection::read_large_frame(Frame frame, size_t have) {
  reading_ = true;
  auto shared = std::make_shared<Frame>(std::move(frame));
  boost::asio::async_read(socket_, boost::asio::buffer(shared->data() + have, shared->size() - have),
                          [self = shared_from_this(), shared](const boost::system::error_code& ec, size_t) {
                            self->reading_ = false;
                            if (self->closed_) return;
                            if (ec) {
                              self->close(ec == boost::asio::error::eof ? "frame cut short" : ec.message());
                              return;
                            }
                            self->dispatch(std::move(*shared));
                          });
}

// Activity, for connections.max.idle.ms, is a whole request or a written
// response, not a byte: a client dribbling a frame (slowloris) is idle.
void Connection::dispatch(Frame frame) {
  last_active_ = std::chrono::steady_clock::now();
  muted_ = true;
  pending_.emplace();
  pending_->context = context_;
  pending_->frame = std::move(frame);
  pending_->received_at = std::chrono::steady_clock::now();
  try_enqueue();
}

// Never blocks the loop: a full channel leaves us muted and retries shortly.
void Connection::try_enqueue() {
  if (closed_ || !pending_) return;
  if (processor_.channel().try_send_request(*pending_)) {
    pending_.reset();
    processor_.on_request_queued();
    return;
  }
  retry_timer_.expires_after(kQueueFullRetry);
  retry_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->try_enqueue();
  });
}

void Connection::on_response(Response response) {
  if (closed_) return;
  switch (response.action) {
    case Response::Action::kNoOp:
      unmute();
      return;
    case Response::Action::kClose:
      if (!response.close_reason.empty())
        net_log().info("closing connection from {}: {}", context_.peer_address, escaped(response.close_reason));
      close("");
      return;
    case Response::Action::kSend:
      response_ = std::move(response);
      write_chunks(0);
      return;
  }
}

// Writes chunk `index` onwards: runs of byte chunks in one gathered sendmsg,
// file regions with sendfile. Writes at once while the socket takes the bytes
// (the usual case: no completion hop through the loop, no allocation); only
// the rest of a run the socket could not take goes to async_write.
void Connection::write_chunks(size_t index) {
  auto& chunks = response_.chunks;
  while (!closed_) {
    if (index >= chunks.size()) {
      response_ = Response{};
      last_active_ = std::chrono::steady_clock::now();
      unmute();
      return;
    }
    if (auto* region = std::get_if<FileRegion>(&chunks[index])) {
      send_file_region(index, std::move(*region));
      return;
    }
    constexpr size_t kMaxIov = 16;
    iovec iov[kMaxIov];
    size_t n = 0, total = 0, end = index;
    while (end < chunks.size() && n < kMaxIov && std::holds_alternative<std::vector<uint8_t>>(chunks[end])) {
      auto& bytes = std::get<std::vector<uint8_t>>(chunks[end]);
      iov[n++] = {bytes.data(), bytes.size()};
      total += bytes.size();
      ++end;
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = n;
    ssize_t w;
    do {
      w = ::sendmsg(socket_.native_handle(), &msg, MSG_NOSIGNAL);
    } while (w < 0 && errno == EINTR);
    if (w >= 0 && static_cast<size_t>(w) == total) {
      index = end;
      continue;
    }
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      close(std::string("send: ") + std::strerror(errno));
      return;
    }
    // The socket is full: the unwritten rest of this run, asynchronously.
    size_t skip = w > 0 ? static_cast<size_t>(w) : 0;
    std::vector<boost::asio::const_buffer> rest;
    for (size_t i = 0; i < n; ++i) {
      if (skip >= iov[i].iov_len) {
        skip -= iov[i].iov_len;
        continue;
      }
      rest.emplace_back(static_cast<const uint8_t*>(iov[i].iov_base) + skip, iov[i].iov_len - skip);
      skip = 0;
    }
    boost::asio::async_write(socket_, rest,
                             [self = shared_from_this(), end](const boost::system::error_code& ec, size_t) {
                               if (self->closed_) return;
                               if (ec) {
                                 self->close(ec.message());
                                 return;
                               }
                               self->write_chunks(end);
                             });
    return;
  }
}

void Connection::send_file_region(size_t index, FileRegion region) {
  while (region.length > 0) {
    off_t off = region.offset;
    ssize_t n = ::sendfile(socket_.native_handle(), region.fd, &off, region.length);
    if (n > 0) {
      region.offset += n;
      region.length -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      socket_.async_wait(boost::asio::socket_base::wait_write,
                         [self = shared_from_this(), index, region](const boost::system::error_code& ec) mutable {
                           if (self->closed_) return;
                           if (ec) {
                             self->close(ec.message());
                             return;
                           }
                           self->send_file_region(index, std::move(region));
                         });
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    // n == 0: the file is shorter than promised; the frame would be corrupt.
    close(n == 0 ? "file region ended early" : std::string("sendfile: ") + std::strerror(errno));
    return;
  }
  write_chunks(index + 1);
}

void Connection::unmute() {
  muted_ = false;
  if (lease_) {  // the frame is answered: its bytes go back, perhaps to a waiter
    lease_.reset();
    processor_.retry_memory_waiters();
  }
  if (processor_.draining()) {
    close("broker shutting down");
    return;
  }
  process_buffer();
}

}  // namespace skiff::network
