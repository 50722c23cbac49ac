// TopicMetrics: Kafka's BrokerTopicMetrics per topic, counted by the Produce
// and Fetch handlers and named as Kafka's JMX exporter names them:
//   kafka_server_brokertopicmetrics_messagesin_total{topic}   records appended
//   kafka_server_brokertopicmetrics_bytesin_total{topic}      record batch bytes appended
//   kafka_server_brokertopicmetrics_bytesout_total{topic}     record bytes fetched
//   kafka_server_brokertopicmetrics_failedproducerequests_total{topic}
//   kafka_server_brokertopicmetrics_failedfetchrequests_total{topic}
//                                                             partitions answered with an error
// A sum over topics is Kafka's all-topics metric. Topics beyond the
// registry's series limit share the series topic="_other".
//
// Thread rules: any thread. A topic's counters are found under a shared
// lock without allocating; made once under the exclusive one.
#pragma once

#include <cstdint>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/metrics.h"

namespace skiff::api {

class TopicMetrics {
 public:
  explicit TopicMetrics(metrics::Registry& registry);

  void produced(std::string_view topic, uint64_t records, uint64_t bytes);
  void produce_failed(std::string_view topic);
  void fetched(std::string_view topic, uint64_t bytes);
  void fetch_failed(std::string_view topic);

 private:
  struct Meters {
    metrics::Counter* messages_in;
    metrics::Counter* bytes_in;
    metrics::Counter* bytes_out;
    metrics::Counter* failed_produce;
    metrics::Counter* failed_fetch;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  const Meters& meters(std::string_view topic);

  metrics::Family<metrics::Counter>& messages_in_;
  metrics::Family<metrics::Counter>& bytes_in_;
  metrics::Family<metrics::Counter>& bytes_out_;
  metrics::Family<metrics::Counter>& failed_produce_;
  metrics::Family<metrics::Counter>& failed_fetch_;
  std::shared_mutex mu_;
  std::unordered_map<std::string, Meters, Hash, std::equal_to<>> by_topic_;
};

}  // namespace skiff::api
