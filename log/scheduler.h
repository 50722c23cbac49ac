// Scheduler: one background thread running periodic tasks (retention,
// time-based flushes, checkpoints). Owned by LogManager. start()/stop() from
// the owner's thread; tasks run on the scheduler thread, one at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace skiff::storage {

class Scheduler {
 public:
  ~Scheduler() { stop(); }
  // Before start() only.
  void add_task(std::string name, int64_t interval_ms, std::function<void()> fn);
  void start();
  void stop();  // waits for a running task to finish
  bool running() const { return thread_.joinable(); }

 private:
  struct Task {
    std::string name;
    std::chrono::milliseconds interval;
    std::function<void()> fn;
    std::chrono::steady_clock::time_point next;
  };
  void loop();

  std::vector<Task> tasks_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace skiff::storage
