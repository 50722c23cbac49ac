// RequestMetrics: Kafka's RequestMetrics per API, from the times each
// response carries (network::RequestTimes), named as Kafka's JMX exporter
// names them (docs/operations/metrics.md):
//   kafka_network_requestmetrics_requests_total{request,version}   counter
//   kafka_network_requestmetrics_<part>timems{request}             histograms, ms
//     requestqueue  received whole → taken by a handler thread
//     local         taken → answered, or → parked to answer later
//     remote        parked → answered (a delayed fetch, a join, a txn step)
//     responsesend  answered → written whole (Kafka's ResponseQueueTimeMs
//                   and ResponseSendTimeMs together)
//     total         received whole → written whole
//   kafka_network_requestmetrics_errors_total{request,error}      counter
//     every error code the responses held, NONE included, by Kafka's error
//     name (ErrorsPerSec; told by the Responder, api/error_tally.h)
// `request` is Kafka's API name; Fetch is "FetchConsumer", as Kafka's
// RequestMetrics names a consumer's fetch (a single node has no followers).
//
// Thread rules: on_response_sent from any thread. An API's series are made
// on first use (under a mutex) and then reached by array index, lock-free.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "api/error_tally.h"
#include "common/metrics.h"
#include "network/request.h"

namespace skiff::server {

class RequestMetrics final : public network::RequestObserver, public api::ErrorObserver {
 public:
  explicit RequestMetrics(metrics::Registry& registry);

  void on_response_sent(const network::RequestTimes& times, network::RequestTimes::Clock::time_point sent) override;
  void on_errors(int16_t api_key, int16_t error_code, uint64_t count) override;

  static constexpr int kMaxApiKey = 128;   // keys at or above: not counted
  static constexpr int kMaxVersion = 32;   // versions at or above: counted as version 31
  static constexpr int kErrorSlots = 256;  // codes -1..254; others share the last slot

 private:
  struct Api {
    metrics::Histogram* queue;
    metrics::Histogram* local;
    metrics::Histogram* remote;
    metrics::Histogram* send;
    metrics::Histogram* total;
  };
  const Api& api(int16_t key);
  metrics::Counter& requests(int16_t key, int16_t version);

  metrics::Family<metrics::Counter>& requests_;
  std::array<metrics::Family<metrics::Histogram>*, 5> times_;  // queue, local, remote, send, total
  std::mutex mu_;                                              // makes series
  std::array<Api, kMaxApiKey> apis_{};
  std::array<std::atomic<bool>, kMaxApiKey> api_ready_{};
  std::array<std::atomic<metrics::Counter*>, kMaxApiKey * kMaxVersion> counters_{};
  metrics::Family<metrics::Counter>& errors_;
  std::array<std::atomic<metrics::Counter*>, kMaxApiKey * kErrorSlots> error_counters_{};
};

// Kafka's name of an API in RequestMetrics' `request` label.
std::string request_metric_name(int16_t api_key);

}  // namespace skiff::server
