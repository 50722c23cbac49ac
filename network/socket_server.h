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
// num.network.threads is dynamic (resize_processors), with Kafka's
// SocketServer.resizeThreadPool semantics: new Processors start and join the
// Acceptor's round robin; removed ones (the newest first) leave it, then
// drain: connections with nothing in flight close at once (clients
// reconnect to another Processor), the others once their response is
// written; after `drain_timeout` what is left is closed. The drain runs on a
// thread of its own (joined at shutdown), since the caller may be answering
// a request that arrived through a Processor being removed. No request read is
// left without its response. A removed Processor object is kept (stopped)
// until shutdown, so a late response routed to it is dropped, never sent to
// freed memory (request_channel.h).
//
// Threads: startup/shutdown are called from one controlling thread (the
// server's); resize_processors from any thread (a handler thread applying
// AlterConfigs), serialised by mu_, which also guards the Processor lists
// that in_flight() and connection_count() read.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
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

  // Runs `count` Processors from now on; false (nothing changed) if the ids
  // are used up (RequestChannel::kMaxProcessorIds over the broker's life).
  bool resize_processors(int count, std::chrono::milliseconds drain_timeout);
  int processor_count() const;

  size_t in_flight() const;
  size_t connection_count() const;
  // Each running Processor's id and the CPU seconds its thread has used.
  std::vector<std::pair<int, double>> processor_cpu_seconds() const;
  const std::shared_ptr<ConnectionQuotas>& quotas() const { return quotas_; }
  const std::shared_ptr<MemoryPool>& memory_pool() const { return memory_pool_; }

 private:
  SocketServerConfig config_;
  RequestChannel& channel_;
  std::shared_ptr<ConnectionQuotas> quotas_;
  std::shared_ptr<MemoryPool> memory_pool_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Processor>> processors_;  // the running ones, oldest first
  std::vector<std::unique_ptr<Processor>> retired_;     // removed: draining, then stopped
  std::vector<std::thread> drainers_;                   // one per shrink; joined at shutdown
  int next_id_ = 0;
  static void drain_and_stop(const std::vector<Processor*>& leaving, std::chrono::milliseconds timeout);
  std::unique_ptr<Acceptor> acceptor_;
  std::vector<BoundListener> bound_;
};

}  // namespace skiff::network
