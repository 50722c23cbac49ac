// OffsetMap: the log cleaner's bounded map from a record key to the latest
// offset seen for it (Kafka's SkimpyOffsetMap). Open addressing over one
// preallocated array sized from log.cleaner.dedupe.buffer.size; keys are not
// stored, only a 128-bit hash of them (two independent 64-bit hashes), so
// memory is fixed: 24 bytes a slot (hash 16 + offset 8). As in Kafka, a map
// is "full" at load factor 0.9 (log.cleaner.io.buffer.load.factor); the
// cleaner then stops mapping at that point and cleans in several passes.
// Thread: one map per cleaner thread; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace skiff::storage {

class OffsetMap {
 public:
  static constexpr size_t kSlotBytes = 24;
  // memory_bytes: the dedupe buffer (at least one slot is made).
  explicit OffsetMap(size_t memory_bytes, double load_factor = 0.9);

  // Records `offset` as the latest for `key` (offsets only grow within a pass).
  // Returns false (nothing stored) if the key is new and the map is full.
  bool put(std::span<const uint8_t> key, int64_t offset);
  // Latest offset of `key`, or -1.
  int64_t get(std::span<const uint8_t> key) const;
  void clear();

  size_t size() const { return entries_; }
  size_t slots() const { return slots_.size(); }
  bool full() const { return entries_ >= max_entries_; }
  size_t max_entries() const { return max_entries_; }
  // Largest offset put since clear(), -1 if none.
  int64_t latest_offset() const { return latest_; }

 private:
  struct Slot {
    uint64_t h1 = 0, h2 = 0;  // h1 == 0 && h2 == 0: empty (a real hash is made non-zero)
    int64_t offset = -1;
  };
  size_t find(uint64_t h1, uint64_t h2) const;

  std::vector<Slot> slots_;
  size_t entries_ = 0;
  size_t max_entries_ = 0;
  int64_t latest_ = -1;
};

}  // namespace skiff::storage
