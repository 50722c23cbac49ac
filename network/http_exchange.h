// HttpExchange: one request answered later, from any thread, by an
// asynchronous route (network/http_router.h add_async / set_async_fallback),
// and the channel it shares with its HttpSession (network/http_session.h).
//
// A route gets the request and a std::shared_ptr<HttpExchange>; it may keep
// it, hand it to a worker thread and answer from there:
//   - respond(r): the whole answer at once (never blocks);
//   - begin(status, type), write(piece)..., end(): a streamed answer
//     (Transfer-Encoding: chunked), each piece one chunk. write() blocks
//     while the connection's queue holds `queue_bytes` or more not yet
//     written (backpressure), and returns false once the connection is gone;
//   - read(piece): for a route registered with HttpBodyMode::kStreamed, the
//     request body piece by piece as it arrives (chunked or Content-Length),
//     blocking until the next piece; the session stops reading the socket
//     while `queue_bytes` or more wait unread (flow control).
// Dropping the last reference without an answer sends 500; dropping it in
// the middle of a streamed answer closes the connection (the client sees a
// cut message, not a complete one). An answer that ends before the request
// body was read to its end closes the connection after it.
//
// The connection closing (client gone, idle timeout, server stop) makes
// every blocked call return (write/respond/end false, read kClosed); later
// calls return at once likewise.
// Threads: the handle's calls from any one thread at a time; write() and
// read() block, so never on the HTTP thread. The channel's session side is
// called on the HTTP thread only; it is woken through `kick`, which posts
// onto the HTTP thread (HttpPoster) and does nothing once the server stops.
#pragma once

#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "network/http_message.h"

namespace skiff::network {

// Posts work onto the HTTP thread while the server runs. close() (at the
// server's stop, before the io_context goes) makes every later post a no-op.
class HttpPoster {
 public:
  explicit HttpPoster(boost::asio::io_context& io) : io_(&io) {}
  bool post(std::function<void()> f);  // false once closed
  void close();

 private:
  std::mutex mu_;
  boost::asio::io_context* io_;  // null once closed
};

// What the session writes, in order.
struct HttpOut {
  enum class Kind { kWhole, kHead, kChunk, kEnd, kAbort };
  Kind kind = Kind::kWhole;
  HttpResponse response;  // kWhole; kHead: status, content type, headers
  std::string chunk;      // kChunk
};

// The state shared by a session and its route; every member under mu_.
class HttpExchangeChannel {
 public:
  explicit HttpExchangeChannel(size_t queue_bytes) : queue_bytes_(queue_bytes) {}
  void set_kick(std::function<void()> kick) { kick_ = std::move(kick); }

  // Route side (any thread but the HTTP thread, where they block).
  bool push_out(HttpOut out, bool bounded);  // false: closed
  enum class Read { kData, kEnd, kClosed };
  Read pop_in(std::string& piece);
  bool closed();

  // Session side (HTTP thread).
  bool pop_out(HttpOut& out);       // false: nothing queued
  void written(size_t bytes);       // a popped chunk is on the wire
  bool push_in(std::string piece);  // false: the queue is full, stop reading
  bool in_room();                   // reading may resume
  void in_end();                    // the body is complete
  void close();                     // the connection is gone (idempotent)
  void kicked();                    // a kick ran

 private:
  void kick_locked(std::unique_lock<std::mutex>& lock);  // unlocks

  const size_t queue_bytes_;
  std::function<void()> kick_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<HttpOut> out_;
  size_t out_bytes_ = 0;  // queued or being written
  std::deque<std::string> in_;
  size_t in_bytes_ = 0;
  bool in_done_ = false;
  bool in_paused_ = false;  // the session stopped reading for room
  bool kick_pending_ = false;
  bool closed_ = false;
};

class HttpExchange {
 public:
  explicit HttpExchange(std::shared_ptr<HttpExchangeChannel> channel) : channel_(std::move(channel)) {}
  ~HttpExchange();
  HttpExchange(const HttpExchange&) = delete;
  HttpExchange& operator=(const HttpExchange&) = delete;

  // The whole answer; false when already answered or the connection is gone.
  bool respond(HttpResponse response);
  // A streamed answer: status, Content-Type and `headers` (as HttpResponse's).
  bool begin(int status, std::string content_type, std::vector<std::pair<std::string, std::string>> headers = {});
  bool write(std::string piece);  // blocks for room; an empty piece is skipped
  bool end();
  // The next piece of a streamed request body.
  HttpExchangeChannel::Read read(std::string& piece) { return channel_->pop_in(piece); }
  // Whether an answer (whole or its head) went out.
  bool started() const { return state_ != State::kNone; }
  bool closed() { return channel_->closed(); }

 private:
  enum class State { kNone, kStreaming, kDone };
  std::shared_ptr<HttpExchangeChannel> channel_;
  State state_ = State::kNone;
};

// An asynchronous route: answers through `exchange`, now or later.
using AsyncHttpHandler = std::function<void(HttpRequest request, std::shared_ptr<HttpExchange> exchange)>;
// How an asynchronous route gets its request body.
enum class HttpBodyMode {
  kWhole,     // read in full (under the server's body limit) into request.body first
  kStreamed,  // the route runs after the header; the body through HttpExchange::read
};

}  // namespace skiff::network
