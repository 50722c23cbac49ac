#include "server/request_metrics.h"

#include <string>

#include "protocol/api_table.h"
#include "protocol/error_names.h"

namespace skiff::server {
namespace {

using Clock = network::RequestTimes::Clock;

// Upper bounds in ms: 50 µs to 30 s, about three per decade.
std::vector<double> time_buckets() {
  return {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000};
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Set points only: an unset one (a response never parked) takes `fallback`.
Clock::time_point or_else(Clock::time_point t, Clock::time_point fallback) {
  return t == Clock::time_point{} ? fallback : t;
}

}  // namespace

std::string request_metric_name(int16_t api_key) {
  if (api_key == 1) return "FetchConsumer";
  const auto* info = protocol::find_api(api_key);
  return info ? std::string(info->name) : std::to_string(api_key);
}

RequestMetrics::RequestMetrics(metrics::Registry& registry)
    : requests_(registry.counter("kafka_network_requestmetrics_requests_total",
                                 "Requests answered, per API and version (Kafka's RequestsPerSec).",
                                 {"request", "version"})),
      errors_(registry.counter("kafka_network_requestmetrics_errors_total",
                               "Error codes in the responses, NONE included, per API and Kafka error name "
                               "(Kafka's ErrorsPerSec).",
                               {"request", "error"})) {
  const char* parts[] = {"requestqueue", "local", "remote", "responsesend", "total"};
  const char* helps[] = {
      "Time from a request read whole to a handler thread taking it, in ms (RequestQueueTimeMs).",
      "Time a handler thread spent on a request before answering or parking it, in ms (LocalTimeMs).",
      "Time a parked request waited (delayed fetch, join, transaction step), in ms (RemoteTimeMs).",
      "Time from the answer to its last byte written, in ms (ResponseQueueTimeMs + ResponseSendTimeMs).",
      "Time from a request read whole to its response written whole, in ms (TotalTimeMs).",
  };
  for (size_t i = 0; i < times_.size(); ++i)
    times_[i] = &registry.histogram(std::string("kafka_network_requestmetrics_") + parts[i] + "timems", helps[i],
                                    {"request"}, time_buckets());
}

const RequestMetrics::Api& RequestMetrics::api(int16_t key) {
  if (api_ready_[key].load(std::memory_order_acquire)) return apis_[key];
  std::lock_guard lock(mu_);
  if (!api_ready_[key].load(std::memory_order_relaxed)) {
    const metrics::LabelValues labels{request_metric_name(key)};
    apis_[key] = {&times_[0]->with(labels), &times_[1]->with(labels), &times_[2]->with(labels),
                  &times_[3]->with(labels), &times_[4]->with(labels)};
    api_ready_[key].store(true, std::memory_order_release);
  }
  return apis_[key];
}

metrics::Counter& RequestMetrics::requests(int16_t key, int16_t version) {
  const int v = std::min<int>(std::max<int>(version, 0), kMaxVersion - 1);
  auto& slot = counters_[static_cast<size_t>(key) * kMaxVersion + static_cast<size_t>(v)];
  if (auto* c = slot.load(std::memory_order_acquire)) return *c;
  auto& c = requests_.with({request_metric_name(key), std::to_string(v)});  // the family's lock makes it once
  slot.store(&c, std::memory_order_release);
  return c;
}

void RequestMetrics::on_errors(int16_t api_key, int16_t error_code, uint64_t count) {
  if (api_key < 0 || api_key >= kMaxApiKey) return;
  const int slot_of_code = std::min<int>(std::max<int>(error_code + 1, 0), kErrorSlots - 1);
  auto& slot = error_counters_[static_cast<size_t>(api_key) * kErrorSlots + static_cast<size_t>(slot_of_code)];
  auto* c = slot.load(std::memory_order_acquire);
  if (!c) {
    const std::string error = slot_of_code == kErrorSlots - 1 || error_code < -1
                                  ? std::string("UNKNOWN_ERROR_CODE")
                                  : std::string(protocol::error_name(error_code));
    c = &errors_.with({request_metric_name(api_key), error});  // the family's lock makes it once
    slot.store(c, std::memory_order_release);
  }
  c->add(count);
}

void RequestMetrics::on_response_sent(const network::RequestTimes& t, Clock::time_point sent) {
  if (t.api_key < 0 || t.api_key >= kMaxApiKey) return;
  const Api& a = api(t.api_key);
  const auto answered = or_else(t.answered, sent);
  const auto parked = or_else(t.parked, answered);
  const auto dequeued = or_else(t.dequeued, t.received);
  a.queue->observe(ms(dequeued - t.received));
  a.local->observe(ms(parked - dequeued));
  a.remote->observe(ms(answered - parked));
  a.send->observe(ms(sent - answered));
  a.total->observe(ms(sent - t.received));
  requests(t.api_key, t.api_version).add();
}

}  // namespace skiff::server
