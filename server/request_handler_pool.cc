#include "server/request_handler_pool.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>

#include "common/log_escape.h"

namespace skiff::server {

RequestHandlerPool::RequestHandlerPool(int threads, network::RequestChannel& channel, network::RequestHandler& handler)
    : channel_(channel), handler_(handler) {
  std::lock_guard lk(mu_);
  for (int i = 0; i < threads; ++i) start_worker();
}

void RequestHandlerPool::start_worker() {
  Worker w{{}, std::make_shared<std::atomic<bool>>(false), std::make_shared<std::atomic<bool>>(false)};
  w.thread = std::thread([this, i = next_index_++, stop = w.stop, done = w.done] {
    run(i, stop);
    done->store(true, std::memory_order_release);
  });
  workers_.push_back(std::move(w));
}

void RequestHandlerPool::resize(int threads) {
  std::lock_guard lk(mu_);
  if (shut_down_) return;
  for (auto it = stopping_.begin(); it != stopping_.end();) {  // the ones that finished since
    if (it->done->load(std::memory_order_acquire) && it->thread.get_id() != std::this_thread::get_id()) {
      it->thread.join();
      it = stopping_.erase(it);
    } else {
      ++it;
    }
  }
  while (static_cast<int>(workers_.size()) < threads) start_worker();
  while (static_cast<int>(workers_.size()) > std::max(1, threads)) {
    workers_.back().stop->store(true, std::memory_order_release);
    stopping_.push_back(std::move(workers_.back()));
    workers_.pop_back();
  }
}

int RequestHandlerPool::size() const {
  std::lock_guard lk(mu_);
  return static_cast<int>(workers_.size());
}

RequestHandlerPool::~RequestHandlerPool() { shutdown(); }

void RequestHandlerPool::run(int index, const std::shared_ptr<std::atomic<bool>>& stop) {
  pthread_setname_np(pthread_self(), ("skiff-io-" + std::to_string(index)).c_str());
  while (!stop->load(std::memory_order_acquire)) {
    const auto waiting = std::chrono::steady_clock::now();
    auto request = channel_.receive_request(std::chrono::milliseconds(500));
    const auto idle = (request ? request->dequeued_at : std::chrono::steady_clock::now()) - waiting;
    idle_ns_.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(idle).count()),
                       std::memory_order_relaxed);
    if (!request) {
      if (channel_.closed()) break;
      continue;
    }
    // Only the route back, in case the handler throws (not the whole context).
    network::RequestContext context;
    context.processor_id = request->context.processor_id;
    context.connection_id = request->context.connection_id;
    try {
      handler_.handle(std::move(*request), channel_);
    } catch (const std::exception& e) {
      // The handler is meant to answer its own errors; if it could not, the
      // connection is closed rather than left muted forever.
      spdlog::error("request handler failed: {}", escaped(e.what()));
      channel_.send_response(network::Response::close(context, std::string("handler error: ") + e.what()));
    }
  }
  channel_.release_kept();
}

void RequestHandlerPool::shutdown() {
  channel_.close();
  std::vector<Worker> all;
  {
    // Joined without mu_: a worker may be inside resize() right now.
    std::lock_guard lk(mu_);
    shut_down_ = true;
    for (auto* list : {&workers_, &stopping_})
      for (auto& w : *list) all.push_back(std::move(w));
    workers_.clear();
    stopping_.clear();
  }
  for (auto& w : all)
    if (w.thread.joinable()) w.thread.join();
}

}  // namespace skiff::server
