// Zig-zag varints (protobuf style) as used inside Kafka records.
// Pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace skiff::storage {

// Reads a zig-zag varint of at most `max_bytes` bytes (5 for int32, 10 for
// int64) from [*p, end). Returns false on truncation or overlong encoding.
inline bool read_zigzag(const uint8_t*& p, const uint8_t* end, int64_t& out, int max_bytes) {
  // Varints inside records (deltas, lengths) are nearly all one or two
  // bytes: no loop for those.
  if (end - p >= 2 && max_bytes >= 2 && (p[0] < 0x80 || p[1] < 0x80)) {
    const uint64_t raw = p[0] < 0x80 ? p[0] : (p[0] & 0x7Fu) | (uint64_t(p[1]) << 7);
    p += p[0] < 0x80 ? 1 : 2;
    out = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
    return true;
  }
  uint64_t raw = 0;
  int shift = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p >= end) return false;
    uint8_t b = *p++;
    raw |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      out = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
      return true;
    }
    shift += 7;
  }
  return false;
}

inline bool read_varint32(const uint8_t*& p, const uint8_t* end, int32_t& out) {
  int64_t v;
  if (!read_zigzag(p, end, v, 5) || v < INT32_MIN || v > INT32_MAX) return false;
  out = static_cast<int32_t>(v);
  return true;
}

inline bool read_varint64(const uint8_t*& p, const uint8_t* end, int64_t& out) {
  return read_zigzag(p, end, out, 10);
}

inline void write_zigzag(std::vector<uint8_t>& out, int64_t v) {
  uint64_t raw = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (raw >= 0x80) {
    out.push_back(static_cast<uint8_t>(raw | 0x80));
    raw >>= 7;
  }
  out.push_back(static_cast<uint8_t>(raw));
}

inline size_t zigzag_size(int64_t v) {
  uint64_t raw = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  size_t n = 1;
  while (raw >= 0x80) {
    raw >>= 7;
    ++n;
  }
  return n;
}

}  // namespace skiff::storage
