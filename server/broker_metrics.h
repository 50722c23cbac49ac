// BrokerMetrics: the broker's metrics registry (common/metrics.h) and the
// collectors that read state when /metrics is scraped, named as Kafka's JMX
// exporter names them where Kafka has the metric (docs/operations/metrics.md):
//   process_*                 resident and virtual memory, open and maximum
//                             descriptors, threads, CPU seconds, start time
//   skiff_build_info          {version} 1
//   kafka_log_log_size        {topic,partition} bytes on disk
//   kafka_log_log_logstartoffset, kafka_log_log_logendoffset  {topic,partition}
// The per-partition series can be switched off (many partitions);
// kafka_log_log_size then sums per topic. With request metrics on it also
// owns RequestMetrics (per API, server/request_metrics.h) and TopicMetrics
// (per topic, api/topic_metrics.h), and collect_network reads the queue,
// the handler threads and the connections per listener.
// Thread rules: scrape() from any thread (the HTTP thread); it reads logs
// through LogManager's thread-safe accessors.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "api/client_software.h"
#include "api/topic_metrics.h"
#include "common/metrics.h"
#include "log/log_manager.h"
#include "network/connection_quotas.h"
#include "network/request_channel.h"
#include "network/socket_server.h"
#include "server/request_handler_pool.h"
#include "server/request_metrics.h"

namespace skiff::server {

class BrokerMetrics {
 public:
  BrokerMetrics(const storage::LogManager& logs, bool per_partition_series, bool request_metrics);

  metrics::Registry& registry() { return registry_; }
  std::string scrape() const { return registry_.scrape(); }
  // Null when request metrics are off (skiff.metrics.requests.enable=false).
  RequestMetrics* requests() { return requests_.get(); }
  api::TopicMetrics* topics() { return topics_.get(); }
  // Which client software the open connections run: made once, with the
  // connection quotas that know which connections are open.
  api::ClientSoftware& client_software(const std::shared_ptr<const network::ConnectionQuotas>& quotas);

 private:
  metrics::Registry registry_;
  std::unique_ptr<api::ClientSoftware> software_;
  std::unique_ptr<RequestMetrics> requests_;
  std::unique_ptr<api::TopicMetrics> topics_;
};

// What /metrics reads (from the HTTP thread): the broker's metrics once
// its logs are loaded, withdrawn before they shut down; a scrape and the
// withdrawal exclude each other, so no scrape reads a closing log.
class PublishedMetrics {
 public:
  void publish(const BrokerMetrics* metrics) {
    std::lock_guard lock(mu_);
    metrics_ = metrics;
  }
  void withdraw() { publish(nullptr); }
  // The exposition text; nullopt while nothing is published.
  std::optional<std::string> scrape() const {
    std::lock_guard lock(mu_);
    if (!metrics_) return std::nullopt;
    return metrics_->scrape();
  }

 private:
  mutable std::mutex mu_;
  const BrokerMetrics* metrics_ = nullptr;
};

// The process_* families (Prometheus's process collector), from /proc/self.
void collect_process(metrics::Exposition& out, double start_time_seconds);

// The request queue's length, the handler threads' idle time, the network
// Processors' busy (CPU) time, and the connections per listener (open, and
// accepted since start) and per client software.
void collect_network(metrics::Exposition& out, const network::RequestChannel& channel,
                     const network::SocketServer& sockets, const RequestHandlerPool& handlers,
                     api::ClientSoftware& software);

// Size, start and end offset of every partition (or size per topic).
void collect_logs(metrics::Exposition& out, const storage::LogManager& logs, bool per_partition_series);

}  // namespace skiff::server
