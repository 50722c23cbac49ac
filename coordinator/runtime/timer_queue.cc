#include "coordinator/runtime/timer_queue.h"

#include <pthread.h>

#include "coordinator/runtime/coordinator_log.h"

namespace skiff::coordinator {

TimerQueue::TimerQueue() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "skiff-groups");
    run();
  });
}

TimerQueue::~TimerQueue() { stop(); }

void TimerQueue::schedule(Clock::time_point when, std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    timers_.emplace(when, std::move(fn));
  }
  cv_.notify_one();
}

void TimerQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    timers_.clear();
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

size_t TimerQueue::pending() const {
  std::lock_guard lock(mu_);
  return timers_.size();
}

void TimerQueue::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (timers_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = timers_.begin();
    const auto deadline = first->first;  // a copy: the node may go while we wait
    if (deadline > Clock::now()) {
      cv_.wait_until(lock, deadline);
      continue;
    }
    auto fn = std::move(first->second);
    timers_.erase(first);
    lock.unlock();
    try {
      fn();
    } catch (const std::exception& e) {
      coordinator::log().error("group timer failed: {}", e.what());
    }
    lock.lock();
  }
}

}  // namespace skiff::coordinator
