// Big-endian loads and stores for Kafka's wire and on-disk formats (every
// fixed-width integer Kafka writes is big-endian). The one copy for the whole
// broker: log/, protocol/, network/ and server/ all use these.
// Header-only, dependency-free; pure functions, safe from any thread.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace skiff {

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

// Between host order and big-endian (the operation is symmetric).
template <class T>
inline T from_big_endian(T v) {
  if constexpr (std::endian::native == std::endian::little) return byte_swap(v);
  return v;
}
template <class T>
inline T to_big_endian(T v) {
  return from_big_endian(v);
}

template <class T>
inline T load_be(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return from_big_endian(v);
}
template <class T>
inline void store_be(uint8_t* p, T v) {
  v = to_big_endian(v);
  std::memcpy(p, &v, sizeof v);
}

inline uint16_t load_be16(const uint8_t* p) { return load_be<uint16_t>(p); }
inline uint32_t load_be32(const uint8_t* p) { return load_be<uint32_t>(p); }
inline uint64_t load_be64(const uint8_t* p) { return load_be<uint64_t>(p); }
inline void store_be16(uint8_t* p, uint16_t v) { store_be(p, v); }
inline void store_be32(uint8_t* p, uint32_t v) { store_be(p, v); }
inline void store_be64(uint8_t* p, uint64_t v) { store_be(p, v); }

}  // namespace skiff
