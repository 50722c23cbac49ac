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

void Purgatory::add(std::shared_ptr<DelayedOperation> op, std::vector<std::string> keys,
                    std::chrono::milliseconds timeout) {
  if (closing_.load()) {
    op->force_complete();
    return;
  }
  op->keys_ = std::move(keys);
  {
    std::lock_guard lock(mu_);
    for (const auto& k : op->keys_) watchers_[k].push_back(op);
  }
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

void Purgatory::on_event(const std::string& key) {
  std::vector<std::shared_ptr<DelayedOperation>> ops;
  {
    std::lock_guard lock(mu_);
    auto it = watchers_.find(key);
    if (it == watchers_.end()) return;
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
  std::lock_guard lock(mu_);
  for (const auto& k : op->keys_) {
    auto it = watchers_.find(k);
    if (it == watchers_.end()) continue;
    auto& v = it->second;
    v.erase(std::remove(v.begin(), v.end(), op), v.end());
    if (v.empty()) watchers_.erase(it);
  }
}

void Purgatory::complete_all() {
  closing_ = true;
  std::vector<std::shared_ptr<DelayedOperation>> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [k, ops] : watchers_) all.insert(all.end(), ops.begin(), ops.end());
    watchers_.clear();
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
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (auto& [k, ops] : watchers_) n += ops.size();
  return n;
}

}  // namespace skiff::api
