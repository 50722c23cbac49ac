// What the request and topic metrics add to one request, in ns: the calls
// a produce makes (RequestMetrics::on_response_sent, TopicMetrics::produced,
// the clock reads behind RequestTimes, and the errors-per-API count of its
// one-partition response), single-threaded and from two
// threads at once (shared counters). Run by bench/metrics.py; not a
// test.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "api/error_tally.h"
#include "api/topic_metrics.h"
#include "protocol/generated/produce_response.h"
#include "server/request_metrics.h"

using namespace skiff;
using Clock = network::RequestTimes::Clock;

namespace {

// A one-partition produce response, as a linger.ms=0 producer gets.
const protocol::ProduceResponse& produce_response() {
  static const protocol::ProduceResponse r = [] {
    protocol::ProduceResponse out;
    out.responses.resize(1);
    out.responses[0].partition_responses.resize(1);
    return out;
  }();
  return r;
}

// One request's worth of metrics work: three clock reads (dequeued,
// answered, sent; received is read anyway), the topic counters, the error
// codes of the response, the observer.
void one_request(server::RequestMetrics& requests, api::TopicMetrics& topics, const Clock::time_point received) {
  network::RequestTimes t;
  t.api_key = 0;
  t.api_version = 9;
  t.received = received;
  t.dequeued = Clock::now();
  topics.produced("bench-topic", 1, 100);
  {
    api::ErrorTally tally(requests, t.api_key);
    produce_response().for_each_error_code(tally);
  }
  t.answered = Clock::now();
  requests.on_response_sent(t, Clock::now());
}

double ns_per_request(int threads, int per_thread) {
  metrics::Registry registry;
  server::RequestMetrics requests(registry);
  api::TopicMetrics topics(registry);
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i)
    workers.emplace_back([&] {
      for (int n = 0; n < per_thread; ++n) one_request(requests, topics, start);
    });
  for (auto& w : workers) w.join();
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  return ns / per_thread;  // wall time per request on each thread
}

}  // namespace

int main() {
  constexpr int kRequests = 5'000'000;
  ns_per_request(1, kRequests / 10);  // warm up
  std::printf("{\"ns_per_request_1_thread\": %.1f, \"ns_per_request_2_threads\": %.1f}\n", ns_per_request(1, kRequests),
              ns_per_request(2, kRequests));
  return 0;
}
