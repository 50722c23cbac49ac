#include "network/memory_pool.h"

#include <utility>

namespace skiff::network {

MemoryPool::Lease& MemoryPool::Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    release();
    pool_ = std::move(o.pool_);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void MemoryPool::Lease::release() {
  if (pool_) pool_->give_back(bytes_);
  pool_.reset();
  bytes_ = 0;
}

std::shared_ptr<MemoryPool> MemoryPool::create(int64_t capacity) {
  return std::shared_ptr<MemoryPool>(new MemoryPool(capacity));
}

std::optional<MemoryPool::Lease> MemoryPool::try_acquire(int64_t bytes) {
  int64_t cur = in_flight_.load(std::memory_order_relaxed);
  for (;;) {
    if (bounded() && cur >= capacity_) return std::nullopt;
    if (in_flight_.compare_exchange_weak(cur, cur + bytes, std::memory_order_acq_rel)) break;
  }
  int64_t now = cur + bytes, seen = peak_.load(std::memory_order_relaxed);
  while (now > seen && !peak_.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
  return Lease(shared_from_this(), bytes);
}

}  // namespace skiff::network
