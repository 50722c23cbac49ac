#include "network/socket_server.h"

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
  for (int i = 0; i < config_.num_processors; ++i) {
    processors_.push_back(std::make_unique<Processor>(i, config_.processor, channel_, memory_pool_));
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
  for (auto& p : processors_) p->begin_drain();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (in_flight() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Let the Processors finish writing what was just handed to them.
  for (auto& p : processors_) {
    while (p->connection_count() > 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void SocketServer::shutdown() {
  stop_accepting();
  for (auto& p : processors_) p->stop();
  processors_.clear();
  acceptor_.reset();
}

size_t SocketServer::in_flight() const {
  size_t n = 0;
  for (auto& p : processors_) n += p->in_flight();
  return n;
}

size_t SocketServer::connection_count() const {
  size_t n = 0;
  for (auto& p : processors_) n += p->connection_count();
  return n;
}

}  // namespace skiff::network
