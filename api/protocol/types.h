// Small value types shared by every generated message.
#pragma once

#include <array>
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

}  // namespace skiff::protocol
