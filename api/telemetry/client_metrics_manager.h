// ClientMetricsManager: KIP-714's broker side, as Kafka's ClientMetricsManager
// and ClientMetricsInstance implement it, with /metrics as the receiver.
//
//  - GetTelemetrySubscriptions: a zero client instance id gets a new one; the
//    client is matched against every subscription (SubscriptionStore), its
//    requested metrics are the union of the matching ones' ("*" alone if any
//    has it), its push interval their smallest (300000 if none), and its
//    subscription id a CRC-32C of both XOR the id's hash, so it changes when
//    the matching subscriptions do. Asking again within the push interval:
//    THROTTLING_QUOTA_EXCEEDED (except right after UNKNOWN_SUBSCRIPTION_ID or
//    UNSUPPORTED_COMPRESSION_TYPE).
//  - PushTelemetry, checked in Kafka's order: a zero id INVALID_REQUEST; a
//    push after a terminating one INVALID_REQUEST; within the push interval
//    (not counting the first push after a Get, nor a terminating push)
//    THROTTLING_QUOTA_EXCEEDED; a stale subscription id
//    UNKNOWN_SUBSCRIPTION_ID; a compression id outside 0..4
//    UNSUPPORTED_COMPRESSION_TYPE; over telemetry_max_bytes
//    TELEMETRY_TOO_LARGE; a payload that does not decompress or decode
//    INVALID_RECORD (Kafka's answer when its receiver plugin fails).
//  - Client instances live in memory: at most kMaxInstances (the least
//    recently seen goes first), each forgotten max(60 s, 3 x push interval)
//    after its last request, with its series.
//  - The data points of accepted pushes are kept per instance (the latest
//    value; a delta sum or histogram count is added to the previous one) and
//    written at scrape time by collect(); at most kMaxSeries in all, further
//    ones are dropped and counted.
//
// Threads: thread-safe; one mutex over the instances.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/telemetry/client_metrics_subscriptions.h"
#include "api/telemetry/otlp_metrics.h"
#include "common/uuid.h"
#include "protocol/error_codes.h"

namespace skiff::metrics {
class Exposition;
}

namespace skiff::api {
class ClientSoftware;
}

namespace skiff::api::telemetry {

// Who sent a request, as the handlers know it.
struct ClientContext {
  uint64_t connection_id = 0;
  std::string client_id;
  std::string software_name = "unknown";  // Kafka's ClientInformation.EMPTY
  std::string software_version = "unknown";
  std::string source_address;
};

struct SubscriptionAnswer {
  ErrorCode error = ErrorCode::kNone;
  Uuid client_instance_id;
  int32_t subscription_id = 0;
  int32_t push_interval_ms = 0;
  std::vector<std::string> requested_metrics;
};

struct PushRequest {
  Uuid client_instance_id;
  int32_t subscription_id = 0;
  bool terminating = false;
  int8_t compression_type = 0;
  std::span<const uint8_t> metrics;
};

class ClientMetricsManager {
 public:
  using Clock = std::function<int64_t()>;  // milliseconds
  static constexpr size_t kMaxInstances = 16384;
  static constexpr int64_t kCacheExpiryMs = 60 * 1000;
  static constexpr size_t kMaxSeries = 10000;
  static constexpr int32_t kTelemetryMaxBytes = 1024 * 1024;  // Kafka's telemetry.max.bytes default
  // Kafka's order: zstd, lz4, gzip, snappy.
  static constexpr int8_t kAcceptedCompression[] = {4, 3, 1, 2};

  // `ns`: the subscriptions' namespace of the metadata store (null: in
  // memory). Throws metadata::Failure if it is corrupt.
  explicit ClientMetricsManager(metadata::Namespace* ns, Clock clock = {});

  SubscriptionStore& subscriptions() { return subscriptions_; }
  // The connections' client software (api/client_software.h); null: "unknown".
  void set_client_software(ClientSoftware* software) { software_ = software; }
  // The context of a request on `connection_id`, its software looked up.
  ClientContext context(uint64_t connection_id, std::string client_id, std::string source_address) const;

  SubscriptionAnswer get_subscriptions(const Uuid& requested, const ClientContext& client);
  ErrorCode push(const PushRequest& request, const ClientContext& client);

  // The /metrics families: instances, pushes, and every stored data point.
  void collect(metrics::Exposition& out);
  size_t instance_count();

  // The live instances and their latest values, for the web console.
  struct InstanceView {
    Uuid id;
    ClientContext client;
    int64_t last_push_ms = 0;
    std::vector<std::pair<std::string, double>> metrics;  // name{attributes}, value
  };
  std::vector<InstanceView> instances();

 private:
  struct SeriesKey {
    std::string name;
    std::vector<std::pair<std::string, std::string>> attributes;
    auto operator<=>(const SeriesKey&) const = default;
  };
  struct Series {
    double value = 0;
    TelemetryPoint::Kind kind = TelemetryPoint::Kind::kGauge;
    bool monotonic = false;
  };
  struct Instance {
    Uuid id;
    ClientAttributes attributes;
    ClientContext client;
    uint64_t subscription_version = 0;
    int32_t subscription_id = 0;
    int32_t push_interval_ms = kDefaultIntervalMs;
    std::vector<std::string> metrics;
    int64_t last_get = 0;
    int64_t last_push = 0;
    bool terminating = false;
    ErrorCode last_error = ErrorCode::kNone;
    int64_t expires_at = 0;
    int64_t last_seen = 0;
    std::map<SeriesKey, Series> series;
  };

  int64_t now() const;
  // Kafka's clientInstance(): found or made, re-evaluated if the
  // subscriptions changed, its expiry pushed back. mu_ held.
  Instance& instance(const Uuid& id, const ClientContext& client, int64_t now);
  void evaluate(Instance& inst);                                      // mu_ held
  void expire(int64_t now);                                           // mu_ held
  void evict_one();                                                   // mu_ held
  void drop(std::unordered_map<std::string, Instance>::iterator it);  // mu_ held
  void store(Instance& inst, DecodedMetrics decoded);                 // mu_ held
  ErrorCode check_push(Instance& inst, const PushRequest& request, int64_t now);
  void count(ErrorCode result);

  SubscriptionStore subscriptions_;
  Clock clock_;
  std::atomic<ClientSoftware*> software_{nullptr};
  std::mutex mu_;
  std::unordered_map<std::string, Instance> instances_;  // by the id's text
  size_t series_ = 0;
  uint64_t series_dropped_ = 0;
  int64_t next_sweep_ = 0;
  std::map<std::string, uint64_t> results_;  // pushes by outcome
};

}  // namespace skiff::api::telemetry
