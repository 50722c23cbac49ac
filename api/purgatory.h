// Purgatory: requests that wait for something without holding a handler
// thread (Kafka's DelayedOperationPurgatory). A DelayedOperation is watched
// under one or more keys (e.g. "topic-partition"); an event on a key (an
// append) asks its watchers to try to complete; a timer completes it at its
// deadline whatever the state. Completion happens exactly once.
//
// Threads: add() and on_event() from handler threads; expiry on the
// purgatory's own timer thread. Completion runs on whichever thread wins.
// The watch lists are sharded by key, each shard with its own lock, and an
// event with nothing watched anywhere takes no lock at all (the produce path
// calls on_event on every append).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace skiff::api {

class DelayedOperation : public std::enable_shared_from_this<DelayedOperation> {
 public:
  virtual ~DelayedOperation() = default;

  // Completes now if the operation's condition holds; true if it did.
  bool try_complete() {
    if (completed_.load(std::memory_order_acquire) || !ready()) return false;
    return force_complete();
  }
  // Completes now whatever the condition; false if it already was.
  bool force_complete() {
    if (completed_.exchange(true, std::memory_order_acq_rel)) return false;
    complete();
    return true;
  }
  bool completed() const { return completed_.load(std::memory_order_acquire); }

 protected:
  virtual bool ready() = 0;     // the condition (may be called on any thread)
  virtual void complete() = 0;  // answer the request (called exactly once)

 private:
  friend class Purgatory;
  std::atomic<bool> completed_{false};
  std::vector<std::string> keys_;
};

class Purgatory {
 public:
  Purgatory();
  ~Purgatory();

  // Watches `op` under `keys` until it completes or `timeout` passes. If it
  // can already complete (or the purgatory is shutting down) it does so now.
  void add(std::shared_ptr<DelayedOperation> op, std::vector<std::string> keys, std::chrono::milliseconds timeout);
  // Something happened on `key`: its watchers try to complete.
  void on_event(const std::string& key);
  // False when no operation waits on any key: on_event would do nothing, so
  // a caller may skip building the key. Call it after publishing the event
  // (e.g. the new log end): a concurrent add() then sees the event itself.
  bool has_watchers() const;
  // Completes every waiting operation now and refuses to wait from now on.
  void complete_all();
  void shutdown();

  size_t watched() const;

 private:
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::string, std::vector<std::shared_ptr<DelayedOperation>>> watchers;
  };
  static constexpr size_t kShards = 64;
  Shard& shard(const std::string& key) { return shards_[std::hash<std::string>{}(key) % kShards]; }
  void unwatch(const std::shared_ptr<DelayedOperation>& op);
  void expire_loop();
  void compact_deadlines();

  // Deadlines in a min-heap. An operation completed early stays in it until
  // its deadline (held weakly, so its state is freed at completion): nothing
  // is cancelled, and an add() wakes the timer thread only when its deadline
  // is the new earliest, which with one fetch.max.wait.ms for all fetches is
  // almost never. Per-operation timers cost two thread wake-ups per fetch.
  struct Deadline {
    std::chrono::steady_clock::time_point at;
    std::weak_ptr<DelayedOperation> op;
    bool operator>(const Deadline& o) const { return at > o.at; }
  };
  std::mutex deadlines_mu_;
  std::condition_variable deadlines_cv_;
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<>> deadlines_;
  bool stopping_ = false;  // guarded by deadlines_mu_
  std::thread timer_thread_;
  std::array<Shard, kShards> shards_;
  mutable std::atomic<size_t> watches_{0};  // (operation, key) pairs watched, all shards
  std::atomic<bool> closing_{false};
};

// The watch key of a partition.
inline std::string partition_key(const std::string& topic, int32_t partition) {
  return topic + '\0' + std::to_string(partition);
}

// Wakes the fetches parked on topic-partition, if any (an append or a marker
// moved its end or LSO, or the partition is gone); no key is built when
// nobody waits. `p` may be null.
inline void wake_partition(Purgatory* p, const std::string& topic, int32_t partition) {
  if (p && p->has_watchers()) p->on_event(partition_key(topic, partition));
}

// wake_partition on `p` as a callback, for the coordinators that append
// markers (txn::MarkerAppended) without knowing the purgatory.
inline std::function<void(const std::string&, int32_t)> fetch_waker(Purgatory* p) {
  return [p](const std::string& topic, int32_t partition) { wake_partition(p, topic, partition); };
}

}  // namespace skiff::api
