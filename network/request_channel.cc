#include "network/request_channel.h"

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

std::optional<Request> RequestChannel::receive_request(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (!not_empty_.wait_for(lock, timeout, [&] { return !queue_.empty() || closed_; })) return std::nullopt;
  if (queue_.empty()) return std::nullopt;
  Request r = std::move(queue_.front());
  queue_.pop_front();
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
  std::lock_guard lock(mu_);
  if (static_cast<size_t>(processor_id) >= routes_.size()) routes_.resize(processor_id + 1);
  routes_[processor_id] = std::move(route);
}

void RequestChannel::send_response(Response response) {
  // Routes are fixed before any request flows, so reading them needs no lock.
  auto id = response.context.processor_id;
  if (id >= 0 && static_cast<size_t>(id) < routes_.size() && routes_[id]) routes_[id](std::move(response));
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
