// Uuid: Kafka's 128-bit id (topic ids, cluster ids), shown as URL-safe
// base64 without padding (22 chars), like org.apache.kafka.common.Uuid.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::storage {

struct Uuid {
  std::array<uint8_t, 16> bytes{};
  static Uuid random();  // never zero, never starts with '-' in base64 (Kafka's rule)
  static std::optional<Uuid> parse(std::string_view base64);
  std::string to_string() const;
  bool is_zero() const;
  auto operator<=>(const Uuid&) const = default;
};

}  // namespace skiff::storage
