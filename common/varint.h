// Kafka's variable-length integers, the one copy for the whole broker:
// unsigned varints (LEB128: 7 bits a byte, low group first, high bit = more
// follows), used by the protocol's flexible versions for lengths and tags,
// and zig-zag signed varints (protobuf style), used inside records (log/) and
// by the protocol's varint/varlong fields.
// Header-only, dependency-free; pure functions, safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace skiff {

// Longest encodings of a 32-bit and of a 64-bit value.
inline constexpr int kMaxVarint32Bytes = 5;
inline constexpr int kMaxVarint64Bytes = 10;

constexpr uint64_t zigzag_encode(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
constexpr int64_t zigzag_decode(uint64_t raw) {
  return static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
}
constexpr uint32_t zigzag_encode32(int32_t v) {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
constexpr int32_t zigzag_decode32(uint32_t raw) {
  return static_cast<int32_t>(raw >> 1) ^ -static_cast<int32_t>(raw & 1);
}

// Bytes the unsigned varint encoding of v takes.
constexpr size_t uvarint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Writes v as an unsigned varint at `out`, which has room for
// kMaxVarint64Bytes; returns the bytes written.
inline size_t put_uvarint(uint8_t* out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  out[n++] = static_cast<uint8_t>(v);
  return n;
}

enum class VarintStatus {
  kOk,
  kTruncated,  // the input ends inside the varint
  kOverflow,   // longer than max_bytes, or bits beyond the value's width
};

// Reads an unsigned varint of at most `max_bytes` bytes (kMaxVarint32Bytes
// for a 32-bit value, kMaxVarint64Bytes for 64-bit) from [p, end). The last
// byte may carry only the value's top bits (4 of 32, 1 of 64): anything more
// is kOverflow, not silently dropped. On kOk, `out` holds the value and p points past
// it; otherwise neither is changed.
inline VarintStatus decode_uvarint(const uint8_t*& p, const uint8_t* end, uint64_t& out, int max_bytes) {
  // Varints are nearly all one or two bytes (record deltas and lengths,
  // compact lengths): no loop for those.
  if (end - p >= 2 && (p[0] < 0x80 || p[1] < 0x80)) {
    const bool one = p[0] < 0x80;
    out = one ? p[0] : (p[0] & 0x7Fu) | (static_cast<uint64_t>(p[1]) << 7);
    p += one ? 1 : 2;
    return VarintStatus::kOk;
  }
  const int width = max_bytes <= kMaxVarint32Bytes ? 32 : 64;
  const int last_bits = width - 7 * (max_bytes - 1);
  uint64_t raw = 0;
  const uint8_t* q = p;
  for (int i = 0; i < max_bytes; ++i) {
    if (q >= end) return VarintStatus::kTruncated;
    const uint8_t b = *q++;
    if (i == max_bytes - 1 && (b >> last_bits) != 0) return VarintStatus::kOverflow;
    raw |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) {
      out = raw;
      p = q;
      return VarintStatus::kOk;
    }
  }
  return VarintStatus::kOverflow;  // only reached with max_bytes < 1
}

// Zig-zag varints as records carry them; false on truncation or overflow.
inline bool read_varint32(const uint8_t*& p, const uint8_t* end, int32_t& out) {
  uint64_t raw;
  if (decode_uvarint(p, end, raw, kMaxVarint32Bytes) != VarintStatus::kOk) return false;
  out = zigzag_decode32(static_cast<uint32_t>(raw));
  return true;
}

inline bool read_varint64(const uint8_t*& p, const uint8_t* end, int64_t& out) {
  uint64_t raw;
  if (decode_uvarint(p, end, raw, kMaxVarint64Bytes) != VarintStatus::kOk) return false;
  out = zigzag_decode(raw);
  return true;
}

inline void write_zigzag(std::vector<uint8_t>& out, int64_t v) {
  uint8_t tmp[kMaxVarint64Bytes];
  out.insert(out.end(), tmp, tmp + put_uvarint(tmp, zigzag_encode(v)));
}

inline size_t zigzag_size(int64_t v) { return uvarint_size(zigzag_encode(v)); }

}  // namespace skiff
