// MemoryPool: the budget of request bytes in flight across all Processors,
// Kafka's queued.max.request.bytes. A Connection takes a Lease for a frame's
// size as soon as it has read the size prefix, before it reads (or allocates
// for) the body, and holds it until the response has been written or the
// connection dies; the Lease gives the bytes back when destroyed, on every
// path. While the pool is exhausted, Connections stop reading their sockets.
//
// Admission, as Kafka's non-strict SimpleMemoryPool: any frame is admitted
// while the bytes in flight are below the capacity, whatever its size, so the
// total exceeds the capacity by less than one frame at most. A frame larger
// than what is left is thus admitted (a max-size frame never deadlocks, even
// alone), and big frames are not starved by a stream of small ones. Capacity
// <= 0: unbounded (Kafka's -1), nothing is ever refused.
//
// Thread-safe: one atomic counter; Processors acquire, any thread releases.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace skiff::network {

class MemoryPool : public std::enable_shared_from_this<MemoryPool> {
 public:
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& o) noexcept : pool_(std::move(o.pool_)), bytes_(o.bytes_) { o.bytes_ = 0; }
    Lease& operator=(Lease&& o) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { release(); }
    void release();
    int64_t bytes() const { return bytes_; }

   private:
    friend class MemoryPool;
    Lease(std::shared_ptr<MemoryPool> pool, int64_t bytes) : pool_(std::move(pool)), bytes_(bytes) {}
    std::shared_ptr<MemoryPool> pool_;
    int64_t bytes_ = 0;
  };

  static std::shared_ptr<MemoryPool> create(int64_t capacity);

  // A lease of `bytes`, or nothing while the pool cannot admit them.
  std::optional<Lease> try_acquire(int64_t bytes);

  int64_t capacity() const { return capacity_; }
  bool bounded() const { return capacity_ > 0; }
  int64_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
  // The most bytes ever in flight at once (for tests and metrics).
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  explicit MemoryPool(int64_t capacity) : capacity_(capacity) {}
  void give_back(int64_t bytes) { in_flight_.fetch_sub(bytes, std::memory_order_acq_rel); }

  const int64_t capacity_;
  std::atomic<int64_t> in_flight_{0};
  std::atomic<int64_t> peak_{0};
};

}  // namespace skiff::network
