// `skiff --healthcheck [HOST:PORT]`: a readiness probe that needs no Kafka
// client (the container image's HEALTHCHECK). It connects to the broker,
// sends an ApiVersions request and succeeds only on a well-formed answer with
// no error. The broker binds its listeners only after the logs are loaded, so
// an answer means: listening and logs loaded.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "config/broker_config.h"
#include "server/command_line.h"

namespace skiff::server {

struct HealthTarget {
  std::string host;  // a name or an address, IPv6 without brackets
  uint16_t port = 0;
};

struct HealthResult {
  bool healthy = false;
  std::string message;  // what was answered, or why it failed
};

// "host:port" or "[v6]:port". Throws std::invalid_argument.
HealthTarget parse_health_target(const std::string& text);

// Where to probe a broker running with this configuration: its first
// listener, with a wildcard host replaced by loopback. Throws
// std::invalid_argument when that listener's port is 0 (not knowable).
HealthTarget health_target_for(const config::BrokerConfig& config);

// One ApiVersions round trip, bounded by `timeout` in total.
HealthResult check_health(const HealthTarget& target, std::chrono::milliseconds timeout);

// The --healthcheck mode of the binary: the target is the option's value, or
// else derived from the configuration (file, SKIFF_* environment,
// --override), so the same SKIFF_LISTENERS that moved the broker moves the
// probe. Prints one line; returns 0 if healthy, 1 otherwise (Docker's
// HEALTHCHECK convention).
int run_health_check(const CommandLine& cl);

}  // namespace skiff::server
