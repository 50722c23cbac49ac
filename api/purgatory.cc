#include "api/purgatory.h"

#include <algorithm>

#include <boost/asio/post.hpp>

namespace skiff::api {

Purgatory::Purgatory() : work_(boost::asio::make_work_guard(io_)) {
  timer_thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "skiff-purgatory");
    io_.run();
  });
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
  // The timer lives on the timer thread only: armed and cancelled there.
  boost::asio::post(io_, [this, op, timeout] {
    if (op->completed()) return;
    op->timer_ = std::make_unique<boost::asio::steady_timer>(io_, timeout);
    op->timer_->async_wait([this, op](const boost::system::error_code& ec) {
      if (ec) return;
      op->force_complete();
      unwatch(op);
    });
  });
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
    if (op->try_complete() || op->completed()) {
      unwatch(op);
      boost::asio::post(io_, [op] {
        if (op->timer_) op->timer_->cancel();
      });
    }
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
  work_.reset();
  io_.stop();
  timer_thread_.join();
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
