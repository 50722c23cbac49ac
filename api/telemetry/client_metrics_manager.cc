#include "api/telemetry/client_metrics_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "api/client_software.h"
#include "common/metrics.h"
#include "log/crc32c.h"

namespace skiff::api::telemetry {
namespace {

constexpr int64_t kNever = -(int64_t{1} << 60);
constexpr int64_t kSweepEveryMs = 1000;

// org.apache.kafka.common.Uuid.hashCode().
int32_t java_hash(const Uuid& id) {
  uint64_t msb = 0, lsb = 0;
  for (int i = 0; i < 8; ++i) {
    msb = (msb << 8) | id.bytes[i];
    lsb = (lsb << 8) | id.bytes[8 + i];
  }
  const uint64_t h = msb ^ lsb;
  return static_cast<int32_t>(static_cast<uint32_t>(h >> 32) ^ static_cast<uint32_t>(h));
}

// Kafka's computeSubscriptionId: CRC-32C of "<metrics set>" + interval, XOR
// the id's hash. (Kafka prints a HashSet; the set is sorted here.)
int32_t subscription_id(const std::vector<std::string>& metrics, int32_t interval_ms, const Uuid& id) {
  const std::string text = fmt::format("[{}]{}", fmt::join(metrics, ", "), interval_ms);
  const uint32_t crc = storage::crc32c(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  return static_cast<int32_t>(crc) ^ java_hash(id);
}

bool exempt_from_throttle(ErrorCode last) {
  return last == ErrorCode::kUnknownSubscriptionId || last == ErrorCode::kUnsupportedCompressionType;
}

std::string result_name(ErrorCode e) {
  switch (e) {
    case ErrorCode::kNone:
      return "accepted";
    case ErrorCode::kThrottlingQuotaExceeded:
      return "throttled";
    case ErrorCode::kUnknownSubscriptionId:
      return "unknown_subscription_id";
    case ErrorCode::kUnsupportedCompressionType:
      return "unsupported_compression_type";
    case ErrorCode::kTelemetryTooLarge:
      return "telemetry_too_large";
    case ErrorCode::kInvalidRecord:
      return "invalid_record";
    default:
      return "invalid_request";
  }
}

// A Prometheus name from an OTLP one: "org.apache.kafka." dropped, every
// other character than [a-zA-Z0-9_] an underscore, "kafka_client_" before.
std::string prometheus_name(std::string_view otlp) {
  constexpr std::string_view kJavaPrefix = "org.apache.kafka.";
  if (otlp.substr(0, kJavaPrefix.size()) == kJavaPrefix) otlp.remove_prefix(kJavaPrefix.size());
  std::string out = "kafka_client_";
  for (char c : otlp) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

std::string label_name(std::string_view key) {
  std::string out;
  for (char c : key) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "_");
  return out;
}

}  // namespace

ClientMetricsManager::ClientMetricsManager(metadata::Namespace* ns, Clock clock)
    : subscriptions_(ns), clock_(std::move(clock)) {}

int64_t ClientMetricsManager::now() const {
  if (clock_) return clock_();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ClientContext ClientMetricsManager::context(uint64_t connection_id, std::string client_id,
                                            std::string source_address) const {
  ClientContext c;
  c.connection_id = connection_id;
  c.client_id = std::move(client_id);
  c.source_address = std::move(source_address);
  if (auto* software = software_.load())
    if (auto key = software->find(connection_id)) {
      c.software_name = key->name;
      c.software_version = key->version;
    }
  return c;
}

void ClientMetricsManager::evaluate(Instance& inst) {
  const auto snapshot = subscriptions_.snapshot();
  inst.subscription_version = subscriptions_.version();
  std::set<std::string> metrics;
  int32_t interval = kDefaultIntervalMs;
  bool all = false;
  for (const auto& s : *snapshot) {
    if (!s.matches(inst.attributes)) continue;
    metrics.insert(s.metrics.begin(), s.metrics.end());
    all = all || std::find(s.metrics.begin(), s.metrics.end(), kAllMetrics) != s.metrics.end();
    interval = std::min(interval, s.interval_ms);
  }
  if (all) metrics = {std::string(kAllMetrics)};
  inst.metrics.assign(metrics.begin(), metrics.end());
  inst.push_interval_ms = interval;
  inst.subscription_id = subscription_id(inst.metrics, interval, inst.id);
  // Kafka makes a new ClientMetricsInstance: its timestamps and state start over.
  inst.last_get = kNever;
  inst.last_push = kNever;
  inst.terminating = false;
  inst.last_error = ErrorCode::kNone;
}

ClientMetricsManager::Instance& ClientMetricsManager::instance(const Uuid& id, const ClientContext& client,
                                                               int64_t now) {
  expire(now);
  const std::string key = id.to_string();
  auto it = instances_.find(key);
  if (it == instances_.end()) {
    if (instances_.size() >= kMaxInstances) evict_one();
    Instance inst;
    inst.id = id;
    inst.client = client;
    inst.attributes = {
        key,         client.client_id, client.software_name, client.software_version, client.source_address,
        std::nullopt};  // the source port is not known to the handlers
    it = instances_.emplace(key, std::move(inst)).first;
    evaluate(it->second);
  } else if (it->second.subscription_version != subscriptions_.version()) {
    evaluate(it->second);
  }
  Instance& inst = it->second;
  inst.last_seen = now;
  inst.expires_at = now + std::max<int64_t>(kCacheExpiryMs, int64_t{3} * inst.push_interval_ms);
  return inst;
}

void ClientMetricsManager::drop(std::unordered_map<std::string, Instance>::iterator it) {
  series_ -= it->second.series.size();
  instances_.erase(it);
}

void ClientMetricsManager::expire(int64_t now) {
  if (now < next_sweep_) return;
  next_sweep_ = now + kSweepEveryMs;
  for (auto it = instances_.begin(); it != instances_.end();) {
    auto next = std::next(it);
    if (it->second.expires_at <= now) drop(it);
    it = next;
  }
}

void ClientMetricsManager::evict_one() {
  auto oldest = std::min_element(instances_.begin(), instances_.end(),
                                 [](const auto& a, const auto& b) { return a.second.last_seen < b.second.last_seen; });
  if (oldest != instances_.end()) drop(oldest);
}

SubscriptionAnswer ClientMetricsManager::get_subscriptions(const Uuid& requested, const ClientContext& client) {
  std::lock_guard lock(mu_);
  const int64_t t = now();
  Uuid id = requested;
  while (id.is_zero() || (requested.is_zero() && instances_.contains(id.to_string()))) id = Uuid::random();
  Instance& inst = instance(id, client, t);
  SubscriptionAnswer answer;
  // ClientMetricsInstance.maybeUpdateGetRequestTimestamp.
  if (t - std::max(inst.last_get, inst.last_push) >= inst.push_interval_ms)
    inst.last_get = t;
  else if (!exempt_from_throttle(inst.last_error)) {
    answer.error = ErrorCode::kThrottlingQuotaExceeded;
    return answer;
  }
  inst.last_error = ErrorCode::kNone;
  answer.client_instance_id = id;
  answer.subscription_id = inst.subscription_id;
  answer.push_interval_ms = inst.push_interval_ms;
  answer.requested_metrics = inst.metrics;
  return answer;
}

ErrorCode ClientMetricsManager::check_push(Instance& inst, const PushRequest& request, int64_t t) {
  if (inst.terminating) return ErrorCode::kInvalidRequest;
  // ClientMetricsInstance.maybeUpdatePushRequestTimestamp: the first push
  // after a Get is accepted early (clients add jitter to the interval).
  const bool accept = inst.last_get > inst.last_push || t - inst.last_push >= inst.push_interval_ms;
  if (accept) inst.last_push = t;
  if (!accept && !request.terminating) return ErrorCode::kThrottlingQuotaExceeded;
  if (request.subscription_id != inst.subscription_id) return ErrorCode::kUnknownSubscriptionId;
  if (request.compression_type < 0 || request.compression_type > 4) return ErrorCode::kUnsupportedCompressionType;
  if (request.metrics.size() > static_cast<size_t>(kTelemetryMaxBytes)) return ErrorCode::kTelemetryTooLarge;
  return ErrorCode::kNone;
}

ErrorCode ClientMetricsManager::push(const PushRequest& request, const ClientContext& client) {
  // Uuid.RESERVED: the zero id and METADATA_TOPIC_ID (0, 1).
  static const Uuid kOne = [] {
    Uuid u;
    u.bytes[15] = 1;
    return u;
  }();
  if (request.client_instance_id.is_zero() || request.client_instance_id == kOne) {
    std::lock_guard lock(mu_);
    count(ErrorCode::kInvalidRequest);
    return ErrorCode::kInvalidRequest;
  }
  // Decoded outside the lock: the payload is the client's, up to 1 MiB.
  std::optional<DecodedMetrics> decoded;
  const bool has_metrics = !request.metrics.empty();
  if (has_metrics && request.compression_type >= 0 && request.compression_type <= 4 &&
      request.metrics.size() <= static_cast<size_t>(kTelemetryMaxBytes)) {
    auto plain = decompress_payload(request.compression_type, request.metrics, size_t{16} * kTelemetryMaxBytes);
    if (plain) decoded = decode_metrics_data(*plain);
  }
  std::lock_guard lock(mu_);
  Instance& inst = instance(request.client_instance_id, client, now());
  ErrorCode error = check_push(inst, request, now());
  if (error == ErrorCode::kNone && has_metrics && !decoded) error = ErrorCode::kInvalidRecord;
  inst.terminating = request.terminating;
  inst.last_error = error;
  count(error);
  if (error != ErrorCode::kNone) return error;
  if (decoded) store(inst, std::move(*decoded));
  return ErrorCode::kNone;
}

void ClientMetricsManager::count(ErrorCode result) { ++results_[result_name(result)]; }

void ClientMetricsManager::store(Instance& inst, DecodedMetrics decoded) {
  for (auto& p : decoded.points) {
    SeriesKey key{std::move(p.name), std::move(p.attributes)};
    auto it = inst.series.find(key);
    if (it == inst.series.end()) {
      if (series_ >= kMaxSeries) {
        ++series_dropped_;
        continue;
      }
      ++series_;
      inst.series.emplace(std::move(key), Series{p.value, p.kind, p.monotonic});
    } else if (p.delta && p.kind != TelemetryPoint::Kind::kGauge) {
      it->second.value += p.value;
    } else {
      it->second = Series{p.value, p.kind, p.monotonic};
    }
  }
}

size_t ClientMetricsManager::instance_count() {
  std::lock_guard lock(mu_);
  expire(now());
  return instances_.size();
}

std::vector<ClientMetricsManager::InstanceView> ClientMetricsManager::instances() {
  std::lock_guard lock(mu_);
  expire(now());
  std::vector<InstanceView> out;
  out.reserve(instances_.size());
  for (const auto& [id, instance] : instances_) {
    InstanceView view{instance.id, instance.client, instance.last_push, {}};
    for (const auto& [key, series] : instance.series) {
      std::string name = key.name;
      for (size_t i = 0; i < key.attributes.size(); ++i)
        name += (i == 0 ? "{" : ",") + key.attributes[i].first + "=" + key.attributes[i].second;
      if (!key.attributes.empty()) name += "}";
      view.metrics.emplace_back(std::move(name), series.value);
    }
    out.push_back(std::move(view));
  }
  return out;
}

void ClientMetricsManager::collect(metrics::Exposition& out) {
  std::lock_guard lock(mu_);
  expire(now());
  out.family("kafka_server_client_metrics_instance_count", "gauge",
             "Client instances the broker tracks for telemetry (KIP-714)");
  out.sample("kafka_server_client_metrics_instance_count", {}, {}, static_cast<double>(instances_.size()));
  out.family("skiff_client_telemetry_pushes_total", "counter", "PushTelemetry requests, by outcome");
  for (const auto& [result, n] : results_)
    out.sample("skiff_client_telemetry_pushes_total", {"result"}, {result}, static_cast<double>(n));
  out.family("skiff_client_telemetry_series", "gauge", "Client telemetry series held for /metrics");
  out.sample("skiff_client_telemetry_series", {}, {}, static_cast<double>(series_));
  out.family("skiff_client_telemetry_series_dropped_total", "counter",
             "Client telemetry data points dropped: the series cap was reached");
  out.sample("skiff_client_telemetry_series_dropped_total", {}, {}, static_cast<double>(series_dropped_));

  struct Sample {
    std::vector<std::string> names;
    metrics::LabelValues values;
    double value;
  };
  struct FamilyOut {
    std::string type;
    std::vector<Sample> samples;
  };
  std::map<std::string, FamilyOut> families;
  for (const auto& [id, inst] : instances_)
    for (const auto& [key, series] : inst.series) {
      auto& fam = families[prometheus_name(key.name)];
      if (fam.type.empty())
        fam.type = series.kind != TelemetryPoint::Kind::kGauge && series.monotonic ? "counter" : "gauge";
      Sample s{{"client_instance_id", "client_id", "client_software_name", "client_software_version"},
               {id, inst.client.client_id, inst.client.software_name, inst.client.software_version},
               series.value};
      for (const auto& [k, v] : key.attributes) {
        std::string name = label_name(k);
        if (std::find(s.names.begin(), s.names.end(), name) != s.names.end()) name.insert(0, "attr_");
        if (std::find(s.names.begin(), s.names.end(), name) != s.names.end()) continue;
        s.names.push_back(std::move(name));
        s.values.push_back(v);
      }
      fam.samples.push_back(std::move(s));
    }
  for (const auto& [name, fam] : families) {
    out.family(name, fam.type, "Pushed by clients (KIP-714 client telemetry)");
    for (const auto& s : fam.samples) out.sample(name, s.names, s.values, s.value);
  }
}

}  // namespace skiff::api::telemetry
