#include "network/connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/read.hpp>
#include <cstring>

#include "common/byte_order.h"
#include "common/log_escape.h"
#include "network/net_log.h"
#include "network/processor.h"

namespace skiff::network {
namespace {

constexpr size_t kReadBufferSize = size_t{64} * 1024;
// A frame up to this size is read into a read buffer grown to hold it (and
// then handed on without a copy); a larger one gets a buffer of its own.
constexpr size_t kMaxReadBufferSize = size_t{1024} * 1024;
// Room kept after a frame that needed a bigger buffer, so that the next,
// similar-sized frame fits without another reallocation.
constexpr size_t kGrowSlack = size_t{4} * 1024;
// How long a muted connection waits before retrying a full RequestChannel.
constexpr auto kQueueFullRetry = std::chrono::milliseconds(2);

}  // namespace

Connection::Connection(Processor& processor, boost::asio::ip::tcp::socket socket, ConnectionQuotas::Slot slot,
                       RequestContext context, std::shared_ptr<const TlsContext> tls)
    : processor_(processor),
      socket_(std::move(socket)),
      slot_(std::move(slot)),
      context_(std::move(context)),
      retry_timer_(processor.io_context()),
      throttle_timer_(processor.io_context()),
      buf_(kReadBufferSize),
      cap_(kReadBufferSize),
      // TLS: no direct writes by other threads (the SSL object is ours alone).
      gate_(std::make_shared<ResponseGate>(tls ? -1 : socket_.native_handle())) {
  context_.gate = gate_;
  if (tls) tls_ = std::make_unique<TlsStream>(std::move(tls), socket_.native_handle());
}

void Connection::start() {
  boost::system::error_code ec;
  socket_.native_non_blocking(true, ec);  // write_chunks and sendfile write directly, never blocking
  if (tls_) {
    continue_handshake();  // then process_buffer()
    return;
  }
  process_buffer();
}

void Connection::close(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  if (!reason.empty())
    net_log().debug("closing connection {} from {}: {}", context_.connection_id, context_.peer_address,
                    escaped(reason));
  gate_->close();  // waits for a thread writing to the socket; none writes after
  boost::system::error_code ec;
  socket_.shutdown(boost::asio::socket_base::shutdown_both, ec);
  socket_.close(ec);
  retry_timer_.cancel();
  throttle_timer_.cancel();
  pending_.reset();
  lease_.reset();
  wanted_bytes_ = 0;
  slot_.release();
  processor_.remove(context_.connection_id);
}

// Looks for one complete frame in the buffer; dispatches it or reads more.
void Connection::process_buffer() {
  if (closed_ || wanted_bytes_ > 0) return;
  if (writing_ || gate_->owed()) {
    read_while_owed();
    return;
  }
  if (processor_.draining()) {  // answered: no new request is taken
    close("broker shutting down");
    return;
  }
  if (muted()) return;
  if (auto next = gate_->take_staged()) {  // read while the last response was owed; owed now
    enqueue(std::move(*next));
    read_while_owed();
    return;
  }
  size_t have = wpos_ - rpos_;
  if (have >= 4) {
    int32_t size = load_be<int32_t>(buf_.data() + rpos_);
    if (!frame_size_ok(size)) return;  // closed
    if (!lease_ && !reserve_memory(size)) return;
    size_t need = 4 + static_cast<size_t>(size);
    if (have >= need) {
      dispatch(take_frame(size));
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

bool Connection::frame_size_ok(int32_t size) {
  if (size >= 0 && size <= max_frame_bytes()) return true;
  net_log().warn("closing connection from {}: frame size {} is outside [0, {}] ({})", context_.peer_address, size,
                 max_frame_bytes(),
                 max_frame_bytes() == processor_.config().max_request_bytes
                     ? "socket.request.max.bytes"
                     : "sasl.server.max.receive.size, before SASL authentication");
  close("");
  return false;
}

// The whole frame of `size` bytes at rpos_. It stays where it was read: the
// request shares the buffer.
Frame Connection::take_frame(int32_t size) {
  Frame frame(buf_, buf_.data() + rpos_ + 4, static_cast<size_t>(size));
  rpos_ += 4 + static_cast<size_t>(size);
  return frame;
}

// A response is owed: stage the whole requests that follow it (response_gate.h)
// and keep reading into the buffer's room so that the next request wakes
// us; once no more can be staged and a whole frame waits (or there is no
// room, or the peer has shut its side), stop and ask the gate to wake us
// when answered.
void Connection::read_while_owed() {
  if (reading_) return;
  while (can_stage() && has_whole_frame())
    if (!stage_next()) return;
  if (!eof_seen_ && !has_whole_frame() && wpos_ - rpos_ < cap_) {
    read_more();
    return;
  }
  if (writing_ || gate_->request_wake()) return;  // on_answered() (or finish_answer) goes on
  process_buffer();                               // answered meanwhile
}

// Staging needs a connection whose requests any thread may answer (not TLS),
// whose frames need no SASL check at dispatch, and room among the staged.
bool Connection::can_stage() const {
  return !tls_ && !context_.sasl && !processor_.draining() && gate_->staged() < ResponseGate::kMaxStaged;
}

// Stages the whole frame at rpos_; false when we must stop (closed, waiting
// for memory, or answered meanwhile: then it was dispatched at once).
bool Connection::stage_next() {
  const int32_t size = load_be<int32_t>(buf_.data() + rpos_);
  if (!frame_size_ok(size)) return false;
  if (!lease_ && !reserve_memory(size)) return false;
  Request request = make_request(take_frame(size), false);
  if (gate_->stage(request, lease_)) return true;
  send(std::move(request));  // nothing owed any more: this one is next
  return false;
}

bool Connection::has_whole_frame() const {
  size_t have = wpos_ - rpos_;
  if (have < 4) return false;
  int32_t size = load_be<int32_t>(buf_.data() + rpos_);
  return size < 0 || have >= 4 + static_cast<size_t>(size);  // a bad size counts: it is dealt with then
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
  gate_->touch();  // the idle clock restarts for the body
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
  if (eof_seen_) {  // nothing more will come, and what is here is not a whole frame
    close("");
    return;
  }
  make_room(std::max<size_t>(wpos_ - rpos_ + 1, 4));
  reading_ = true;
  read_some(buf_.data() + wpos_, cap_ - wpos_,
            [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
              self->reading_ = false;
              if (self->closed_) return;
              if (ec == boost::asio::error::eof) {
                self->eof_seen_ = true;  // answer what was asked, then close
              } else if (ec) {
                self->close(ec.message());
                return;
              }
              self->wpos_ += n;
              if (n > 0 && !self->processor_.coalescing()) self->acknowledge_now();
              self->process_buffer();
            });
}

// The bytes just read are acknowledged now, not with the response (the
// kernel's delayed ACK would wait for it): a client that leaves Nagle on
// (librdkafka's default) holds its next small requests until its last
// segment is acknowledged, so they now arrive while that one is answered.
// TCP_QUICKACK does not stick (tcp(7)), hence once per read. Not while the
// Processor coalesces: it reads each connection once per period anyway, and
// the earlier ACK cost switches there (docs/benchmarks.md).
void Connection::acknowledge_now() {
  const int on = 1;
  ::setsockopt(socket_.native_handle(), IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on);
}

void Connection::read_large_frame(Frame frame, size_t have) {
  reading_ = true;
  auto shared = std::make_shared<Frame>(std::move(frame));
  read_exactly(shared->data() + have, shared->size() - have,
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
  bool raw_token = false;
  if (context_.sasl && !sasl_admits(frame, raw_token)) return;  // closed
  send(make_request(std::move(frame), raw_token));
}

Request Connection::make_request(Frame frame, bool raw_sasl_token) {
  processor_.on_request_read(id());
  Request request;
  request.context = context_;
  request.frame = std::move(frame);
  request.raw_sasl_token = raw_sasl_token;
  request.received_at = std::chrono::steady_clock::now();
  return request;
}

// The request is owed from now on; it goes to the RequestChannel, and the
// read for the one after it stays armed.
void Connection::send(Request request) {
  gate_->open(std::move(lease_));
  lease_.reset();
  enqueue(std::move(request));
  process_buffer();  // owed now: keeps a read armed for the next request
}

void Connection::enqueue(Request request) {
  pending_.emplace(std::move(request));
  try_enqueue();
}

// Never blocks the loop: a full channel leaves us muted and retries shortly.
void Connection::try_enqueue() {
  if (closed_ || !pending_) return;
  if (processor_.queue_request(*pending_)) {
    pending_.reset();
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
      processor_.on_response_sent(response.times);
      mute_for(response.throttle);
      finish_answer();
      return;
    case Response::Action::kClose:
      if (!response.close_reason.empty())
        net_log().info("closing connection from {}: {}", context_.peer_address, escaped(response.close_reason));
      close("");
      return;
    case Response::Action::kSendThenClose:
      close_after_write_ = response.close_delay;
      [[fallthrough]];
    case Response::Action::kSend:
      response_ = std::move(response);
      cursor_ = {};
      writing_ = true;
      continue_write();
      return;
  }
}

void Connection::on_answered() {
  if (closed_) return;
  if (processor_.draining() && !gate_->owed()) {
    close("broker shutting down");
    return;
  }
  processor_.retry_memory_waiters();
  process_buffer();
}

// Writes response_ on from cursor_ while the socket takes it; waits for room
// (never blocking the loop) when it does not.
void Connection::continue_write() {
  std::string error;
  switch (write_some(error)) {
    case WriteStatus::kDone:
      writing_ = false;
      processor_.on_response_sent(response_.times);
      mute_for(response_.throttle);
      response_ = Response{};
      if (close_after_write_) {
        close_after(*close_after_write_);  // no further request is taken
        return;
      }
      finish_answer();
      return;
    case WriteStatus::kFailed:
      close(error);
      return;
    case WriteStatus::kBlocked:
      socket_.async_wait(write_wants_read_ ? boost::asio::socket_base::wait_read : boost::asio::socket_base::wait_write,
                         [self = shared_from_this()](const boost::system::error_code& ec) {
                           if (self->closed_) return;
                           if (ec) {
                             self->close(ec.message());
                             return;
                           }
                           self->continue_write();
                         });
      return;
  }
}

// A quota's throttle, from the time the response has left (Kafka's
// ThrottledChannel): process_buffer() takes nothing until it elapses.
void Connection::mute_for(std::chrono::milliseconds throttle) {
  if (throttle.count() > 0) muted_until_ = std::chrono::steady_clock::now() + throttle;
}

// Muted: (re)arms the timer that resumes the connection; false once unmuted.
bool Connection::muted() {
  if (muted_until_ == std::chrono::steady_clock::time_point{}) return false;
  if (std::chrono::steady_clock::now() >= muted_until_) {
    muted_until_ = {};
    return false;
  }
  throttle_timer_.expires_at(muted_until_);
  throttle_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec && !self->closed_) self->process_buffer();
  });
  return true;
}

// The Processor answered the owed request itself (written, or acks=0). A
// staged request is next, unless the response muted the connection.
void Connection::finish_answer() {
  const bool muted_now = muted_until_ > std::chrono::steady_clock::now();
  if (auto next = gate_->answered(!muted_now)) enqueue(std::move(*next));
  on_answered();
}

}  // namespace skiff::network
