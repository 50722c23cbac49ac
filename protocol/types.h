// Small value types shared by every generated message.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "common/uuid.h"

namespace skiff::protocol {

// Kafka's 16-byte UUID (topic ids, directory ids): the broker's one Uuid,
// read and written as its 16 bytes.
using skiff::Uuid;

// A tagged field this build does not know, kept verbatim so that decoding and
// re-encoding a message from a newer peer loses nothing.
struct RawTaggedField {
  uint32_t tag = 0;
  std::vector<uint8_t> data;
  bool operator==(const RawTaggedField&) const = default;
};

using TaggedFields = std::vector<RawTaggedField>;

// Equality of two float64 fields as the wire sees them: bit for bit, so a
// NaN equals itself and -0.0 differs from 0.0 (a decoded message compares
// equal to the one encoded). Generated operator== uses it for float64.
inline bool same_float64(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

}  // namespace skiff::protocol
