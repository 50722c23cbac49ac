// `skiff --healthcheck [HOST:PORT]`: a readiness probe that needs no Kafka
// client (the container image's HEALTHCHECK). It connects to the broker,
// sends an ApiVersions request and succeeds only on a well-formed answer with
// no error. On an SSL or SASL_SSL listener it does a TLS handshake first
// (server/health_probe_tls.cc; the certificate is not verified: it probes its
// own broker). ApiVersions needs no SASL authentication, so SASL listeners
// need nothing more. The broker binds its listeners only after the logs are loaded, so
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
  // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL: TLS for the last two.
  std::string security_protocol = "PLAINTEXT";
  bool tls() const { return security_protocol == "SSL" || security_protocol == "SASL_SSL"; }
};

struct HealthResult {
  bool healthy = false;
  std::string message;  // what was answered, or why it failed
};

// "host:port" or "[v6]:port", optionally after a security protocol
// ("SSL://host:port"; PLAINTEXT without one). Throws std::invalid_argument.
HealthTarget parse_health_target(const std::string& text);

// Where to probe a broker running with this configuration: its first
// listener that is not a controller listener (controller.listener.names), with a wildcard host replaced by loopback,
// and its security protocol from listener.security.protocol.map. Throws std::invalid_argument when that listener's port
// is 0 (not knowable).
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
