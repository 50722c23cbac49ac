// DynamicBrokerConfig: broker configs changed at runtime (Kafka's KIP-226),
// layered over the static configuration as Kafka does:
//   per-broker dynamic > cluster-default dynamic > static (file/env/--override) > default.
// Only keys whose row in config_def.cc is marked `dynamic` may be set (and
// their listener.name.<l>. forms); each value is validated by that row's own
// parser, as at startup. Rows marked no_effect (and listener-prefixed keys)
// are validated, stored and described but leave the broker as it is.
//
// A change is: validated (parse, then every listener's check), persisted
// through the `persist` callback (the server stores the values crash-safely
// in the metadata store, server/dynamic_config_wiring.h), published as a new
// snapshot, then handed to every listener to apply (log defaults, connection
// quotas). config/ does no I/O itself.
//
// Threads: every method is thread-safe; alter() calls are serialised and run
// the listeners on the caller's thread. current() is a cheap snapshot.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/broker_config.h"
#include "config/config_def.h"

namespace skiff::config {

enum class DynamicScope { kBroker, kDefault };

struct DynamicValues {
  std::map<std::string, std::string> broker;   // this node's per-broker values
  std::map<std::string, std::string> cluster;  // the cluster default ("")
};

struct DynamicError {
  enum Kind { kInvalidConfig, kInvalidRequest, kStorage } kind = kInvalidConfig;
  std::string message;  // Kafka's wording, naming the key
};

class DynamicBrokerConfig {
 public:
  // Checks (apply=false) or applies (apply=true) a new effective config;
  // returns an error message, empty when fine. Apply must not fail.
  using Listener = std::function<std::string(const BrokerConfig& next, bool apply)>;
  // Stores the values durably; returns an error message, empty when fine.
  using Persist = std::function<std::string(const DynamicValues& values)>;

  explicit DynamicBrokerConfig(BrokerConfig static_config);

  // Loads values persisted earlier (startup). Values that are no longer valid
  // are dropped, each with a line in the returned warnings.
  std::vector<std::string> load(const DynamicValues& stored);
  void set_persist(Persist p);
  void add_listener(Listener l);

  // Replaces every value of `scope` with `values`.
  std::optional<DynamicError> alter(DynamicScope scope, const std::map<std::string, std::string>& values,
                                    bool validate_only);

  std::shared_ptr<const BrokerConfig> current() const;
  const BrokerConfig& static_config() const { return static_; }
  DynamicValues values() const;

 private:
  // The static config with `v` layered on; nullopt + error on a bad value.
  std::optional<DynamicError> build(const DynamicValues& v, BrokerConfig& out) const;

  const BrokerConfig static_;
  mutable std::mutex mu_;  // guards values_, current_, listeners_, persist_
  std::mutex alter_mu_;    // serialises alter()
  DynamicValues values_;
  std::shared_ptr<const BrokerConfig> current_;
  std::vector<Listener> listeners_;
  Persist persist_;
};

// The row a dynamic key is validated with: its own, or for
// listener.name.<l>.<key> the base key's. Null when the key is not dynamic.
const ConfigKeyDef* dynamic_key_def(std::string_view key);

// A key Kafka 4.4 does not define (a plugin's, or listener.name.<l>.<key>
// with no per-listener or dynamic row): Kafka stores it dynamically as given,
// so does Skiff (no effect). Kafka's other keys, and Skiff's own static ones,
// are refused (config/kafka_non_dynamic_keys.inc, recorded from Kafka).
bool custom_dynamic_key(std::string_view key);

// Kafka's refusal of a key that cannot change at runtime, then of a security
// key without its listener prefix (checked first). Dynamic keys: the rows
// marked dynamic, and listener.name.<l>.<key> for a key Skiff takes per
// listener or a dynamic one (stored and described, not applied).
std::optional<DynamicError> check_dynamic_keys(const std::map<std::string, std::string>& values);
// Kafka's refusal of a per-broker-only key at the cluster default
// (config::per_broker_only), checked after the values are validated.
std::optional<DynamicError> check_scope(const std::map<std::string, std::string>& values, DynamicScope scope);

}  // namespace skiff::config
