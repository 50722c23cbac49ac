// ResponseGate: the part of a Connection that threads other than its
// Processor touch, and the rule for who may write the connection's socket.
//
// Ownership rule. The Processor owns its connections' sockets: it reads them,
// closes them, and writes them, except while a response is *owed* (a request
// was dispatched and its response is not yet written). While owed, the
// Processor never writes; the thread that makes the response (a handler
// thread, or whichever thread completes a delayed operation) writes it
// straight to the socket, non-blocking, marked as writing in the gate:
//   - all of it written: the response is done right there; the Processor,
//     which kept reading meanwhile, sees the connection answered when it next
//     looks, and is woken only if it asked to be (it stopped reading because
//     it cannot stage more, its buffer is full, or it is draining);
//   - the socket is full, or the response closes or mutes (a quota's
//     throttle) the connection: the rest is handed to the Processor, which
//     finishes it and owns the socket again.
// close() marks the gate closed and then waits out a write in progress
// before the descriptor is closed, so no thread ever writes to a closed (or
// reused) descriptor. One request at a time per connection is owed, so
// responses stay in order.
//
// Pipelined requests. While a response is owed the Processor goes on reading
// and *stages* the whole requests that follow (stage(), up to kMaxStaged, each
// with its memory lease), in order. The thread that writes the owed response
// whole takes the first staged request in the same step: that request is
// owed from then on, and the writer hands it on (RequestChannel::hand_on: a
// handler thread handles it next itself). So a client that pipelines costs no
// Processor or handler wake-up per request. A response the Processor writes
// (throttled, blocked, closing) leaves the staged requests to the Processor,
// which dispatches them once the connection may take requests again.
//
// Corking. A pipelining client (librdkafka sends produces back to back)
// gets one response per request; written one by one, each is a segment and
// a wake-up of the client. The thread that writes a response with a small
// request staged behind it, and handles that request next itself, writes it
// corked (MSG_MORE): the kernel sends it with the next response written
// uncorked, or when uncork() pushes it (the next request was parked or has
// no response), or after 200 ms at most (tcp(7)). An incoming segment from
// the client pushes it too.
//
// Thread-safe. The state word (kOwed, kWake, kWriting, kClosed) is atomic; a
// writer sets kWriting only while owed and not closed, and the lease is the
// Processor's until it sets kOwed (release) and the writer's from then until
// it clears kOwed. kOwed is cleared, and staged requests are added or taken,
// only under mu_, so a request is never staged behind a response already
// written. The Processor calls open/owed/request_wake/answered/stage/
// take_staged/close; any thread calls try_answer (at most one response at a
// time, as above).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

#include "network/memory_pool.h"
#include "network/request.h"
#include "network/response_write.h"

namespace skiff::network {

class ResponseGate {
 public:
  // fd < 0: no thread but the Processor writes this connection (TLS: the
  // SSL object is the Processor's alone); try_answer hands every response on.
  explicit ResponseGate(int fd) : fd_(fd) { touch(); }

  // Processor: a request is dispatched; `lease` (its bytes of
  // queued.max.request.bytes) is given back once its response is written.
  void open(std::optional<MemoryPool::Lease> lease);
  bool owed() const;
  // Processor: "wake me when answered". False when already answered (then
  // the caller goes on itself).
  bool request_wake();
  // Processor: it wrote (or dropped) the owed response itself. With
  // `take_next`, the first staged request (if any) is owed now and returned
  // for the Processor to dispatch; without (a muted connection), staged
  // requests wait for take_staged().
  std::optional<Request> answered(bool take_next = true);
  void close();

  // Processor: a whole request read while a response is owed, queued behind
  // it. False, the request untouched, when nothing is owed any more (then it
  // is the caller's to dispatch) or the gate is closed (to drop).
  static constexpr size_t kMaxStaged = 16;
  // A response is corked only for a small request behind it (served in
  // microseconds): a large one (a producer's full batch) would hold it for
  // its whole append, and a client's in-flight window with it.
  static constexpr size_t kCorkNextMax = 4096;
  bool stage(Request& request, std::optional<MemoryPool::Lease>& lease);
  size_t staged() const;
  // Processor, nothing owed: the first staged request, owed from now on.
  std::optional<Request> take_staged();

  enum class Outcome {
    kAnswered,      // written whole (or nothing to write); nothing else to do
    kAnsweredWake,  // written whole; the Processor asked to be woken
    kToProcessor,   // not (all) written: the Processor takes the response on
    kClosed,        // the connection is gone: drop the response
  };
  // Any thread: writes `response` now if it can; on kToProcessor the
  // response holds what is left to write. Written whole, `next` receives the
  // first staged request, now owed, for the caller to hand on.
  // `corked` non-null: the caller will handle `next` itself right away, so
  // with a request staged the response may be written corked (MSG_MORE) to
  // leave with the next one's in one segment; *corked says whether it was,
  // and then the caller owes an uncork() unless it writes this connection
  // again uncorked (RequestChannel keeps that account for handler threads).
  Outcome try_answer(Response& response, std::optional<Request>& next, bool* corked = nullptr);
  // Any thread: pushes out what a corked write left in the socket (unless
  // the connection is closed, or another thread is writing it, whose write
  // pushes it anyway).
  void uncork();

  // Last whole request in or response out (connections.max.idle.ms).
  std::chrono::steady_clock::time_point last_active() const {
    return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(last_active_.load()));
  }
  void touch() { last_active_.store(std::chrono::steady_clock::now().time_since_epoch().count()); }

 private:
  static constexpr uint32_t kOwed = 1;     // a response is owed
  static constexpr uint32_t kWake = 2;     // the Processor waits to be told it was written
  static constexpr uint32_t kWriting = 4;  // a thread other than the Processor is writing
  static constexpr uint32_t kClosed = 8;   // the descriptor is (being) closed

  struct Staged {
    Request request;
    std::optional<MemoryPool::Lease> lease;
  };

  // Sets kWriting if open, not being written, and every bit of `required`
  // is set (a response is written only while owed; uncork needs nothing).
  bool begin_write(uint32_t required = kOwed);
  // Clears kWriting; done, the owed response is answered (answer_locked).
  Outcome end_write(bool done, std::optional<Request>& next);
  // Under mu_: the owed response is answered; the first staged request, if
  // any and `take_next`, becomes the owed one. True when it cleared a kWake
  // (the Processor is to be woken).
  bool answer_locked(uint32_t also_clear, bool take_next, std::optional<Request>& next);

  const int fd_;
  std::atomic<uint32_t> state_{0};
  std::optional<MemoryPool::Lease> lease_;  // see the class comment for who holds it when
  mutable std::mutex mu_;                   // kOwed's clearing, staged_
  std::deque<Staged> staged_;               // guarded by mu_; each holds this gate (cleared by close())
  std::atomic<std::chrono::steady_clock::rep> last_active_{0};
};

}  // namespace skiff::network
