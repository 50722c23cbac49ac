// ConfigLoader: resolves the effective BrokerConfig from its four sources,
// lowest precedence first: defaults < config file (YAML, or Kafka's
// .properties) < environment (KAFKA_* by the apache/kafka image's rules,
// config/kafka_env.h, then SKIFF_*) < command line (--override key=value). Everything is validated before the
// broker starts; any problem is a ConfigError naming the key, the value and
// what is allowed (the binary exits 2 on it).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/broker_config.h"
#include "config/kafka_env.h"

namespace skiff::config {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ConfigSources {
  std::optional<std::string> file;                 // path of the YAML file
  std::map<std::string, std::string> environment;  // whole environment; SKIFF_*, KAFKA_*, CLUSTER_ID are read
  std::vector<std::string> overrides;              // "key=value", in order
  // Where KAFKA_SSL_*_FILENAME and _CREDENTIALS name their files.
  std::string kafka_secrets_dir{kKafkaSecretsDir};
};

BrokerConfig load_config(const ConfigSources& sources);

// The process environment as a map (for ConfigSources::environment).
std::map<std::string, std::string> process_environment();

// "key = value  (source)" lines for --print-config.
std::string describe_config(const BrokerConfig& config);

}  // namespace skiff::config
