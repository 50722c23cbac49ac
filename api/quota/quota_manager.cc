#include "api/quota/quota_manager.h"

#include <algorithm>
#include <climits>
#include <vector>

#include "api/responder.h"

namespace skiff::api::quota {
namespace {

constexpr auto kIdleExpiry = std::chrono::hours(1);  // Kafka's InactiveSensorExpirationTimeSeconds
constexpr auto kSweepInterval = std::chrono::minutes(1);

int64_t to_ms(QuotaManager::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

size_t index(QuotaKind kind) { return static_cast<size_t>(kind); }

}  // namespace

QuotaManager::QuotaManager(std::shared_ptr<const ClientQuotaStore> store, QuotaWindow window)
    : store_(std::move(store)), window_(window) {}

std::string_view QuotaManager::key_name(QuotaKind kind) {
  switch (kind) {
    case QuotaKind::kProduce:
      return kProducerByteRate;
    case QuotaKind::kFetch:
      return kConsumerByteRate;
    case QuotaKind::kRequest:
      return kRequestPercentage;
  }
  return {};
}

bool QuotaManager::enabled(QuotaKind kind) const {
  const size_t i = index(kind);
  const uint64_t generation = store_->generation() + 1;
  if (enabled_at_[i].load(std::memory_order_acquire) == generation) return enabled_[i].load(std::memory_order_relaxed);
  const bool on = store_->has_key(key_name(kind));
  enabled_[i].store(on, std::memory_order_relaxed);
  enabled_at_[i].store(generation, std::memory_order_release);
  return on;
}

// The client's rate, found through its (cached) resolution; null when no
// quota of this kind applies to it. Called with k.mu held.
QuotaManager::Tracked* QuotaManager::find(Kind& k, QuotaKind kind, std::string_view user, std::string_view client_id,
                                          Clock::time_point now) {
  const uint64_t generation = store_->generation();
  auto it = k.clients.find(std::pair{user, client_id});
  if (it == k.clients.end())
    it = k.clients.emplace(Key{std::string(user), std::string(client_id)}, Resolution{generation + 1, {}, now}).first;
  Resolution& r = it->second;
  if (r.generation != generation) {
    r.generation = generation;
    r.quota = store_->resolve(key_name(kind), user, client_id);
  }
  r.last_used = now;
  if (!r.quota) return nullptr;
  Key key{r.quota->by_user ? std::string(user) : std::string(), r.quota->by_client_id ? std::string(client_id) : ""};
  auto [t, added] = k.rates.try_emplace(std::move(key),
                                        Tracked{QuotaRate(window_), QuotaRate(window_), QuotaRate(window_), 0, 0, now});
  t->second.quota = r.quota->value;
  t->second.last_used = now;
  return &t->second;
}

// Drops what no client used for an hour (at most once a minute).
void QuotaManager::sweep(Kind& k, Clock::time_point now) {
  if (now - k.last_sweep < kSweepInterval) return;
  k.last_sweep = now;
  std::erase_if(k.clients, [&](const auto& e) { return now - e.second.last_used > kIdleExpiry; });
  std::erase_if(k.rates, [&](const auto& e) { return now - e.second.last_used > kIdleExpiry; });
}

int32_t QuotaManager::record(QuotaKind kind, std::string_view user, std::string_view client_id, double value,
                             Clock::time_point now) {
  if (!enabled(kind)) return 0;
  Kind& k = kinds_[index(kind)];
  std::lock_guard lock(k.mu);
  sweep(k, now);
  Tracked* t = find(k, kind, user, client_id, now);
  if (!t) return 0;
  const int64_t ms = to_ms(now);
  t->rate.record(value, ms);
  int64_t throttle = throttle_ms(t->rate.measure(ms), t->quota, t->rate.window_ms(ms));
  if (kind == QuotaKind::kRequest) throttle = std::min(throttle, window_.window_ms);
  if (throttle <= 0) return 0;
  t->throttle_total.record(static_cast<double>(throttle), ms);
  t->throttle_count.record(1, ms);
  ++t->throttled;
  return static_cast<int32_t>(std::min<int64_t>(throttle, INT32_MAX));
}

void QuotaManager::unrecord(QuotaKind kind, std::string_view user, std::string_view client_id, double value,
                            Clock::time_point now) {
  if (!enabled(kind)) return;
  Kind& k = kinds_[index(kind)];
  std::lock_guard lock(k.mu);
  if (Tracked* t = find(k, kind, user, client_id, now)) t->rate.record(-value, to_ms(now));
}

int32_t QuotaManager::max_value_in_window(QuotaKind kind, std::string_view user, std::string_view client_id) {
  if (!enabled(kind)) return INT32_MAX;
  Kind& k = kinds_[index(kind)];
  std::lock_guard lock(k.mu);
  const Tracked* t = find(k, kind, user, client_id, Clock::now());
  if (!t) return INT32_MAX;
  const double most = t->quota * (window_.samples - 1) * (static_cast<double>(window_.window_ms) / 1000.0);
  return most >= INT32_MAX ? INT32_MAX : static_cast<int32_t>(most);
}

void QuotaManager::collect(metrics::Exposition& out) {
  static const std::vector<std::string> labels{"user", "client_id"};
  static const std::vector<std::string> throttled_labels{"type", "user", "client_id"};
  struct Row {
    Key key;
    double rate, throttle_avg;
    uint64_t throttled;
  };
  const int64_t now = to_ms(Clock::now());
  const char* types[] = {"Produce", "Fetch", "Request"};
  const char* rate_names[] = {"kafka_server_produce_byte_rate", "kafka_server_fetch_byte_rate",
                              "kafka_server_request_request_time"};
  const char* throttle_names[] = {"kafka_server_produce_throttle_time", "kafka_server_fetch_throttle_time",
                                  "kafka_server_request_throttle_time"};
  out.family("skiff_quota_throttled_total", "counter", "Responses throttled by a client quota.");
  std::vector<std::vector<Row>> all(kinds_.size());
  for (size_t i = 0; i < kinds_.size(); ++i) {
    std::lock_guard lock(kinds_[i].mu);
    for (auto& [key, t] : kinds_[i].rates) {
      const double count = t.throttle_count.measure(now);
      all[i].push_back({key, t.rate.measure(now), count > 0 ? t.throttle_total.measure(now) / count : 0, t.throttled});
    }
    for (const auto& r : all[i])
      out.sample("skiff_quota_throttled_total", throttled_labels, {types[i], r.key.first, r.key.second},
                 static_cast<double>(r.throttled));
  }
  for (size_t i = 0; i < kinds_.size(); ++i) {
    out.family(rate_names[i], "gauge",
               i == 2 ? "Handler thread time per second, in percent of one thread, per quota entity."
                      : "Bytes per second over the quota window, per quota entity.");
    for (const auto& r : all[i]) out.sample(rate_names[i], labels, {r.key.first, r.key.second}, r.rate);
    out.family(throttle_names[i], "gauge", "Average throttle time (ms) handed out over the quota window.");
    for (const auto& r : all[i]) out.sample(throttle_names[i], labels, {r.key.first, r.key.second}, r.throttle_avg);
  }
}

}  // namespace skiff::api::quota

namespace skiff::api {

// Kafka records requestThreadTimeNanos as a percentage of one thread for a
// second (ClientRequestQuotaManager.nanosToPercentage).
int32_t record_request_time(const RequestQuotaClient& client, const network::RequestTimes& times) {
  using Clock = network::RequestTimes::Clock;
  if (times.dequeued == Clock::time_point{}) return 0;
  const auto end = times.parked != Clock::time_point{} ? times.parked : Clock::now();
  const double nanos =
      static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - times.dequeued).count());
  return client.manager->record(quota::QuotaKind::kRequest, client.user, client.client_id, nanos * 100.0 / 1e9);
}

}  // namespace skiff::api
