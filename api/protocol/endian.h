// Big-endian conversion for the wire's fixed-width integers.
#pragma once

#include <bit>
#include <cstdint>

namespace skiff::protocol {

template <class T>
inline T byte_swap(T v) {
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  } else {
    return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
}

// Converts between host order and big-endian (the operation is symmetric).
template <class T>
inline T from_big_endian(T v) {
  if constexpr (std::endian::native == std::endian::little) return byte_swap(v);
  return v;
}
template <class T>
inline T to_big_endian(T v) {
  return from_big_endian(v);
}

}  // namespace skiff::protocol
