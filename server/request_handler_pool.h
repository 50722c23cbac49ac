// RequestHandlerPool: the M handler threads (num.io.threads). Each takes
// requests off the RequestChannel and passes them to the RequestHandler
// (KafkaApis), which answers through the channel, now or later.
//
// num.io.threads is dynamic (resize, as Kafka's KafkaRequestHandlerPool.
// resizeThreadPool): growing starts threads; shrinking asks the newest ones
// to stop, and each finishes the request it holds before it looks at its
// stop flag again, so no request taken off the channel is dropped. Nothing
// waits for a stopping thread (the caller may be one of them, answering the
// AlterConfigs that shrank the pool): they are joined by the next resize
// once finished, or by shutdown().
//
// Threads: resize() from any thread (a handler thread), shutdown() from the
// controlling thread; both serialised by mu_. Each worker reads only its own
// atomic stop flag, shared with the pool through a shared_ptr.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "network/request.h"
#include "network/request_channel.h"

namespace skiff::server {

class RequestHandlerPool {
 public:
  RequestHandlerPool(int threads, network::RequestChannel& channel, network::RequestHandler& handler);
  ~RequestHandlerPool();

  // Runs `threads` (>= 1) handler threads from now on.
  void resize(int threads);
  int size() const;
  // Closes the channel, lets the threads take what is still queued, joins them.
  void shutdown();
  // Time the threads have spent waiting for a request, summed over threads
  // (Kafka's RequestHandlerAvgIdlePercent is its rate over size()).
  double idle_seconds() const { return static_cast<double>(idle_ns_.load(std::memory_order_relaxed)) / 1e9; }

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> stop;  // set: exit before taking another request
    std::shared_ptr<std::atomic<bool>> done;  // set by the thread as it exits
  };
  void start_worker();  // caller holds mu_
  void run(int index, const std::shared_ptr<std::atomic<bool>>& stop);

  network::RequestChannel& channel_;
  network::RequestHandler& handler_;
  mutable std::mutex mu_;
  std::vector<Worker> workers_;   // running, oldest first
  std::vector<Worker> stopping_;  // asked to stop, not yet joined
  int next_index_ = 0;            // thread names, never reused
  std::atomic<uint64_t> idle_ns_{0};
  bool shut_down_ = false;
};

}  // namespace skiff::server
