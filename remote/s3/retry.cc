#include "remote/s3/retry.h"

#include <algorithm>

namespace skiff::remote::s3 {

std::chrono::milliseconds backoff_ceiling(const RetryPolicy& p, int retry) {
  const int shift = std::clamp(retry - 1, 0, 30);
  const int64_t base = std::max<int64_t>(p.base_delay.count(), 0);
  const int64_t grown = base > (int64_t{1} << 40) >> shift ? p.max_delay.count() : base << shift;
  return std::chrono::milliseconds(std::min<int64_t>(grown, p.max_delay.count()));
}

std::chrono::milliseconds backoff_delay(const RetryPolicy& p, int retry, double unit) {
  const double u = std::clamp(unit, 0.0, 0.999999);
  return std::chrono::milliseconds(static_cast<int64_t>(static_cast<double>(backoff_ceiling(p, retry).count()) * u));
}

}  // namespace skiff::remote::s3
