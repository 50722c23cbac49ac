// ByteLru: a least-recently-used map bounded by the bytes of its values, the
// remote log reader's chunk cache and index cache. Values are shared,
// immutable (shared_ptr<const V>): a value evicted while a reader still
// holds it stays alive until that reader lets go, so eviction never tears
// a read. A value larger than the whole capacity is not kept (the caller
// uses the one it has).
// Threads: every method under one mutex, any thread; callers fetch from the
// object store outside it (get, then fetch, then put), so two threads that
// miss the same key at once may both fetch it (the second put replaces the
// first; the bytes are the same).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace skiff::remote {

template <class K, class V>
class ByteLru {
 public:
  explicit ByteLru(uint64_t capacity) : capacity_(capacity) {}

  // The value (now the most recent), or nullptr.
  std::shared_ptr<const V> get(const K& key) {
    std::lock_guard lk(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second.pos);
    return it->second.value;
  }

  // Keeps `value` as the most recent, costing `bytes`, then evicts the
  // least recent until the total is within the capacity.
  void put(const K& key, std::shared_ptr<const V> value, uint64_t bytes) {
    std::lock_guard lk(mu_);
    erase_locked(key);
    if (bytes > capacity_) return;
    order_.push_front(key);
    map_.emplace(key, Slot{std::move(value), bytes, order_.begin()});
    bytes_ += bytes;
    while (bytes_ > capacity_ && !order_.empty()) {
      const K victim = order_.back();
      erase_locked(victim);
      ++evictions_;
    }
  }

  uint64_t bytes() const {
    std::lock_guard lk(mu_);
    return bytes_;
  }
  size_t size() const {
    std::lock_guard lk(mu_);
    return map_.size();
  }
  int64_t evictions() const {
    std::lock_guard lk(mu_);
    return evictions_;
  }

 private:
  struct Slot {
    std::shared_ptr<const V> value;
    uint64_t bytes = 0;
    typename std::list<K>::iterator pos;
  };

  void erase_locked(const K& key) {
    auto it = map_.find(key);
    if (it == map_.end()) return;
    bytes_ -= it->second.bytes;
    order_.erase(it->second.pos);
    map_.erase(it);
  }

  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::list<K> order_;  // most recent first
  std::map<K, Slot> map_;
  uint64_t bytes_ = 0;
  int64_t evictions_ = 0;
};

}  // namespace skiff::remote
