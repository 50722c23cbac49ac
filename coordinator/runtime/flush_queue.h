// FlushQueue: the group commit of a state topic's writers that must not
// block (a coordinator's strand). submit() queues FlushPoints with a
// completion and returns; one flusher thread takes every queued request at
// once, makes their union durable with one flush per partition, then runs
// their completions in submission order. Under load, N concurrent writes
// cost one fdatasync instead of N.
//
// FlushPoints: per partition of the topic, the end offset (exclusive) that
// must be durable.
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

namespace skiff::coordinator {

struct FlushPoints {
  std::map<int32_t, int64_t> ends;
  void merge(const FlushPoints& o) {
    for (auto [p, e] : o.ends) ends[p] = std::max(ends[p], e);
  }
};

class FlushQueue {
 public:
  using Flush = std::function<bool(const FlushPoints&)>;  // true when durable
  using Done = std::function<void(bool)>;

  explicit FlushQueue(Flush flush);
  ~FlushQueue() { stop(); }
  FlushQueue(const FlushQueue&) = delete;
  FlushQueue& operator=(const FlushQueue&) = delete;

  void submit(FlushPoints points, Done done);
  // Completes everything submitted, then joins the thread. Idempotent.
  void stop();

 private:
  struct Request {
    FlushPoints points;
    Done done;
  };
  void run();

  Flush flush_;
  std::mutex mu_;  // queue_, stopping_, starting thread_
  std::condition_variable cv_;
  std::deque<Request> queue_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first submit()
};

}  // namespace skiff::coordinator
