#include "log/offset_map.h"

#include <algorithm>

namespace skiff::storage {
namespace {

// 64-bit FNV-1a variant followed by a strong finaliser (splitmix64), seeded:
// two seeds give two independent hashes.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t hash_key(std::span<const uint8_t> key, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ULL ^ mix(seed);
  for (uint8_t b : key) h = (h ^ b) * 0x100000001b3ULL;
  return mix(h ^ key.size());
}

}  // namespace

OffsetMap::OffsetMap(size_t memory_bytes, double load_factor) : slots_(std::max<size_t>(1, memory_bytes / kSlotBytes)) {
  max_entries_ = std::max<size_t>(1, static_cast<size_t>(static_cast<double>(slots_.size()) * load_factor));
  max_entries_ = std::min(max_entries_, slots_.size());
}

size_t OffsetMap::find(uint64_t h1, uint64_t h2) const {
  const size_t n = slots_.size();
  size_t i = h1 % n;
  const size_t step = 1 + h2 % (n > 1 ? n - 1 : 1);  // double hashing: probes differ per key
  for (size_t probes = 0; probes < n; ++probes) {
    const Slot& s = slots_[i];
    if ((s.h1 == 0 && s.h2 == 0) || (s.h1 == h1 && s.h2 == h2)) return i;
    i = (i + step) % n;
  }
  // Step and n may share a factor: fall back to a linear scan.
  for (size_t j = 0; j < n; ++j) {
    const Slot& s = slots_[j];
    if ((s.h1 == 0 && s.h2 == 0) || (s.h1 == h1 && s.h2 == h2)) return j;
  }
  return n;
}

bool OffsetMap::put(std::span<const uint8_t> key, int64_t offset) {
  const uint64_t h1 = hash_key(key, 1), h2 = hash_key(key, 2) | 1;  // h2 odd: never the empty pair
  size_t i = find(h1, h2);
  if (i == slots_.size()) return false;
  Slot& s = slots_[i];
  if (s.h1 != h1 || s.h2 != h2) {
    if (full()) return false;
    s.h1 = h1;
    s.h2 = h2;
    ++entries_;
  }
  s.offset = offset;
  latest_ = std::max(latest_, offset);
  return true;
}

int64_t OffsetMap::get(std::span<const uint8_t> key) const {
  const uint64_t h1 = hash_key(key, 1), h2 = hash_key(key, 2) | 1;
  size_t i = find(h1, h2);
  if (i == slots_.size() || slots_[i].h1 != h1 || slots_[i].h2 != h2) return -1;
  return slots_[i].offset;
}

void OffsetMap::clear() {
  std::fill(slots_.begin(), slots_.end(), Slot{});
  entries_ = 0;
  latest_ = -1;
}

}  // namespace skiff::storage
