// The table of every configuration key Skiff accepts: its name (Kafka's own),
// type, default, allowed values and where it lands in BrokerConfig.
// Keys not in this table are rejected.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "config/broker_config.h"

namespace skiff::config {

// Kafka's INT and LONG maxima: the upper bound of most keys' ranges.
inline constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();

// kPassword: a secret (passwords, inline private keys): never printed or described.
enum class ConfigType { kInt, kLong, kBool, kString, kList, kDouble, kPassword };

struct ConfigKeyDef {
  std::string name;
  ConfigType type;
  std::string default_value;  // as text; parsed by the same path as user values
  std::string doc;
  // Parses `value` and stores it in `cfg`; throws std::invalid_argument with a
  // sentence saying what is allowed.
  std::function<void(BrokerConfig& cfg, const std::string& value)> apply;
  std::string allowed;  // human-readable, e.g. "[1, 1024]"
  // Changeable at runtime through AlterConfigs (config/dynamic_broker_config.h),
  // as Kafka marks it and as Skiff applies it live.
  bool dynamic = false;
  // A dynamic key Kafka 4.4 accepts whose feature Skiff lacks (or applies only
  // at startup): validated, stored and described, but not applied
  // (config/kafka_dynamic_keys.cc).
  bool no_effect = false;
};

const std::vector<ConfigKeyDef>& config_defs();
// The authorizer's rows (config/authorizer_keys.cc), part of config_defs().
void add_authorizer_keys(std::vector<ConfigKeyDef>& defs);
// The SCRAM rows (config/scram_config_def.cc): scram.bootstrap.users.
void add_scram_keys(std::vector<ConfigKeyDef>& defs);
// The REST proxy's rows (config/rest_proxy_config_def.cc): rest.proxy.*.
void add_rest_proxy_keys(std::vector<ConfigKeyDef>& defs);
// scram.bootstrap.users' value; throws std::invalid_argument (never naming a password).
std::vector<ScramBootstrapUser> parse_scram_bootstrap_users(std::string_view value);
const ConfigKeyDef* find_config_def(std::string_view name);

// Kafka's per-listener form of a key, "listener.name.<name>.<key>" (the
// ssl.* keys, the SASL keys of a listener): the key's definition and the listener name as written
// (Kafka writes it lower-cased); null for any other key.
const ConfigKeyDef* find_listener_config_def(std::string_view name, std::string* listener);
// Every key that may be given per listener (config/listener_keys.cc).
const std::vector<const ConfigKeyDef*>& listener_config_defs();

// An integer in [lo, hi]; throws std::invalid_argument saying so.
int64_t parse_integer(const std::string& value, int64_t lo, int64_t hi);

// A key whose value is one of `allowed` (matched ignoring case), handed to
// `store` in its canonical spelling; anything else is refused naming them.
ConfigKeyDef one_of_key(std::string name, std::string def, const std::vector<std::string>& allowed, std::string doc,
                        const std::function<void(BrokerConfig&, const std::string&)>& store);

// The group.streams.* keys (config/streams_group_keys.cc), added to the one table.
void add_streams_group_keys(std::vector<ConfigKeyDef>& defs);
// The ssl.* keys (config/ssl_config_def.cc), added to the one table.
void add_ssl_keys(std::vector<ConfigKeyDef>& defs);
// The SASL keys (config/sasl_config_def.cc): sasl.*, connections.max.reauth.ms
// and the authentication limits, added to the one table.
void add_sasl_keys(std::vector<ConfigKeyDef>& defs);
// Keys that exist only per listener, "listener.name.<name>.<key>": Kafka's
// <mechanism>.sasl.jaas.config (config/sasl_config_def.cc).
const std::vector<ConfigKeyDef>& listener_only_config_defs();

// Kafka 4.4's dynamic broker keys (config/kafka_dynamic_keys.cc): marks the
// ones Skiff defines but does not apply live dynamic + no_effect, and adds
// rows for the ones Skiff lacks.
void add_kafka_dynamic_keys(std::vector<ConfigKeyDef>& defs);
// Kafka's per-broker-only dynamic keys (DynamicBrokerConfig.PER_BROKER_CONFIGS
// and listener.name.* but for three): refused at the cluster default.
bool per_broker_only(std::string_view key);
// Kafka's DYNAMIC_SECURITY_CONFIGS: dynamic only as listener.name.<l>.<key>.
bool listener_prefix_only(std::string_view key);

// Kafka's ConfigDef parse of a LONG/INT/SHORT (`type` names it; [type_lo,
// type_hi] its range) then Range.ensureValid([lo, hi]), in Kafka's words
// ("Not a number of type LONG", "Value must be at least 1"); and of a DOUBLE.
// Throw std::invalid_argument (config/kafka_dynamic_keys.cc).
int64_t kafka_integer(const std::string& value, const char* type, int64_t type_lo, int64_t type_hi, int64_t lo,
                      int64_t hi);
double kafka_double(const std::string& value, double lo, double hi);

// Tiered storage's rows (config/tiered_storage_keys.cc): Kafka's
// RemoteLogManagerConfig keys, Aiven's storage manager keys under rsm.config.
// and the metadata manager's under rlmm.config.
void add_tiered_storage_keys(std::vector<ConfigKeyDef>& defs);

// "advertised.listeners" -> "SKIFF_ADVERTISED_LISTENERS"
std::string env_var_name(std::string_view key);

}  // namespace skiff::config
