#include "network/socket_server.h"

#include <algorithm>
#include <thread>

namespace skiff::network {

SocketServer::SocketServer(SocketServerConfig config, RequestChannel& channel)
    : config_(std::move(config)), channel_(channel) {
  quotas_ = ConnectionQuotas::create(config_.max_connections, config_.max_connections_per_ip,
                                     config_.max_connections_per_ip_overrides);
  memory_pool_ = MemoryPool::create(config_.queued_max_request_bytes);
}

SocketServer::~SocketServer() { shutdown(); }

void SocketServer::startup() {
  std::vector<Processor*> raw;
  std::lock_guard lk(mu_);
  for (int i = 0; i < config_.num_processors; ++i) {
    processors_.push_back(std::make_unique<Processor>(next_id_++, config_.processor, channel_, memory_pool_));
    raw.push_back(processors_.back().get());
  }
  acceptor_ = std::make_unique<Acceptor>(raw, quotas_);
  for (const auto& l : config_.listeners) bound_.push_back(acceptor_->bind(l));
  for (auto& p : processors_) p->start();
  acceptor_->start();
}

void SocketServer::stop_accepting() {
  if (acceptor_) acceptor_->stop();
}

bool SocketServer::drain(std::chrono::milliseconds timeout) {
  {
    std::lock_guard lk(mu_);
    for (auto& p : processors_) p->begin_drain();
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (in_flight() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Let the Processors finish writing what was just handed to them.
  while (connection_count() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return true;
}

void SocketServer::shutdown() {
  stop_accepting();
  std::vector<std::thread> drainers;
  {
    std::lock_guard lk(mu_);
    drainers.swap(drainers_);
  }
  for (auto& t : drainers) t.join();  // before the Processors they drain go
  std::lock_guard lk(mu_);
  for (auto& p : processors_) p->stop();
  processors_.clear();
  retired_.clear();
  acceptor_.reset();
}

bool SocketServer::resize_processors(int count, std::chrono::milliseconds drain_timeout) {
  std::lock_guard lk(mu_);
  if (!acceptor_ || count < 1) return false;
  const int now = static_cast<int>(processors_.size());
  if (next_id_ + std::max(0, count - now) > RequestChannel::kMaxProcessorIds) return false;
  for (int i = now; i < count; ++i) {
    processors_.push_back(std::make_unique<Processor>(next_id_++, config_.processor, channel_, memory_pool_));
    processors_.back()->start();
  }
  std::vector<std::unique_ptr<Processor>> leaving;
  while (static_cast<int>(processors_.size()) > count) {
    leaving.push_back(std::move(processors_.back()));
    processors_.pop_back();
  }
  std::vector<Processor*> raw;
  for (auto& p : processors_) raw.push_back(p.get());
  acceptor_->set_processors(raw);  // from here nothing new reaches `leaving`
  // Drained on a thread of their own: the caller may be answering a request
  // that came through one of them.
  std::vector<Processor*> draining;
  for (auto& p : leaving) {
    draining.push_back(p.get());
    retired_.push_back(std::move(p));
  }
  if (!draining.empty()) drainers_.emplace_back([draining, drain_timeout] { drain_and_stop(draining, drain_timeout); });
  return true;
}

void SocketServer::drain_and_stop(const std::vector<Processor*>& leaving, std::chrono::milliseconds timeout) {
  for (auto* p : leaving) p->begin_drain();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto* p : leaving) {
    while ((p->connection_count() > 0 || p->in_flight() > 0) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    p->stop();
  }
}

int SocketServer::processor_count() const {
  std::lock_guard lk(mu_);
  return static_cast<int>(processors_.size());
}

size_t SocketServer::in_flight() const {
  std::lock_guard lk(mu_);
  size_t n = 0;
  for (auto& p : processors_) n += p->in_flight();
  return n;
}

std::vector<std::pair<int, double>> SocketServer::processor_cpu_seconds() const {
  std::lock_guard lk(mu_);
  std::vector<std::pair<int, double>> out;
  for (const auto& p : processors_) out.emplace_back(p->id(), p->cpu_seconds());
  return out;
}

size_t SocketServer::connection_count() const {
  std::lock_guard lk(mu_);
  size_t n = 0;
  for (auto& p : processors_) n += p->connection_count();
  return n;
}

}  // namespace skiff::network
