#include "server/fd_budget.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <climits>

namespace skiff::server {

namespace {
constexpr uint64_t kMinReserve = 256;
constexpr uint64_t kMinSegmentFiles = 64;
constexpr uint64_t kMaxUsefulLimit = 1ULL << 24;  // RLIM_INFINITY and the like
}  // namespace

FdBudget split_fd_budget(uint64_t limit, int64_t max_connections, int64_t override_size) {
  FdBudget b;
  b.soft_limit = std::min(limit, kMaxUsefulLimit);
  uint64_t reserve = max_connections < INT32_MAX ? static_cast<uint64_t>(max_connections) + kMinReserve
                                                 : std::max(kMinReserve, b.soft_limit * 3 / 10);
  uint64_t segment = b.soft_limit > reserve + kMinSegmentFiles ? b.soft_limit - reserve : kMinSegmentFiles;
  if (override_size > 0) {
    segment = static_cast<uint64_t>(override_size);
    b.overridden = true;
  }
  b.segment_files = static_cast<size_t>(segment);
  b.reserved = static_cast<size_t>(b.soft_limit > segment ? b.soft_limit - segment : 0);
  return b;
}

FdBudget derive_fd_budget(int64_t max_connections, int64_t override_size) {
  struct rlimit rl {};
  uint64_t before = 1024, hard = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    before = rl.rlim_cur;
    hard = rl.rlim_max;
    if (rl.rlim_cur < rl.rlim_max) {
      struct rlimit raised = rl;
      raised.rlim_cur = std::min<rlim_t>(rl.rlim_max, kMaxUsefulLimit);
      if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
    }
  }
  FdBudget b = split_fd_budget(rl.rlim_cur, max_connections, override_size);
  b.soft_limit_before = before;
  b.hard_limit = hard;
  spdlog::info(
      "descriptor budget: {} for segment files{}, {} reserved for connections and other files (RLIMIT_NOFILE soft "
      "{}{}, hard {})",
      b.segment_files, b.overridden ? " (skiff.log.fd.cache.size)" : "", b.reserved, b.soft_limit,
      before != b.soft_limit ? fmt::format(", raised from {}", before) : "", hard);
  if (b.overridden && b.segment_files + kMinReserve > b.soft_limit) {
    spdlog::warn("skiff.log.fd.cache.size {} leaves fewer than {} of RLIMIT_NOFILE {} for connections and other files",
                 b.segment_files, kMinReserve, b.soft_limit);
  } else if (!b.overridden && b.soft_limit < kMinReserve + kMinSegmentFiles) {
    spdlog::warn("RLIMIT_NOFILE {} is very low: raise it (ulimit -n) for many partitions or connections", b.soft_limit);
  }
  return b;
}

}  // namespace skiff::server
