// QuotaManager: enforces the client quotas of the ClientQuotaStore as Kafka's
// ClientQuotaManager (producer_byte_rate, consumer_byte_rate) and
// ClientRequestQuotaManager (request_percentage) do. Each handler records
// what a request cost (bytes produced, bytes fetched, handler-thread time as
// a percentage of one thread per second) against the client's rate; over the
// quota, the answer is the throttle that brings the rate back to it, which
// the response carries in throttle_time_ms and the connection honours by
// taking no further request for that long (network::Response::throttle).
//
// One rate per quota entity shape (ResolvedQuota): a client-id quota is
// shared by every user with that client id, a default quota gives each
// client its own rate, as Kafka's metric tags make it. Nothing is tracked,
// and a request costs one atomic load, while the store sets no quota of the
// kind. Rates idle for an hour are dropped.
//
// Thread rules: thread-safe; one mutex per kind guards its rates (taken only
// while the store has a quota of that kind).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/quota/client_quota_store.h"
#include "common/metrics.h"
#include "common/quota_rate.h"

namespace skiff::api::quota {

enum class QuotaKind { kProduce, kFetch, kRequest };

// The user a principal's quotas are looked up by ("User:alice" -> "alice").
inline std::string_view quota_user(std::string_view principal) {
  return principal.starts_with("User:") ? principal.substr(5) : principal;
}

class QuotaManager {
 public:
  using Clock = std::chrono::steady_clock;

  explicit QuotaManager(std::shared_ptr<const ClientQuotaStore> store, QuotaWindow window = {});

  // Whether the store sets a quota of this kind (cheap; checked per request).
  bool enabled(QuotaKind kind) const;
  // Records `value` for the client; the throttle in ms, 0 within its quota
  // (or with none). Request-time throttles are capped at one window, as
  // Kafka caps them; byte-rate throttles are not.
  int32_t record(QuotaKind kind, std::string_view user, std::string_view client_id, double value,
                 Clock::time_point now = Clock::now());
  // Takes back a value recorded for a fetch that was not sent (Kafka
  // un-records a throttled fetch's bytes).
  void unrecord(QuotaKind kind, std::string_view user, std::string_view client_id, double value,
                Clock::time_point now = Clock::now());
  // The most a client may take at once without being throttled for sure
  // (Kafka's getMaxValueInQuotaWindow: quota x (samples - 1) windows); a
  // fetch's size is bounded by it. INT32_MAX without a quota.
  int32_t max_value_in_window(QuotaKind kind, std::string_view user, std::string_view client_id);

  // kafka_server_{produce,fetch}_byte_rate, kafka_server_request_request_time
  // and kafka_server_<kind>_throttle_time (the average throttle over the
  // window), with Kafka's user and client_id labels; and
  // skiff_quota_throttled_total{type,user,client_id}.
  void collect(metrics::Exposition& out);

 private:
  struct Tracked {
    QuotaRate rate;
    QuotaRate throttle_total;  // ms of throttle handed out, and ...
    QuotaRate throttle_count;  // ... how many times: their ratio is Kafka's throttle-time Avg
    uint64_t throttled = 0;
    double quota = 0;
    Clock::time_point last_used{};
  };
  using Key = std::pair<std::string, std::string>;  // (user, client-id); "" where the quota's entity has none
  // Orders keys and (string_view, string_view) lookups alike, without copies.
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return std::pair<std::string_view, std::string_view>(a.first, a.second) <
             std::pair<std::string_view, std::string_view>(b.first, b.second);
    }
  };
  struct Resolution {
    uint64_t generation = 0;
    std::optional<ResolvedQuota> quota;
    Clock::time_point last_used{};
  };
  struct Kind {
    std::mutex mu;
    std::map<Key, Resolution, KeyLess> clients;  // what each client resolves to
    std::map<Key, Tracked, KeyLess> rates;       // one per quota entity
    Clock::time_point last_sweep{};
  };

  Tracked* find(Kind& k, QuotaKind kind, std::string_view user, std::string_view client_id, Clock::time_point now);
  void sweep(Kind& k, Clock::time_point now);
  static std::string_view key_name(QuotaKind kind);

  std::shared_ptr<const ClientQuotaStore> store_;
  QuotaWindow window_;
  std::array<Kind, 3> kinds_;
  // enabled(): per kind, the store generation it was computed at (+1; 0:
  // never) and whether the store then set that kind's key.
  mutable std::array<std::atomic<uint64_t>, 3> enabled_at_{};
  mutable std::array<std::atomic<bool>, 3> enabled_{};
};

}  // namespace skiff::api::quota
