// RequestMetrics (server/request_metrics.h), TopicMetrics
// (api/topic_metrics.h) and ClientSoftware (api/client_software.h): what a
// response's times, a topic's traffic and a connection's software become.
#include "server/request_metrics.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "api/client_software.h"
#include "api/topic_metrics.h"
#include "protocol/error_names.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/produce_response.h"

using namespace skiff;
using Clock = network::RequestTimes::Clock;
using std::chrono::microseconds;

namespace {

bool has_line(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

network::RequestTimes times(int16_t key, int16_t version, Clock::time_point t0, int queue_us, int local_us,
                            int remote_us) {
  network::RequestTimes t;
  t.api_key = key;
  t.api_version = version;
  t.received = t0;
  t.dequeued = t0 + microseconds(queue_us);
  if (remote_us >= 0) t.parked = t.dequeued + microseconds(local_us);
  t.answered = t.dequeued + microseconds(local_us + std::max(remote_us, 0));
  return t;
}

}  // namespace

TEST_CASE("a response's times split into Kafka's request metrics", "[metrics]") {
  metrics::Registry registry;
  server::RequestMetrics m(registry);
  const auto t0 = Clock::now();
  // Produce v9 answered at once: 200 µs queued, 300 µs local, sent 500 µs after.
  auto produce = times(0, 9, t0, 200, 300, -1);
  m.on_response_sent(produce, produce.answered + microseconds(500));
  // A fetch parked for 400 ms after 1 ms of work.
  auto fetch = times(1, 16, t0, 0, 1000, 400000);
  m.on_response_sent(fetch, fetch.answered);
  const std::string text = registry.scrape();

  CHECK(has_line(text, R"(kafka_network_requestmetrics_requests_total{request="Produce",version="9"} 1)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_requests_total{request="FetchConsumer",version="16"} 1)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_requestqueuetimems_sum{request="Produce"} 0.2)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_localtimems_sum{request="Produce"} 0.3)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_remotetimems_sum{request="Produce"} 0)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_responsesendtimems_sum{request="Produce"} 0.5)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_totaltimems_sum{request="Produce"} 1)"));
  // buckets: 1 ms falls in le="1" (upper bounds are inclusive), not in le="0.5"
  CHECK(has_line(text, R"(kafka_network_requestmetrics_totaltimems_bucket{request="Produce",le="0.5"} 0)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_totaltimems_bucket{request="Produce",le="1"} 1)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_localtimems_sum{request="FetchConsumer"} 1)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_remotetimems_sum{request="FetchConsumer"} 400)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_remotetimems_bucket{request="FetchConsumer",le="250"} 0)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_remotetimems_bucket{request="FetchConsumer",le="500"} 1)"));
}

TEST_CASE("untimed responses and unknown keys are not counted, versions are capped", "[metrics]") {
  metrics::Registry registry;
  server::RequestMetrics m(registry);
  const auto t0 = Clock::now();
  m.on_response_sent(times(-1, 0, t0, 1, 1, -1), t0);   // no Kafka header
  m.on_response_sent(times(500, 0, t0, 1, 1, -1), t0);  // beyond any API key
  m.on_response_sent(times(18, 99, t0, 1, 1, -1), t0);  // ApiVersions from a far newer client
  const std::string text = registry.scrape();
  CHECK(has_line(text, R"(kafka_network_requestmetrics_requests_total{request="ApiVersions",version="31"} 1)"));
  CHECK(text.find("request=\"500\"") == std::string::npos);
  CHECK(server::request_metric_name(3) == "Metadata");
}

TEST_CASE("every error code of a response is counted per API, by Kafka's error name", "[metrics]") {
  metrics::Registry registry;
  server::RequestMetrics m(registry);
  protocol::ProduceResponse produce;
  produce.responses.resize(2);
  produce.responses[0].partition_responses.resize(3);  // NONE x3
  produce.responses[1].partition_responses.resize(2);
  produce.responses[1].partition_responses[1].error_code = 3;  // UNKNOWN_TOPIC_OR_PARTITION
  {
    api::ErrorTally tally(m, protocol::ProduceResponse::kApiKey);
    produce.for_each_error_code(tally);
  }                               // the tally reports when it goes
  protocol::FetchResponse fetch;  // its own error code, and each partition's
  fetch.error_code = 0;
  fetch.responses.resize(1);
  fetch.responses[0].partitions.resize(2);
  fetch.responses[0].partitions[0].error_code = 1;  // OFFSET_OUT_OF_RANGE
  {
    api::ErrorTally tally(m, protocol::FetchResponse::kApiKey);
    fetch.for_each_error_code(tally);
  }
  m.on_errors(0, 9999, 1);  // a code Kafka does not have
  const std::string text = registry.scrape();
  CHECK(has_line(text, R"(kafka_network_requestmetrics_errors_total{request="Produce",error="NONE"} 4)"));
  CHECK(has_line(
      text, R"(kafka_network_requestmetrics_errors_total{request="Produce",error="UNKNOWN_TOPIC_OR_PARTITION"} 1)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_errors_total{request="FetchConsumer",error="NONE"} 2)"));
  CHECK(has_line(
      text, R"(kafka_network_requestmetrics_errors_total{request="FetchConsumer",error="OFFSET_OUT_OF_RANGE"} 1)"));
  CHECK(has_line(text, R"(kafka_network_requestmetrics_errors_total{request="Produce",error="UNKNOWN_ERROR_CODE"} 1)"));
  CHECK(protocol::error_name(-1) == "UNKNOWN_SERVER_ERROR");
  CHECK(protocol::error_name(29) == "TOPIC_AUTHORIZATION_FAILED");
}

TEST_CASE("topic traffic is counted per topic", "[metrics]") {
  metrics::Registry registry;
  api::TopicMetrics m(registry);
  m.produced("orders", 10, 1000);
  m.produced("orders", 5, 400);
  m.fetched("orders", 1400);
  m.produce_failed("audit");
  m.fetch_failed("audit");
  const std::string text = registry.scrape();
  CHECK(has_line(text, R"(kafka_server_brokertopicmetrics_messagesin_total{topic="orders"} 15)"));
  CHECK(has_line(text, R"(kafka_server_brokertopicmetrics_bytesin_total{topic="orders"} 1400)"));
  CHECK(has_line(text, R"(kafka_server_brokertopicmetrics_bytesout_total{topic="orders"} 1400)"));
  CHECK(has_line(text, R"(kafka_server_brokertopicmetrics_failedproducerequests_total{topic="audit"} 1)"));
  CHECK(has_line(text, R"(kafka_server_brokertopicmetrics_failedfetchrequests_total{topic="audit"} 1)"));
  CHECK(has_line(text, R"(kafka_server_brokertopicmetrics_messagesin_total{topic="audit"} 0)"));
}

TEST_CASE("client software is counted per open connection and forgotten once closed", "[metrics]") {
  std::set<uint64_t> open{1, 2, 3};
  api::ClientSoftware software([&](uint64_t id) { return open.contains(id); });
  software.seen(1, {"librdkafka", "2.0.2", "PLAINTEXT"});
  software.seen(2, {"librdkafka", "2.0.2", "PLAINTEXT"});
  software.seen(3, {"apache-kafka-java", "4.4.0", "SSL"});
  auto counts = software.counts();
  CHECK(counts.size() == 2);
  CHECK(counts[{"librdkafka", "2.0.2", "PLAINTEXT"}] == 2);
  CHECK(counts[{"apache-kafka-java", "4.4.0", "SSL"}] == 1);
  open.erase(2);
  open.erase(3);
  counts = software.counts();
  CHECK(counts.size() == 1);
  CHECK(counts[{"librdkafka", "2.0.2", "PLAINTEXT"}] == 1);
  // many short connections never scraped: the table stays near the open ones
  for (uint64_t id = 100; id < 10100; ++id) software.seen(id, {"churn", "1", "PLAINTEXT"});
  CHECK(software.tracked() < 200);
  open.insert(10099);
  counts = software.counts();
  CHECK(counts[{"churn", "1", "PLAINTEXT"}] == 1);
}
