#include "network/request_channel.h"

#include <stdexcept>

namespace skiff::network {

bool RequestChannel::try_send_request(Request& request) {
  {
    std::lock_guard lock(mu_);
    if (closed_ || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(request));
  }
  not_empty_.notify_one();
  return true;
}

namespace {
// The request a handler thread keeps to handle next (hand_on), and the
// channel it serves (set by receive_request: only handler threads call it).
thread_local const RequestChannel* t_channel = nullptr;
thread_local std::optional<Request> t_kept;
}  // namespace

void RequestChannel::push_admitted(std::unique_lock<std::mutex> lock, Request request) {
  queue_.push_back(std::move(request));
  lock.unlock();
  not_empty_.notify_one();
}

void RequestChannel::hand_on(Request request) {
  handed_on_.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock lock(mu_);
  if (queue_.empty() && t_channel == this && !t_kept) {
    t_kept.emplace(std::move(request));
    return;
  }
  push_admitted(std::move(lock), std::move(request));
}

void RequestChannel::release_kept() {
  t_channel = nullptr;
  if (!t_kept) return;
  Request kept = std::move(*t_kept);
  t_kept.reset();
  push_admitted(std::unique_lock(mu_), std::move(kept));
}

std::optional<Request> RequestChannel::receive_request(std::chrono::milliseconds timeout) {
  t_channel = this;
  if (t_kept) {
    std::optional<Request> r = std::move(t_kept);
    t_kept.reset();
    r->dequeued_at = std::chrono::steady_clock::now();
    return r;
  }
  std::unique_lock lock(mu_);
  if (!not_empty_.wait_for(lock, timeout, [&] { return !queue_.empty() || closed_; })) return std::nullopt;
  if (queue_.empty()) return std::nullopt;
  Request r = std::move(queue_.front());
  queue_.pop_front();
  lock.unlock();
  r.dequeued_at = std::chrono::steady_clock::now();
  return r;
}

void RequestChannel::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  not_empty_.notify_all();
}

void RequestChannel::register_processor(int processor_id, ResponseRoute route) {
  if (processor_id < 0 || processor_id >= kMaxProcessorIds) throw std::out_of_range("processor id out of range");
  auto owned = std::make_unique<ResponseRoute>(std::move(route));
  std::lock_guard lock(mu_);
  routes_[processor_id].store(owned.get(), std::memory_order_release);
  owned_routes_.push_back(std::move(owned));
}

void RequestChannel::send_response(Response response) {
  auto id = response.context.processor_id;
  if (id < 0 || id >= kMaxProcessorIds) return;
  if (const ResponseRoute* route = routes_[id].load(std::memory_order_acquire)) (*route)(std::move(response));
}

bool RequestChannel::closed() const {
  std::lock_guard lock(mu_);
  return closed_ && queue_.empty();
}

size_t RequestChannel::size() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

}  // namespace skiff::network
