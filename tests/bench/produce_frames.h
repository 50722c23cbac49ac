// What skiff_produce_load and skiff_null_responder agree on about the frames
// between them: the Produce version the load sends, where a request's
// correlation id lies, and how a byte stream splits into whole frames.
// Header-only. Byte layout of a request frame: size(4) api_key(2)
// api_version(2) correlation_id(4) ...; of a response frame: size(4)
// correlation_id(4) ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/byte_order.h"

namespace skiff::bench {

inline constexpr int16_t kProduceVersion = 9;
inline constexpr size_t kRequestCorrelationAt = 8;
inline constexpr size_t kResponseCorrelationAt = 4;

// The size (prefix included) of the whole frame at `at` of `in`; 0 while it
// has not all arrived.
inline size_t whole_frame_at(const std::vector<uint8_t>& in, size_t at) {
  if (in.size() - at < 4) return 0;
  const size_t size = 4 + size_t(load_be32(in.data() + at));
  return in.size() - at >= size ? size : 0;
}

}  // namespace skiff::bench
