#include "log/scheduler.h"

#include "log/storage_log.h"

namespace skiff::storage {

void Scheduler::add_task(std::string name, int64_t interval_ms, std::function<void()> fn) {
  tasks_.push_back({std::move(name), std::chrono::milliseconds(std::max<int64_t>(interval_ms, 1)), std::move(fn), {}});
}

void Scheduler::start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard lk(mu_);
    stopping_ = false;
  }
  auto now = std::chrono::steady_clock::now();
  for (auto& t : tasks_) t.next = now + t.interval;
  thread_ = std::thread([this] { loop(); });
}

void Scheduler::stop() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Scheduler::loop() {
  std::unique_lock lk(mu_);
  while (!stopping_) {
    auto next = std::chrono::steady_clock::time_point::max();
    for (const auto& t : tasks_) next = std::min(next, t.next);
    if (cv_.wait_until(lk, next, [this] { return stopping_; })) break;
    auto now = std::chrono::steady_clock::now();
    for (auto& t : tasks_) {
      if (t.next > now) continue;
      t.next = now + t.interval;
      lk.unlock();
      try {
        t.fn();
      } catch (const std::exception& e) {
        storage_log().error("scheduler task {} failed: {}", t.name, e.what());
      }
      lk.lock();
      if (stopping_) break;
    }
  }
}

}  // namespace skiff::storage
