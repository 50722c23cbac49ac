#include "coordinator/runtime/flush_queue.h"

#include <utility>
#include <vector>

namespace skiff::coordinator {

FlushQueue::FlushQueue(Flush flush) : flush_(std::move(flush)) {}

void FlushQueue::submit(FlushPoints points, Done done) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      if (!thread_.joinable())
        thread_ = std::thread([this] { run(); });  // first use: a topic never flushed async has none
      queue_.push_back({std::move(points), std::move(done)});
      cv_.notify_one();
      return;
    }
  }
  done(flush_(points));  // stopped: the caller's thread does it
}

void FlushQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();  // only stop() joins; submit() no longer starts it once stopping_
}

void FlushQueue::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, drained
    std::deque<Request> batch;
    batch.swap(queue_);
    lock.unlock();
    FlushPoints all;
    for (const auto& r : batch) all.merge(r.points);
    const bool ok = flush_(all);
    for (auto& r : batch) r.done(ok);
    lock.lock();
  }
}

}  // namespace skiff::coordinator
