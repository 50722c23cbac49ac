#include "remote/s3/request_counters.h"

#include <algorithm>

namespace skiff::remote::s3 {

void S3RequestCounters::record(std::string_view operation, bool ok, size_t bytes_sent, size_t bytes_received) {
  const auto* it = std::find(kS3Operations.begin(), kS3Operations.end() - 1, operation);  // else "Other"
  Slot& s = slots_[static_cast<size_t>(it - kS3Operations.begin())];
  s.requests.fetch_add(1, std::memory_order_relaxed);
  if (!ok) s.errors.fetch_add(1, std::memory_order_relaxed);
  s.bytes_sent.fetch_add(static_cast<int64_t>(bytes_sent), std::memory_order_relaxed);
  s.bytes_received.fetch_add(static_cast<int64_t>(bytes_received), std::memory_order_relaxed);
}

std::vector<S3OperationCounts> S3RequestCounters::snapshot() const {
  std::vector<S3OperationCounts> out;
  out.reserve(kS3Operations.size());
  for (size_t i = 0; i < kS3Operations.size(); ++i) {
    const Slot& s = slots_[i];
    out.push_back({kS3Operations[i], s.requests.load(std::memory_order_relaxed),
                   s.errors.load(std::memory_order_relaxed), s.bytes_sent.load(std::memory_order_relaxed),
                   s.bytes_received.load(std::memory_order_relaxed)});
  }
  return out;
}

}  // namespace skiff::remote::s3
