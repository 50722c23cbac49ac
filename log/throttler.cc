#include "log/throttler.h"

#include <chrono>
#include <cmath>
#include <thread>

namespace skiff::storage {

Throttler::Throttler(double bytes_per_second, int64_t check_interval_ms, NowNs now, SleepMs sleep)
    : rate_(bytes_per_second),
      unlimited_(!(bytes_per_second > 0) || std::isinf(bytes_per_second) || bytes_per_second >= 1e300),
      interval_ns_(check_interval_ms * 1'000'000),
      now_(now ? std::move(now) : NowNs([] {
        return static_cast<int64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
                .count());
      })),
      sleep_(sleep ? std::move(sleep)
                   : SleepMs([](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); })),
      period_start_ns_(now_()) {}

void Throttler::maybe_throttle(double observed) {
  if (unlimited_) return;
  std::lock_guard lk(mu_);
  observed_ += observed;
  const int64_t elapsed_ns = now_() - period_start_ns_;
  if (elapsed_ns <= interval_ns_ || observed_ <= 0) return;
  const double rate = observed_ * 1e9 / static_cast<double>(elapsed_ns);
  if (rate > rate_) {
    // Sleep so that observed_ over (elapsed + sleep) is the desired rate.
    const int64_t sleep_ms = std::llround(observed_ / (rate_ / 1000.0) - static_cast<double>(elapsed_ns / 1'000'000));
    if (sleep_ms > 0) sleep_(sleep_ms);
  }
  period_start_ns_ = now_();
  observed_ = 0;
}

}  // namespace skiff::storage
