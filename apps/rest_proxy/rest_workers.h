// RestWorkers: the REST proxy's bounded worker pool. Its routes run here,
// never on the HTTP thread, so a route may block (a Kafka request through
// the in-process client, a consumer's long poll, a streamed produce waiting
// for the client's next record). At most `queue_limit` tasks wait; submit()
// beyond that refuses (the app answers 503), so a flood cannot grow memory.
// Threads: submit() from any thread; stop() (or the destructor) from the
// owner: runs no queued task, joins the workers (a running task finishes).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace skiff::restproxy {

class RestWorkers {
 public:
  RestWorkers(int threads, size_t queue_limit, std::string name);
  ~RestWorkers();
  RestWorkers(const RestWorkers&) = delete;
  RestWorkers& operator=(const RestWorkers&) = delete;

  // false: the queue is full, or the pool stopped (`task` is dropped).
  bool submit(std::function<void()> task);
  void stop();  // idempotent

 private:
  void run();

  const size_t queue_limit_;
  const std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace skiff::restproxy
