// Request and Response: what crosses the RequestChannel between a Processor
// (network thread) and a handler thread.
//
// The network layer treats a request frame as opaque bytes: it knows nothing of
// Kafka's APIs. A Response is either bytes to send (possibly with file regions
// that the Processor writes with sendfile), nothing (acks=0), or a close.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/file_region.h"

namespace skiff::network {

class ResponseGate;
class SaslSession;

// A reference-counted byte buffer: one allocation, the count in front of the
// bytes. Copies share the bytes. unique() tells the owner of a read buffer
// whether a request still holds a view into it; when it returns true, every
// access the other holders made happens-before the caller's next write.
class SharedBuffer {
 public:
  SharedBuffer() = default;
  explicit SharedBuffer(size_t capacity) : h_(new (::operator new(sizeof(Header) + capacity)) Header) {}
  SharedBuffer(const SharedBuffer& o) noexcept : h_(o.h_) {
    if (h_) h_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  SharedBuffer(SharedBuffer&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  SharedBuffer& operator=(SharedBuffer o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~SharedBuffer() {
    if (h_ && h_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      h_->~Header();
      ::operator delete(h_);
    }
  }
  uint8_t* data() const { return h_ ? reinterpret_cast<uint8_t*>(h_ + 1) : nullptr; }
  bool unique() const { return h_ && h_->refs.load(std::memory_order_acquire) == 1; }

 private:
  struct alignas(16) Header {
    std::atomic<uint32_t> refs{1};
  };
  Header* h_ = nullptr;
};

// One frame body: a contiguous byte range, either in a buffer of its own or
// inside a Connection's read buffer (shared, so that the request is handed
// over without copying its bytes). Uninitialised on allocation.
class Frame {
 public:
  Frame() = default;
  explicit Frame(size_t size) : owner_(size), data_(owner_.data()), size_(size) {}
  // A view of `size` bytes at `data`, inside the buffer `owner`.
  Frame(SharedBuffer owner, uint8_t* data, size_t size) : owner_(std::move(owner)), data_(data), size_(size) {}
  Frame(Frame&& o) noexcept
      : owner_(std::move(o.owner_)), data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  Frame& operator=(Frame&& o) noexcept {
    owner_ = std::move(o.owner_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  SharedBuffer owner_;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Where a request came from and where its response must go back to.
struct RequestContext {
  int processor_id = -1;
  uint64_t connection_id = 0;
  std::string listener_name;  // e.g. "PLAINTEXT"
  std::string peer_address;   // textual IP of the client
  std::string local_address;  // textual IP the connection arrived on
  uint16_t local_port = 0;    // port of the listener it arrived on
  // The authenticated principal, "User:<name>" as Kafka's KafkaPrincipal
  // prints it: ANONYMOUS until TLS (client certificate) or SASL names the
  // client. Set by the network layer on the connection's own context before
  // the request that relies on it is read; copied into each request.
  std::string principal = "User:ANONYMOUS";
  // The principal authenticated with a delegation token (SCRAM "tokenauth"),
  // which may not create, renew or expire tokens (Kafka's rule).
  bool token_authenticated = false;
  // The connection's gate (response_gate.h): lets the thread that makes the
  // response write it to the socket itself. Null: through the Processor.
  std::shared_ptr<ResponseGate> gate;
  // The connection's SASL state (sasl_session.h); null unless the listener
  // is SASL_PLAINTEXT or SASL_SSL.
  std::shared_ptr<SaslSession> sasl;
};

struct Request {
  RequestContext context;
  Frame frame;  // the frame body, without its 4-byte size prefix
  // The frame is a bare SASL token (after SaslHandshake v0), not a request.
  bool raw_sasl_token = false;
  std::chrono::steady_clock::time_point received_at{};  // read whole by the Processor
  std::chrono::steady_clock::time_point dequeued_at{};  // taken from the RequestChannel by a handler
};

// The life of one request, for the request metrics (Kafka's RequestMetrics:
// RequestQueueTimeMs, LocalTimeMs, RemoteTimeMs, ResponseSendTimeMs,
// TotalTimeMs). Filled by the API layer, carried by its Response, completed
// by the network layer when the response has left (RequestObserver).
struct RequestTimes {
  using Clock = std::chrono::steady_clock;
  int16_t api_key = -1;  // -1: not timed (no Kafka request header)
  int16_t api_version = 0;
  Clock::time_point received{};
  Clock::time_point dequeued{};
  Clock::time_point parked{};  // kept to answer later (a delayed operation); unset if answered at once
  Clock::time_point answered{};
};

// Told of each timed response once it has left: written whole, or nothing
// to write (acks=0). Called on a Processor thread or on the thread that
// wrote the response itself (ResponseGate); must be thread-safe and cheap.
class RequestObserver {
 public:
  virtual ~RequestObserver() = default;
  virtual void on_response_sent(const RequestTimes& times, RequestTimes::Clock::time_point sent) = 0;
};

// FileRegion and ResponseChunk: common/file_region.h.

struct Response {
  enum class Action {
    kSend,   // write chunks; the connection's next request may then be taken
    kNoOp,   // write nothing (acks=0); the next request may be taken
    kClose,  // close the connection
    // write chunks, take no further request, close after close_delay (a
    // failed authentication: connection.failed.authentication.delay.ms)
    kSendThenClose,
  };
  RequestContext context;
  Action action = Action::kSend;
  // The whole response frame including its 4-byte size prefix, in order.
  std::vector<ResponseChunk> chunks;
  std::string close_reason;                  // logged when action == kClose
  std::chrono::milliseconds close_delay{0};  // kSendThenClose
  // kSend/kNoOp: once written, take no further request of the connection for
  // this long (a client quota's throttle: Kafka mutes the channel after
  // sending a response whose throttle_time_ms is set, KIP-219).
  std::chrono::milliseconds throttle{0};
  RequestTimes times;  // for the RequestObserver, if api_key >= 0

  static Response send(RequestContext ctx, std::vector<uint8_t> frame_with_size) {
    Response r;
    r.context = std::move(ctx);
    r.chunks.emplace_back(std::move(frame_with_size));
    return r;
  }
  static Response noop(RequestContext ctx) {
    Response r;
    r.context = std::move(ctx);
    r.action = Action::kNoOp;
    return r;
  }
  static Response close(RequestContext ctx, std::string reason) {
    Response r;
    r.context = std::move(ctx);
    r.action = Action::kClose;
    r.close_reason = std::move(reason);
    return r;
  }
};

// Sends a response back to the Processor that owns the connection.
// Thread-safe; may be called from any thread, at any later time (delayed ops).
class ResponseSender {
 public:
  virtual ~ResponseSender() = default;
  virtual void send_response(Response response) = 0;
};

// Implemented by api::KafkaApis (and by test handlers). Called on a handler
// thread. It must answer every request exactly once through `sender`, either
// before returning or later from another thread.
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  virtual void handle(Request request, ResponseSender& sender) = 0;
};

// Told when a connection has closed, for whatever reason (Kafka's
// ConnectionDisconnectListener: the share sessions opened on it end and their
// acquired records are released). Called on the Processor's thread after the
// connection left it; must be thread-safe and must not block for long.
class ConnectionListener {
 public:
  virtual ~ConnectionListener() = default;
  virtual void on_connection_closed(uint64_t connection_id) = 0;
};

}  // namespace skiff::network
