// Processor: one network thread with its own io_context. It owns the
// connections the Acceptor hands it, reads their frames, queues complete
// requests on the RequestChannel and writes the responses that come back.
//
// Public methods are thread-safe (they post onto the Processor's loop);
// everything else runs on the Processor's thread only.
//
// Who touches a socket: the Processor reads, closes and writes its
// connections' sockets, except while a response is owed, when the thread
// that makes the response writes it itself if the socket takes it whole, and
// hands it to the Processor otherwise (response_gate.h states the rule). So
// a request usually costs the Processor one wake-up (its arrival), not two.
// Requests a client pipelines behind an owed one are staged in the gate and
// taken on by the thread that writes the owed response, so they cost no
// wake-up at all. With coalescing (run_loop), the requests one turn of the
// loop reads wake one handler thread at the end of the turn, not one each,
// and a handler thread writes the responses to a pipelined run corked, so
// they leave in one segment (response_gate.h).
#pragma once

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/thread_cpu_clock.h"
#include "network/connection_quotas.h"
#include "network/memory_pool.h"
#include "network/request.h"
#include "network/request_channel.h"
#include "network/tls_context.h"

namespace skiff::network {

class Connection;

struct ProcessorConfig {
  int32_t max_request_bytes = 100 * 1024 * 1024;
  int64_t connections_max_idle_ms = 600000;
  int32_t send_buffer_bytes = -1;     // -1: OS default
  int32_t receive_buffer_bytes = -1;  // -1: OS default
  // Largest frame taken on a SASL listener before authentication
  // (sasl.server.max.receive.size).
  int32_t sasl_max_receive_bytes = 524288;
  // Coalescing of wake-ups (skiff.network.coalesce.us); 0: off. See run_loop().
  int32_t coalesce_us = 0;
};

class Processor {
 public:
  Processor(int id, ProcessorConfig config, RequestChannel& channel,
            std::shared_ptr<MemoryPool> memory_pool = MemoryPool::create(-1));
  ~Processor();

  int id() const { return id_; }
  boost::asio::io_context& io_context() { return io_; }

  void start();
  // Stops the loop and joins the thread; open connections are closed.
  void stop();

  // A connection accepted for this Processor (socket bound to our io_context).
  // `tls`: the listener's TLS context (SSL listeners), null for PLAINTEXT.
  void accept(boost::asio::ip::tcp::socket socket, ConnectionQuotas::Slot slot, RequestContext context,
              std::shared_ptr<const TlsContext> tls = nullptr);
  // Any thread. The calling thread writes the response itself when the
  // connection's gate lets it (response_gate.h); otherwise responses queue
  // up, and one wake-up of the loop takes all that arrived meanwhile.
  void enqueue_response(Response response);

  // Graceful shutdown: read no new requests; close connections with nothing in
  // flight now, the others once their response is written.
  void begin_drain();
  // Requests queued or being handled, i.e. responses still owed.
  size_t in_flight() const { return in_flight_.load(); }
  size_t connection_count() const { return connection_count_.load(); }
  // CPU seconds the Processor's thread has used (its busy time: the rest of
  // its life it waits in epoll). Any thread.
  double cpu_seconds() const { return cpu_.seconds(); }

  // Called by Connection (Processor thread only).
  const ProcessorConfig& config() const { return config_; }
  RequestChannel& channel() { return channel_; }
  MemoryPool& memory_pool() { return *memory_pool_; }
  // `c` could not get its frame's bytes from the MemoryPool: it is offered
  // them again, in arrival order, when bytes come back (polled on a timer,
  // since another Processor's connection may be the one that frees them).
  void wait_for_memory(const std::shared_ptr<Connection>& c);
  void retry_memory_waiters();
  bool draining() const { return draining_; }
  void on_request_queued() { ++in_flight_; }
  // Queues a request read on this loop for the handlers (false: the channel
  // is full). Coalescing, the handlers are woken once at the end of the turn.
  bool queue_request(Request& request);
  // A request was read from connection `id` in this turn of the loop
  // (counted for coalescing only: run_loop resets the count each turn).
  void on_request_read(uint64_t id) {
    if (config_.coalesce_us <= 0) return;
    ++requests_read_;
    if (id == last_read_connection_) return;
    last_read_connection_ = id;
    ++connections_read_;
  }
  void hand_on(std::optional<Request> next);
  // The last turn of the loop was followed by a coalescing sleep (run_loop):
  // the connections are being read once per period.
  bool coalescing() const { return coalescing_; }
  void on_response_taken() { --in_flight_; }
  // A response has left (written whole, or acks=0): the channel's observer
  // is told if it was timed. Any thread.
  void on_response_sent(const RequestTimes& times) {
    if (times.api_key < 0) return;
    if (auto* observer = channel_.observer()) observer->on_response_sent(times, RequestTimes::Clock::now());
  }
  void remove(uint64_t connection_id);

 private:
  void run_loop();
  void schedule_idle_sweep();
  // A response for the loop to write, or (nullopt) word that the
  // connection's owed response was written by another thread.
  void post_delivery(uint64_t connection_id, std::optional<Response> response);
  void deliver_responses();
  void arm_memory_timer();

  const int id_;
  const ProcessorConfig config_;
  RequestChannel& channel_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::steady_timer idle_timer_;
  std::shared_ptr<MemoryPool> memory_pool_;
  boost::asio::steady_timer memory_timer_;
  bool memory_timer_armed_ = false;
  std::deque<std::weak_ptr<Connection>> memory_waiters_;
  std::thread thread_;
  ThreadCpuClock cpu_;
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> connections_;
  uint64_t next_connection_seq_ = 0;
  // run_loop's turn: the connections read (a change of connection counts one).
  uint64_t last_read_connection_ = 0;
  int connections_read_ = 0;
  int requests_read_ = 0;
  bool handlers_owed_wake_ = false;  // a request of this turn was queued without a wake-up
  bool coalescing_ = false;          // the last turn held (run_loop)
  bool draining_ = false;
  std::atomic<size_t> in_flight_{0};
  std::atomic<size_t> connection_count_{0};

  std::mutex responses_mu_;
  using Delivery = std::pair<uint64_t, std::optional<Response>>;  // connection id, response
  std::vector<Delivery> responses_;   // guarded by responses_mu_; non-empty: a delivery is posted
  std::vector<Delivery> delivering_;  // Processor thread only
};

}  // namespace skiff::network
