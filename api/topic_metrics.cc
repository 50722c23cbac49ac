#include "api/topic_metrics.h"

#include <mutex>

namespace skiff::api {

TopicMetrics::TopicMetrics(metrics::Registry& r)
    : messages_in_(r.counter("kafka_server_brokertopicmetrics_messagesin_total",
                             "Records appended, per topic (MessagesInPerSec).", {"topic"})),
      bytes_in_(r.counter("kafka_server_brokertopicmetrics_bytesin_total",
                          "Record batch bytes appended, per topic (BytesInPerSec).", {"topic"})),
      bytes_out_(r.counter("kafka_server_brokertopicmetrics_bytesout_total",
                           "Record bytes returned to fetches, per topic (BytesOutPerSec).", {"topic"})),
      failed_produce_(r.counter("kafka_server_brokertopicmetrics_failedproducerequests_total",
                                "Produced partitions answered with an error, per topic (FailedProduceRequestsPerSec).",
                                {"topic"})),
      failed_fetch_(r.counter("kafka_server_brokertopicmetrics_failedfetchrequests_total",
                              "Fetched partitions answered with an error, per topic (FailedFetchRequestsPerSec).",
                              {"topic"})) {}

const TopicMetrics::Meters& TopicMetrics::meters(std::string_view topic) {
  {
    std::shared_lock lock(mu_);
    if (auto it = by_topic_.find(topic); it != by_topic_.end()) return it->second;
  }
  std::unique_lock lock(mu_);
  if (auto it = by_topic_.find(topic); it != by_topic_.end()) return it->second;
  const metrics::LabelValues labels{std::string(topic)};
  Meters m{&messages_in_.with(labels), &bytes_in_.with(labels), &bytes_out_.with(labels), &failed_produce_.with(labels),
           &failed_fetch_.with(labels)};
  return by_topic_.emplace(std::string(topic), m).first->second;  // references stay valid across rehashes
}

void TopicMetrics::produced(std::string_view topic, uint64_t records, uint64_t bytes) {
  const auto& m = meters(topic);
  m.messages_in->add(records);
  m.bytes_in->add(bytes);
}

void TopicMetrics::produce_failed(std::string_view topic) { meters(topic).failed_produce->add(); }

void TopicMetrics::fetched(std::string_view topic, uint64_t bytes) { meters(topic).bytes_out->add(bytes); }

void TopicMetrics::fetch_failed(std::string_view topic) { meters(topic).failed_fetch->add(); }

}  // namespace skiff::api
