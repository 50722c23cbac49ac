// Wall-clock time in milliseconds since the epoch, as Kafka's protocol
// carries timestamps. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>

namespace skiff {

inline int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace skiff
