// TimerQueue: the group coordinator's timers (rebalance timeouts, session
// expiry, the initial rebalance delay, offset retention). One thread runs
// callbacks in deadline order; a callback re-checks its condition under its
// group's lock, so timers are never cancelled: a stale timer finds nothing to
// do (a newer deadline or a changed epoch) and returns.
//
// Threads: schedule() from any thread; callbacks run on the "skiff-groups"
// thread and must not block for long. stop() joins it; callbacks still queued
// are dropped.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace skiff::coordinator {

class TimerQueue {
 public:
  using Clock = std::chrono::steady_clock;

  TimerQueue();
  ~TimerQueue();
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  void schedule(Clock::time_point when, std::function<void()> fn);
  void schedule_after(std::chrono::milliseconds delay, std::function<void()> fn) {
    schedule(Clock::now() + delay, std::move(fn));
  }
  void stop();
  size_t pending() const;

 private:
  void run();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<Clock::time_point, std::function<void()>> timers_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace skiff::coordinator
