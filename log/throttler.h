// Throttler: holds a stream of work to a rate (Kafka's Throttler, used by
// the log cleaner for log.cleaner.io.max.bytes.per.second). Callers report
// what they did (bytes read or written); every check interval (300 ms) the
// observed rate is compared with the desired one and the caller that closes
// the interval sleeps long enough to bring the interval back to the rate.
// Threads: thread-safe; one Throttler is shared by all cleaner threads, so
// their total is bounded (the sleep happens under the lock, as in Kafka).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

namespace skiff::storage {

class Throttler {
 public:
  using NowNs = std::function<int64_t()>;
  using SleepMs = std::function<void(int64_t)>;
  // rate <= 0 or infinite: never sleeps. now/sleep: test seams (default: steady clock, this_thread).
  explicit Throttler(double bytes_per_second, int64_t check_interval_ms = 300, NowNs now = {}, SleepMs sleep = {});

  void maybe_throttle(double observed);
  bool unlimited() const { return unlimited_; }

 private:
  const double rate_;
  const bool unlimited_;
  const int64_t interval_ns_;
  NowNs now_;
  SleepMs sleep_;
  std::mutex mu_;
  int64_t period_start_ns_;
  double observed_ = 0;
};

}  // namespace skiff::storage
