// LockStripes: a fixed pool of mutexes shared by many small objects, each
// locking the one its address picks. For locks held briefly and rarely
// contended that exist once per partition or segment (a std::mutex is 40
// bytes: at 100,000 partitions each per-object one was 4 MB).
//
// Rules: a pool serves ONE kind of critical section, and none of its users
// takes a lock of the same pool while holding one (two objects may share a
// stripe: a nested lock of the same pool could deadlock). Define each pool
// once, as a function-local static in the .cc of its user.
//
// Threads: any thread; the pool itself is immutable.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace skiff::storage {

template <size_t N = 64>
class LockStripes {
 public:
  std::mutex& for_object(const void* p) {
    // Objects are at least 16-byte aligned: the low bits carry nothing.
    return stripes_[(reinterpret_cast<uintptr_t>(p) >> 4) % N];
  }

 private:
  std::array<std::mutex, N> stripes_;
};

}  // namespace skiff::storage
