// SocketServer: the network layer as a whole. It owns one Acceptor thread
// and N Processor threads; complete requests go onto the RequestChannel and
// responses come back through it.
//
//   clients ──► Acceptor ──round-robin──► Processor[0..N) ──► RequestChannel
//                                            ▲                     │
//                                            └──── responses ◄── handler threads (M)
//
// It also owns what the Processors share: the ConnectionQuotas and the
// MemoryPool that bounds request bytes in flight (queued.max.request.bytes).
//
// startup/shutdown are called from one controlling thread (the server's).
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "network/acceptor.h"
#include "network/connection_quotas.h"
#include "network/memory_pool.h"
#include "network/processor.h"
#include "network/request_channel.h"

namespace skiff::network {

struct SocketServerConfig {
  std::vector<ListenerEndpoint> listeners;
  int num_processors = 3;
  ProcessorConfig processor;
  // queued.max.request.bytes: request bytes in flight (read, not yet
  // answered) across all Processors before they stop reading; <= 0: unbounded.
  int64_t queued_max_request_bytes = -1;
  int32_t max_connections = INT32_MAX;
  int32_t max_connections_per_ip = INT32_MAX;
  std::map<std::string, int32_t> max_connections_per_ip_overrides;
};

class SocketServer {
 public:
  SocketServer(SocketServerConfig config, RequestChannel& channel);
  ~SocketServer();

  // Binds every listener (throws BindError) and starts all threads.
  void startup();
  const std::vector<BoundListener>& bound_listeners() const { return bound_; }

  // Graceful shutdown, in order: stop accepting; stop reading new requests;
  // wait (bounded) until every queued request has its response written;
  // then close everything and join the threads.
  void stop_accepting();
  bool drain(std::chrono::milliseconds timeout);
  void shutdown();

  size_t in_flight() const;
  size_t connection_count() const;
  const std::shared_ptr<ConnectionQuotas>& quotas() const { return quotas_; }
  const std::shared_ptr<MemoryPool>& memory_pool() const { return memory_pool_; }

 private:
  SocketServerConfig config_;
  RequestChannel& channel_;
  std::shared_ptr<ConnectionQuotas> quotas_;
  std::shared_ptr<MemoryPool> memory_pool_;
  std::vector<std::unique_ptr<Processor>> processors_;
  std::unique_ptr<Acceptor> acceptor_;
  std::vector<BoundListener> bound_;
};

}  // namespace skiff::network
