// RequestChannel: the bounded queue between the Processors (producers) and
// the request handler threads (consumers), and the route back: a response is
// posted to the Processor that owns the connection, by processor id.
//
// Thread-safe. Processors never block on it: try_send_request fails when the
// queue holds queued.max.requests and the Processor retries later.
// Routes: num.network.threads is dynamic, so Processors are registered while
// responses flow. Each id (never reused) has one slot, an atomic pointer to a
// route the channel owns until it is destroyed: send_response reads it with
// acquire and no lock; a removed Processor's route stays valid (the
// SocketServer keeps the stopped Processor) and drops what it is given.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "network/request.h"

namespace skiff::network {

class RequestChannel : public ResponseSender {
 public:
  using ResponseRoute = std::function<void(Response)>;

  // `awake_target`: how many handler threads may keep each other awake (see
  // wake_handlers); the server passes the CPUs it may use. A thread woken
  // beyond the CPUs adds switches, not parallelism.
  explicit RequestChannel(size_t capacity, size_t awake_target = SIZE_MAX)
      : capacity_(capacity), awake_target_(awake_target) {}

  // Processor side. Moves from `request` only when it was queued. With
  // kLater no handler is woken yet: the caller owes a wake_handlers() before
  // it sleeps (a Processor's turn queues its requests, then wakes once).
  enum class Wake { kNow, kLater };
  bool try_send_request(Request& request, Wake wake = Wake::kNow);
  // Wakes one handler for requests queued with kLater; a handler that takes
  // a request with two or more still queued behind it wakes the next, while
  // fewer than awake_target handler threads are awake. The Processor's wake
  // is never held back: a handler blocked in I/O counts as awake, and the
  // next turn's wake still reaches a sleeping one.
  void wake_handlers();

  // Any thread: a request read behind a response just written on the same
  // connection (staged, response_gate.h), owed now. It is queued even over
  // capacity (it was read already and holds its memory lease), in read
  // order (Request::received_at: ahead of requests read after it), except
  // that a handler thread with nothing queued that was read before it keeps
  // it to handle next itself: a pipelining client then wakes no other
  // thread, and a run of pipelined requests read in one turn is served
  // before what the turn read after it (a fetch sees the whole run of
  // produces appended, not only the first). A handler
  // thread that queues it wakes another only when two or more requests
  // would still wait behind its next one (as receive_request does, and as
  // awake_target allows).
  void hand_on(Request request);

  // Corked writes (response_gate.h). Whether the calling thread is one of
  // this channel's handler threads, the only threads that cork (they come
  // back to receive_request after each request, which keeps the account).
  bool handles_here() const;
  // A handler thread wrote a response of `gate`'s connection, corked or
  // not. A cork is pushed (ResponseGate::uncork) once the thread has served
  // one more request without writing that connection uncorked, or at once
  // if it has no request of its own to serve next.
  void wrote(const std::shared_ptr<ResponseGate>& gate, bool corked);

  // Handler side: waits for a request; nothing once the channel is closed
  // and drained, or after `timeout`. A request this thread kept (hand_on)
  // comes first.
  std::optional<Request> receive_request(std::chrono::milliseconds timeout);
  // A handler thread that ends queues what it kept, for another to handle.
  void release_kept();
  // Requests handed on so far (tests, and the pipelining's share of requests).
  uint64_t handed_on() const { return handed_on_.load(std::memory_order_relaxed); }

  // Wakes every waiting handler; queued requests are still handed out.
  void close();

  // Response routing, by processor id in [0, kMaxProcessorIds); any thread.
  static constexpr int kMaxProcessorIds = 4096;
  void register_processor(int processor_id, ResponseRoute route);
  void send_response(Response response) override;

  bool closed() const;
  size_t size() const;
  size_t capacity() const { return capacity_; }

  // Who is told of each timed response (request metrics); null: nobody. Set
  // once before requests flow; read by the Processors and response writers.
  void set_observer(RequestObserver* observer) { observer_.store(observer, std::memory_order_release); }
  RequestObserver* observer() const { return observer_.load(std::memory_order_acquire); }
  // Who is told of each closed connection; null: nobody. Set like the observer.
  void set_connection_listener(ConnectionListener* l) { connection_listener_.store(l, std::memory_order_release); }
  ConnectionListener* connection_listener() const { return connection_listener_.load(std::memory_order_acquire); }

 private:
  // Whether a handler thread should wake another for what is queued (mu_ held).
  bool may_wake_another() const { return handlers_ - waiting_ < awake_target_; }

  const size_t capacity_;
  const size_t awake_target_;
  std::atomic<RequestObserver*> observer_{nullptr};
  std::atomic<ConnectionListener*> connection_listener_{nullptr};
  mutable std::mutex mu_;
  std::condition_variable not_empty_;
  std::deque<Request> queue_;
  bool closed_ = false;
  size_t handlers_ = 0;  // handler threads that take requests (receive_request until release_kept); mu_
  size_t waiting_ = 0;   // of them, waiting for a request; mu_
  std::atomic<uint64_t> handed_on_{0};
  std::vector<std::unique_ptr<ResponseRoute>> owned_routes_;  // guarded by mu_; kept until destruction
  std::unique_ptr<std::atomic<const ResponseRoute*>[]> routes_ {
    new std::atomic<const ResponseRoute*>[ kMaxProcessorIds ]()
  };  // by processor id
};

}  // namespace skiff::network
