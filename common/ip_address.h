// The canonical text of an IP address literal, so that one address is one
// key wherever addresses are compared (connection limits per IP, ip quota
// entities): "::ffff:127.0.0.1" is "127.0.0.1", "[::1]" and "0:0::1" are
// "::1". Host names are not resolved. Thread-safe (no state).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace skiff {

// Brackets around an IPv6 literal are allowed (as Java's
// InetAddress.getByName); an IPv4-mapped IPv6 address is its IPv4 address.
// Nullopt when `text` is not an IP literal.
std::optional<std::string> canonical_ip(std::string_view text);

}  // namespace skiff
