// BrokerMetrics: the broker's metrics registry (common/metrics.h) and the
// collectors that read state when /metrics is scraped, named as Kafka's JMX
// exporter names them where Kafka has the metric (README "Metrics"):
//   process_*                 resident and virtual memory, open and maximum
//                             descriptors, threads, CPU seconds, start time
//   skiff_build_info          {version} 1
//   kafka_log_log_size        {topic,partition} bytes on disk
//   kafka_log_log_logstartoffset, kafka_log_log_logendoffset  {topic,partition}
// The per-partition series can be switched off (many partitions);
// kafka_log_log_size then sums per topic.
// Thread rules: scrape() from any thread (the HTTP thread); it reads logs
// through LogManager's thread-safe accessors.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "common/metrics.h"
#include "log/log_manager.h"

namespace skiff::server {

class BrokerMetrics {
 public:
  BrokerMetrics(const storage::LogManager& logs, bool per_partition_series);

  metrics::Registry& registry() { return registry_; }
  std::string scrape() const { return registry_.scrape(); }

 private:
  metrics::Registry registry_;
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

// Size, start and end offset of every partition (or size per topic).
void collect_logs(metrics::Exposition& out, const storage::LogManager& logs, bool per_partition_series);

}  // namespace skiff::server
