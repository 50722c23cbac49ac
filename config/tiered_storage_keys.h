// Tiered storage's broker keys (issue 54; values in
// config/tiered_storage_settings.h): their rows of the one key table
// (add_tiered_storage_keys, config/config_def.h) and the start-up checks
// Kafka 4.4 makes of them, in Kafka's and Aiven's words where they have
// words for it. Called by the loader (startup, one thread) and by tests.
#pragma once

#include <map>
#include <string>

#include "config/broker_config.h"
#include "config/tiered_storage_settings.h"

namespace skiff::config {

// With remote.log.storage.system.enable=true: the plugin class names and
// prefixes Skiff serves, Aiven's required keys (storage.backend.class,
// storage.s3.bucket.name, storage.s3.region), the credentials (the keys, or
// AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY in `environment`), the features
// Skiff does not do refused (encryption, Iceberg, another storage class,
// certificate checks off), and Kafka's LogConfig.validateBrokerLogConfigValues
// (log.local.retention.* within log.retention.*). Throws ConfigError; adds
// warnings (compression not done, the endpoint derived from the region, a
// metadata topic replication factor above 1). Without the system enabled:
// nothing (as Kafka, which reads the plugins' keys only when it starts them).
void check_tiered_storage(BrokerConfig& cfg, const std::map<std::string, std::string>& environment);

// The settings from server properties (key -> value, as in a Kafka
// server.properties; keys outside the tiered storage rows and
// log.retention.{ms,bytes} are ignored), checked by check_tiered_storage.
// Throws ConfigError naming the key. For tools and tests; the broker gets
// them from load_config (BrokerConfig::tiered_storage).
TieredStorageSettings tiered_storage_from_properties(const std::map<std::string, std::string>& properties,
                                                     const std::map<std::string, std::string>& environment);

}  // namespace skiff::config
