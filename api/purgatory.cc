#include "api/purgatory.h"

#include <algorithm>

namespace skiff::api {

Purgatory::Purgatory() {
  timer_thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "skiff-purgatory");
    expire_loop();
  });
}

namespace {
constexpr std::chrono::steady_clock::duration kTick = std::chrono::milliseconds(5);
}  // namespace

void Purgatory::expire_loop() {
  std::unique_lock lock(deadlines_mu_);
  while (!stopping_) {
    if (deadlines_.empty()) {
      deadlines_cv_.wait(lock);
      continue;
    }
    // Deadlines are served on a 5 ms tick (as Kafka's timing wheel has a
    // tick): one wake-up expires every deadline that fell in it, instead of
    // one wake-up per waiting request.
    const auto next = deadlines_.top().at;
    const auto now = std::chrono::steady_clock::now();
    if (now < next) {
      deadlines_cv_.wait_until(lock, next + kTick - (next.time_since_epoch() % kTick));
      continue;
    }
    auto op = deadlines_.top().op.lock();
    deadlines_.pop();
    if (!op || op->completed()) continue;
    lock.unlock();  // completing answers a request: not under our lock
    op->force_complete();
    unwatch(op);
    lock.lock();
  }
}

Purgatory::~Purgatory() { shutdown(); }

namespace {

// Orders this thread's earlier stores (the event: a new log end) before its
// later loads (the watch count), and add()'s watch before its re-check, so an
// event and a new watch cannot both miss each other. TSan does not model
// fences, so there the event side uses a read-modify-write of the count
// instead (same answer, formally ordered through the count itself, but a
// shared write per event: not for production).
#if defined(__SANITIZE_THREAD__)
constexpr bool kUseFences = false;
#else
constexpr bool kUseFences = true;
#endif

}  // namespace

void Purgatory::add(std::shared_ptr<DelayedOperation> op, std::vector<std::string> keys,
                    std::chrono::milliseconds timeout) {
  if (closing_.load()) {
    op->force_complete();
    return;
  }
  op->keys_ = std::move(keys);
  for (const auto& k : op->keys_) {
    auto& sh = shard(k);
    std::lock_guard lock(sh.mu);
    sh.watchers[k].push_back(op);
    watches_.fetch_add(1, std::memory_order_seq_cst);
  }
  if constexpr (kUseFences) std::atomic_thread_fence(std::memory_order_seq_cst);
  // An event between the caller's check and the watch would be missed: look again.
  if (op->try_complete()) {
    unwatch(op);
    return;
  }
  const auto at = std::chrono::steady_clock::now() + timeout;
  bool earliest;
  {
    std::lock_guard lock(deadlines_mu_);
    earliest = deadlines_.empty() || at < deadlines_.top().at;
    deadlines_.push({at, op});
    if (deadlines_.size() >= 4096 && deadlines_.size() > 4 * watches_.load(std::memory_order_relaxed)) {
      compact_deadlines();
    }
  }
  if (earliest) deadlines_cv_.notify_one();
}

// Drops the deadlines of operations that completed early, so that a high
// rate of short-lived waits with long timeouts cannot pile up. Amortised:
// runs when most entries are dead. Caller holds deadlines_mu_.
void Purgatory::compact_deadlines() {
  std::vector<Deadline> live;
  while (!deadlines_.empty()) {
    auto d = deadlines_.top();
    deadlines_.pop();
    auto op = d.op.lock();
    if (op && !op->completed()) live.push_back(std::move(d));
  }
  deadlines_ = decltype(deadlines_)(std::greater<>{}, std::move(live));
}

bool Purgatory::has_watchers() const {
  if constexpr (!kUseFences) return watches_.fetch_add(0, std::memory_order_seq_cst) != 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return watches_.load(std::memory_order_relaxed) != 0;
}

void Purgatory::on_event(const std::string& key) {
  if (!has_watchers()) return;
  std::vector<std::shared_ptr<DelayedOperation>> ops;
  {
    auto& sh = shard(key);
    std::lock_guard lock(sh.mu);
    auto it = sh.watchers.find(key);
    if (it == sh.watchers.end()) return;
    ops = it->second;
  }
  for (auto& op : ops) {
    if (op->try_complete() || op->completed()) unwatch(op);
  }
}

void Purgatory::unwatch(const std::shared_ptr<DelayedOperation>& op) {
  for (const auto& k : op->keys_) {
    auto& sh = shard(k);
    std::lock_guard lock(sh.mu);
    auto it = sh.watchers.find(k);
    if (it == sh.watchers.end()) continue;
    auto& v = it->second;
    auto gone = std::remove(v.begin(), v.end(), op);
    watches_.fetch_sub(static_cast<size_t>(v.end() - gone), std::memory_order_relaxed);
    v.erase(gone, v.end());
    if (v.empty()) sh.watchers.erase(it);
  }
}

void Purgatory::complete_all() {
  closing_ = true;
  std::vector<std::shared_ptr<DelayedOperation>> all;
  for (auto& sh : shards_) {
    std::lock_guard lock(sh.mu);
    for (auto& [k, ops] : sh.watchers) {
      all.insert(all.end(), ops.begin(), ops.end());
      watches_.fetch_sub(ops.size(), std::memory_order_relaxed);
    }
    sh.watchers.clear();
  }
  for (auto& op : all) op->force_complete();
}

void Purgatory::shutdown() {
  if (!timer_thread_.joinable()) return;
  complete_all();
  {
    std::lock_guard lock(deadlines_mu_);
    stopping_ = true;
  }
  deadlines_cv_.notify_one();
  timer_thread_.join();
  std::lock_guard lock(deadlines_mu_);
  deadlines_ = {};
}

size_t Purgatory::watched() const {
  size_t n = 0;
  for (auto& sh : shards_) {
    std::lock_guard lock(sh.mu);
    for (auto& [k, ops] : sh.watchers) n += ops.size();
  }
  return n;
}

}  // namespace skiff::api
