// The descriptor budget: how many segment-file descriptors the FdCache may
// keep open (log/fd_cache.h), derived once at startup from RLIMIT_NOFILE.
//
// Like many servers, the soft limit is first raised to the hard limit. The
// budget is the soft limit minus a reserve for everything else: sockets
// (max.connections + 256 when max.connections is set, else 30% of the limit
// and at least 256), listeners, epoll and event descriptors, checkpoint and
// metadata files, and descriptors pinned past the budget by in-flight reads
// (a Fetch pins one per partition it answers until the response is sent).
// skiff.log.fd.cache.size overrides the derived value.
// Threads: call once, from the startup thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace skiff::server {

struct FdBudget {
  uint64_t soft_limit_before = 0;
  uint64_t soft_limit = 0;  // after the raise
  uint64_t hard_limit = 0;
  size_t segment_files = 0;
  size_t reserved = 0;
  bool overridden = false;
};

// Pure: the split of `limit` (tests). max_connections >= INT32_MAX: unset.
FdBudget split_fd_budget(uint64_t limit, int64_t max_connections, int64_t override_size);
// Raises the soft RLIMIT_NOFILE to the hard limit, then splits it. Logs
// "descriptor budget: ...".
FdBudget derive_fd_budget(int64_t max_connections, int64_t override_size);

}  // namespace skiff::server
