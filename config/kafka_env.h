// The apache/kafka image's configuration conventions, read from the
// environment by the loader (config/config_loader.cc) beside SKIFF_*:
//
//   - KAFKA_<KEY>: a broker key by Kafka's docker rule (KafkaDockerWrapper):
//     strip KAFKA_, lower-case, then '_' -> '.', "..." -> '-', ".." -> '_';
//     so '.' is written '_', '_' is '__' and '-' is '___'. The JVM's
//     variables (KAFKA_HEAP_OPTS, KAFKA_OPTS, ...) are not keys.
//   - KAFKA_LISTENERS, when unset (and SKIFF_LISTENERS too), derived from
//     KAFKA_ADVERTISED_LISTENERS with every host 0.0.0.0 (Kafka's configure).
//   - CLUSTER_ID: the cluster id fresh log dirs get (kafka-storage format's).
//   - TLS material under a secrets directory (/etc/kafka/secrets):
//     KAFKA_SSL_KEYSTORE_FILENAME and KAFKA_SSL_TRUSTSTORE_FILENAME name files
//     there (ssl.keystore.location, ssl.truststore.location; PEM files here),
//     KAFKA_SSL_KEY_CREDENTIALS a file holding ssl.key.password.
//     KAFKA_SSL_KEYSTORE_CREDENTIALS and _TRUSTSTORE_CREDENTIALS hold store
//     passwords, which PEM files do not have: ignored with a warning.
//
// Pure functions of the environment (and of the credential files read); the
// loader calls them once at startup.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::config {

inline constexpr std::string_view kKafkaSecretsDir = "/etc/kafka/secrets";

// "KAFKA_LOG_RETENTION_HOURS" -> "log.retention.hours"; nullopt for a name
// that is not KAFKA_*, or one of the image's own (KAFKA_HEAP_OPTS, ...).
std::optional<std::string> kafka_env_key(std::string_view var);
// The inverse: "log.retention.hours" -> "KAFKA_LOG_RETENTION_HOURS".
std::string kafka_env_var_name(std::string_view key);

struct KafkaEnvironment {
  std::map<std::string, std::string> keys;  // broker key -> value
  std::string cluster_id;                   // CLUSTER_ID, checked
  std::vector<std::string> warnings;
};

// Reads the conventions above from `env`. Throws std::invalid_argument for
// bad input: a malformed CLUSTER_ID, a credentials file that cannot be read,
// KAFKA_ADVERTISED_LISTENERS that cannot be parsed for deriving listeners.
KafkaEnvironment read_kafka_environment(const std::map<std::string, std::string>& env,
                                        std::string_view secrets_dir = kKafkaSecretsDir);

}  // namespace skiff::config
