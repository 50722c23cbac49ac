// The S3 client's retry policy: a bounded number of attempts with
// exponential backoff and full jitter (delay n is uniform in
// [0, min(max_delay, base_delay * 2^n)]), only for retriable errors.
// Values and pure functions; the jitter source is passed in so tests are exact.
#pragma once

#include <chrono>
#include <cstdint>

namespace skiff::remote::s3 {

struct RetryPolicy {
  int max_attempts = 5;  // 1: no retry
  std::chrono::milliseconds base_delay{100};
  std::chrono::milliseconds max_delay{5000};
};

// The delay before attempt `retry` + 1 (retry >= 1 is the number of failures
// so far); `unit` in [0, 1) is the jitter draw.
std::chrono::milliseconds backoff_delay(const RetryPolicy& p, int retry, double unit);

// The backoff ceiling of that retry (no jitter).
std::chrono::milliseconds backoff_ceiling(const RetryPolicy& p, int retry);

}  // namespace skiff::remote::s3
