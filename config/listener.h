// Listener endpoints: "NAME://host:port" as in Kafka's `listeners` and
// `advertised.listeners`. Pure parsing; binding happens in network/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::config {

struct Listener {
  std::string name;   // listener name, e.g. "PLAINTEXT"
  std::string host;   // "" means every interface; IPv6 without brackets
  uint16_t port = 0;  // 0 asks the OS for a free port (tests)

  // "NAME://host:port", with IPv6 hosts bracketed.
  std::string to_string() const;
  bool operator==(const Listener&) const = default;
};

// Parses one endpoint. Throws std::invalid_argument with a reason on error.
Listener parse_listener(std::string_view text);

// Parses a comma-separated list; listener names must be unique.
std::vector<Listener> parse_listener_list(std::string_view text);

// http.listeners and schema.registry.listeners: comma-separated
// http://host:port or https://host:port (the scheme in any case, stored
// lower-cased as the name: "http" or "https"); empty: none. Throws
// std::invalid_argument.
std::vector<Listener> parse_http_listener_list(std::string_view text);

// Whether an endpoint of parse_http_listener_list() is https:// (served
// with TLS).
inline bool is_https(const Listener& endpoint) { return endpoint.name == "https"; }

}  // namespace skiff::config
