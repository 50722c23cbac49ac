// Probes of a running broker process for resource tests: its CPU time, its
// open descriptors and resident memory (from /proc), its descriptor limit
// (prlimit), and a hand-built ApiVersions v0 round trip that needs no codec.
// Thread: any; no shared state.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "tests/support/raw_client.h"

namespace skiff::test {

// User + system CPU time of `pid` in seconds; negative if unreadable.
double cpu_seconds(pid_t pid);
// Resident set size of `pid` in bytes (VmRSS), and its peak (VmHWM).
int64_t rss_bytes(pid_t pid);
int64_t peak_rss_bytes(pid_t pid);
// Number of open descriptors of `pid`.
int open_fd_count(pid_t pid);
// Sets RLIMIT_NOFILE (soft and hard) of `pid`; false on failure.
bool set_fd_limit(pid_t pid, uint64_t limit);
// Sends ApiVersions v0 with `correlation_id` and true if the answer carries
// that id and error code 0.
bool api_versions_ok(RawClient& client, int32_t correlation_id);
// Lines of `text` that contain `needle`.
size_t count_lines_with(const std::string& text, const std::string& needle);

}  // namespace skiff::test
