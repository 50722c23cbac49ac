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
//     a whole next frame is waiting, its buffer is full, or it is draining);
//   - the socket is full, or the response closes or mutes (a quota's
//     throttle) the connection: the rest is handed to the Processor, which
//     finishes it and owns the socket again.
// close() marks the gate closed and then waits out a write in progress
// before the descriptor is closed, so no thread ever writes to a closed (or
// reused) descriptor. One request at a time per connection is owed, so
// responses stay in order.
//
// Thread-safe, without a lock: one atomic state word (kOwed, kWake,
// kWriting, kClosed). A writer sets kWriting only while owed and not closed;
// the lease is the Processor's until it sets kOwed (release) and the
// writer's from then until it clears kOwed. The Processor calls
// open/owed/request_wake/answered/close; any thread calls try_answer (at
// most one response at a time, as above).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
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
  // Processor: it wrote (or dropped) the owed response itself.
  void answered();
  void close();

  enum class Outcome {
    kAnswered,      // written whole (or nothing to write); nothing else to do
    kAnsweredWake,  // written whole; the Processor asked to be woken
    kToProcessor,   // not (all) written: the Processor takes the response on
    kClosed,        // the connection is gone: drop the response
  };
  // Any thread: writes `response` now if it can; on kToProcessor the
  // response holds what is left to write.
  Outcome try_answer(Response& response);

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

  bool begin_write();            // sets kWriting if owed and open
  Outcome end_write(bool done);  // clears kWriting (and kOwed if done)

  const int fd_;
  std::atomic<uint32_t> state_{0};
  std::optional<MemoryPool::Lease> lease_;  // see the class comment for who holds it when
  std::atomic<std::chrono::steady_clock::rep> last_active_{0};
};

}  // namespace skiff::network
