// QuotaRate: Kafka's Rate over a SampledStat, the measure its client quotas
// are checked against (org.apache.kafka.common.metrics.stats.Rate): the sum
// of up to `samples` samples, each covering `window` from the time it was
// started, divided by the time they span, counted as at least samples - 1
// whole windows (so a client's first burst is measured over ~10 s, not over
// the milliseconds since it started).
//
// Thread rules: none; the owner (api/quota/quota_manager.h, the per-IP
// connection rates of network/connection_quotas.h) serialises access. Times are
// milliseconds on any monotonic clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace skiff {

struct QuotaWindow {
  int samples = 11;          // Kafka's quota.window.num
  int64_t window_ms = 1000;  // Kafka's quota.window.size.seconds
};

class QuotaRate {
 public:
  explicit QuotaRate(QuotaWindow window = {}) : window_(window) {}

  void record(double value, int64_t now_ms);
  // Per second, over window_ms(now_ms).
  double measure(int64_t now_ms);
  // The span the rate is measured over (Kafka's Rate.windowSize).
  int64_t window_ms(int64_t now_ms);
  const QuotaWindow& window() const { return window_; }

 private:
  struct Sample {
    int64_t start_ms = 0;
    double value = 0;
  };
  void purge_obsolete(int64_t now_ms);

  QuotaWindow window_;
  std::vector<Sample> samples_;  // grows to window_.samples, then rotates
  size_t current_ = 0;
};

// The throttle that brings a measured rate back to `bound` if nothing more
// is recorded (Kafka's QuotaUtils.throttleTime): (rate - bound) / bound of
// the window the rate was measured over, rounded to the millisecond.
int64_t throttle_ms(double rate, double bound, int64_t window_ms);

}  // namespace skiff
