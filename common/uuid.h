// Uuid: Kafka's 128-bit id (topic ids, cluster ids, directory ids), the one
// type for the whole broker: log/ stores it (partition.metadata, topic store),
// the protocol codec reads and writes its 16 bytes as they are. Shown as
// URL-safe base64 without padding (22 chars), like
// org.apache.kafka.common.Uuid; all zero is "no id".
// Header-only, dependency-free. Values are plain data; random() uses a
// thread-local generator, so any thread may call everything here.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace skiff {

struct Uuid {
  std::array<uint8_t, 16> bytes{};

  static Uuid random();  // version 4; never zero, never starts with '-' in base64 (Kafka's rule)
  static std::optional<Uuid> parse(std::string_view base64);
  std::string to_string() const;
  bool is_zero() const { return *this == Uuid{}; }
  auto operator<=>(const Uuid&) const = default;
};

namespace uuid_detail {

inline constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

inline int decode_char(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

}  // namespace uuid_detail

inline Uuid Uuid::random() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  while (true) {
    Uuid u;
    for (int i = 0; i < 2; ++i) {
      const uint64_t v = rng();
      for (int b = 0; b < 8; ++b) u.bytes[i * 8 + b] = static_cast<uint8_t>(v >> (8 * b));
    }
    u.bytes[6] = static_cast<uint8_t>((u.bytes[6] & 0x0F) | 0x40);  // version 4
    u.bytes[8] = static_cast<uint8_t>((u.bytes[8] & 0x3F) | 0x80);  // IETF variant
    if (!u.is_zero() && u.to_string()[0] != '-') return u;
  }
}

inline std::string Uuid::to_string() const {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      out.push_back(uuid_detail::kAlphabet[(acc >> (bits - 6)) & 0x3F]);
      bits -= 6;
    }
  }
  if (bits > 0) out.push_back(uuid_detail::kAlphabet[(acc << (6 - bits)) & 0x3F]);
  return out;  // 22 chars
}

inline std::optional<Uuid> Uuid::parse(std::string_view s) {
  if (s.size() != 22) return std::nullopt;
  Uuid u;
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (char c : s) {
    const int v = uuid_detail::decode_char(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      if (n < 16) u.bytes[n++] = static_cast<uint8_t>(acc >> (bits - 8));
      bits -= 8;
    }
  }
  if (n != 16) return std::nullopt;
  return u;
}

}  // namespace skiff
