// KIP-714's client-metrics subscriptions: the CLIENT_METRICS config
// resources (ConfigResource type 16), as Kafka's ClientMetricsConfigs defines
// them. A subscription is a name and up to three keys:
//   metrics      LIST  metric-name prefixes the matching clients push; empty:
//                      none, "*": all (default empty)
//   interval.ms  INT   push interval, 100..3600000 (default 300000)
//   match        LIST  client selectors "<selector>=<regex>", every one must
//                      match the whole attribute (default: every client);
//                      selectors client_instance_id, client_id,
//                      client_software_name, client_software_version,
//                      client_source_address, client_source_port
// Regexes are RE2 (protocol/name_pattern.h): Kafka compiles them with
// java.util.regex, whose syntax is a superset (no backreferences here).
//
// SubscriptionStore keeps them durable in the "client-metrics" namespace of
// the metadata store (metadata/metadata_store.h), one record per
// subscription, version 1 (integers big-endian, strings int32-length-prefixed):
//   name string | entry count uint32 | (key string | value string)*
// and publishes a change in memory only after it is stored.
//
// Threads: SubscriptionStore is thread-safe (a mutex for writers, a snapshot
// pointer for readers); the free functions are pure.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metadata/metadata_store.h"
#include "protocol/error_codes.h"
#include "protocol/name_pattern.h"

namespace skiff::api::telemetry {

using ConfigMap = std::map<std::string, std::string>;

inline constexpr std::string_view kMetricsKey = "metrics";
inline constexpr std::string_view kIntervalKey = "interval.ms";
inline constexpr std::string_view kMatchKey = "match";
inline constexpr std::string_view kAllMetrics = "*";
inline constexpr int32_t kDefaultIntervalMs = 5 * 60 * 1000;
inline constexpr int32_t kMinIntervalMs = 100;
inline constexpr int32_t kMaxIntervalMs = 3600000;

// What a client is matched on (ClientMetricsInstanceMetadata); an attribute
// the broker does not know is nullopt and matches no selector.
struct ClientAttributes {
  std::optional<std::string> client_instance_id;
  std::optional<std::string> client_id;
  std::optional<std::string> software_name;
  std::optional<std::string> software_version;
  std::optional<std::string> source_address;
  std::optional<std::string> source_port;
  const std::optional<std::string>* find(std::string_view selector) const;
};

struct Subscription {
  std::string name;
  std::vector<std::string> metrics;
  int32_t interval_ms = kDefaultIntervalMs;
  std::vector<std::pair<std::string, std::shared_ptr<const protocol::NamePattern>>> match;
  bool matches(const ClientAttributes& client) const;
};

struct Refusal {
  ErrorCode error = ErrorCode::kNone;
  std::string message;
};

// Kafka's ConfigDef LIST parsing: split on ',', items trimmed, "" is empty.
std::vector<std::string> parse_list(std::string_view value);
// ClientMetricsConfigs.validate: nullopt when `configs` may be stored under
// `name`; else Kafka's error (INVALID_REQUEST or INVALID_CONFIG) and message.
std::optional<Refusal> validate(const std::string& name, const ConfigMap& configs);
// The subscription of validated configs.
Subscription parse_subscription(const std::string& name, const ConfigMap& configs);

class SubscriptionStore {
 public:
  using Snapshot = std::shared_ptr<const std::vector<Subscription>>;

  // Null namespace: in memory only (tests). Throws metadata::Failure if the
  // stored subscriptions are corrupt.
  explicit SubscriptionStore(metadata::Namespace* ns);

  // Names, sorted.
  std::vector<std::string> names() const;
  // The stored configs of one subscription; nullopt if it does not exist.
  std::optional<ConfigMap> configs(const std::string& name) const;
  // Stores `configs` (already validated) under `name`; empty configs delete
  // the subscription. Returns 0, or the errno of the failed write (then
  // nothing changed).
  int put(const std::string& name, const ConfigMap& configs);
  // The parsed subscriptions and a version that changes with every put.
  Snapshot snapshot() const;
  uint64_t version() const;

  static std::vector<std::string> encode(const std::map<std::string, ConfigMap>& all);
  static std::map<std::string, ConfigMap> decode(const std::vector<std::string>& records);

 private:
  void publish(std::map<std::string, ConfigMap> next);  // mu_ held

  metadata::Namespace* ns_;
  mutable std::mutex mu_;
  std::mutex write_mu_;
  std::map<std::string, ConfigMap> configs_;
  Snapshot parsed_;
  uint64_t version_ = 0;
};

}  // namespace skiff::api::telemetry
