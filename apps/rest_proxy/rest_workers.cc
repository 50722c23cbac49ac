#include "apps/rest_proxy/rest_workers.h"

#include <pthread.h>

#include <exception>

namespace skiff::restproxy {

RestWorkers::RestWorkers(int threads, size_t queue_limit, std::string name)
    : queue_limit_(queue_limit), name_(std::move(name)) {
  for (int i = 0; i < std::max(threads, 1); ++i) threads_.emplace_back([this] { run(); });
}

RestWorkers::~RestWorkers() { stop(); }

bool RestWorkers::submit(std::function<void()> task) {
  std::lock_guard lock(mu_);
  if (stopping_ || queue_.size() >= queue_limit_) return false;
  queue_.push_back(std::move(task));
  cv_.notify_one();
  return true;
}

void RestWorkers::stop() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(queue_);
    cv_.notify_all();
  }
  dropped.clear();  // outside the lock: a task's captures may do work when destroyed
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void RestWorkers::run() {
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();  // tasks catch their own errors (the app's dispatcher does)
  }
}

}  // namespace skiff::restproxy
