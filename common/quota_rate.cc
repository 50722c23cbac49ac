#include "common/quota_rate.h"

#include <algorithm>
#include <cmath>

namespace skiff {

// SampledStat.record: the current sample takes the value, unless its window
// is over, in which case the next one (reset) does.
void QuotaRate::record(double value, int64_t now_ms) {
  if (samples_.empty()) samples_.push_back({now_ms, 0});
  if (now_ms - samples_[current_].start_ms >= window_.window_ms) {
    current_ = (current_ + 1) % static_cast<size_t>(window_.samples);
    if (current_ >= samples_.size())
      samples_.push_back({now_ms, 0});
    else
      samples_[current_] = {now_ms, 0};
  }
  samples_[current_].value += value;
}

// Samples older than the whole span count for nothing (reset, as Kafka does).
void QuotaRate::purge_obsolete(int64_t now_ms) {
  const int64_t expire_age = window_.window_ms * window_.samples;
  for (auto& s : samples_)
    if (now_ms - s.start_ms >= expire_age) s = {now_ms, 0};
}

int64_t QuotaRate::window_ms(int64_t now_ms) {
  purge_obsolete(now_ms);
  int64_t oldest = now_ms;
  for (const auto& s : samples_) oldest = std::min(oldest, s.start_ms);
  int64_t elapsed = now_ms - oldest;
  const int64_t full_windows = elapsed / window_.window_ms;
  const int64_t min_full_windows = window_.samples - 1;
  if (full_windows < min_full_windows) elapsed += (min_full_windows - full_windows) * window_.window_ms;
  return elapsed;
}

double QuotaRate::measure(int64_t now_ms) {
  const int64_t span = window_ms(now_ms);  // purges first
  double total = 0;
  for (const auto& s : samples_) total += s.value;
  return span > 0 ? total / (static_cast<double>(span) / 1000.0) : 0;
}

int64_t throttle_ms(double rate, double bound, int64_t window_ms) {
  if (bound <= 0 || rate <= bound) return 0;
  return std::llround((rate - bound) / bound * static_cast<double>(window_ms));
}

}  // namespace skiff
