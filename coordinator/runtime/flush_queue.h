// FlushQueue: the group commit of writers that must not block (a
// coordinator's strand, the transaction marker writer). submit() queues
// flush points with a completion and returns; one flusher thread takes every
// queued request at once, makes their union durable with one flush call,
// then runs their completions in submission order. Under load, N concurrent
// writes cost one fdatasync per file instead of N.
//
// Points: what must be durable, with merge(const Points&) forming a union.
// FlushPoints, a state topic's: per partition, the end offset (exclusive)
// that must be durable.
//
// Threads: submit() and stop() from any thread. Completions run on the
// flusher thread (after stop(): on the submitter's), never under the
// queue's lock; they must not block.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace skiff::coordinator {

struct FlushPoints {
  std::map<int32_t, int64_t> ends;
  void merge(const FlushPoints& o) {
    for (auto [p, e] : o.ends) ends[p] = std::max(ends[p], e);
  }
};

template <typename Points>
class BasicFlushQueue {
 public:
  using Flush = std::function<bool(const Points&)>;  // true when durable
  using Done = std::function<void(bool)>;

  explicit BasicFlushQueue(Flush flush) : flush_(std::move(flush)) {}
  ~BasicFlushQueue() { stop(); }
  BasicFlushQueue(const BasicFlushQueue&) = delete;
  BasicFlushQueue& operator=(const BasicFlushQueue&) = delete;

  void submit(Points points, Done done) {
    {
      std::lock_guard lock(mu_);
      if (!stopping_) {
        if (!thread_.joinable())
          thread_ = std::thread([this] { run(); });  // first use: a queue never used async has none
        queue_.push_back({std::move(points), std::move(done)});
        cv_.notify_one();
        return;
      }
    }
    done(flush_(points));  // stopped: the caller's thread does it
  }

  // Completes everything submitted, then joins the thread. Idempotent.
  void stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      cv_.notify_one();
    }
    if (thread_.joinable()) thread_.join();  // only stop() joins; submit() no longer starts it once stopping_
  }

 private:
  struct Request {
    Points points;
    Done done;
  };

  void run() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, drained
      std::deque<Request> batch;
      batch.swap(queue_);
      lock.unlock();
      Points all;
      for (const auto& r : batch) all.merge(r.points);
      const bool ok = flush_(all);
      for (auto& r : batch) r.done(ok);
      lock.lock();
    }
  }

  Flush flush_;
  std::mutex mu_;  // queue_, stopping_, starting thread_
  std::condition_variable cv_;
  std::deque<Request> queue_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first submit()
};

using FlushQueue = BasicFlushQueue<FlushPoints>;

}  // namespace skiff::coordinator
