// Counts of what an S3Client sent, by S3 operation: every HTTP attempt
// (retries included: what the store sees and bills), the attempts that
// failed (network error or a non-2xx answer), request body bytes sent and
// response body bytes received. For /metrics (server/tiered_storage.cc) and
// the tiered storage benchmark (bench/tiered.py: requests per GB moved).
//
// Threads: record() and snapshot() may run on any threads at once (relaxed
// atomics; a snapshot is not one instant across operations, each counter only
// grows).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace skiff::remote::s3 {

// The operations S3Client speaks, by S3's names; "Other" takes any name not listed.
inline constexpr std::array<std::string_view, 14> kS3Operations = {"HeadBucket",
                                                                   "CreateBucket",
                                                                   "PutObject",
                                                                   "GetObject",
                                                                   "HeadObject",
                                                                   "DeleteObject",
                                                                   "DeleteObjects",
                                                                   "ListObjectsV2",
                                                                   "CreateMultipartUpload",
                                                                   "UploadPart",
                                                                   "CompleteMultipartUpload",
                                                                   "AbortMultipartUpload",
                                                                   "ListMultipartUploads",
                                                                   "Other"};

struct S3OperationCounts {
  std::string_view operation;
  int64_t requests = 0;
  int64_t errors = 0;
  int64_t bytes_sent = 0;
  int64_t bytes_received = 0;
};

class S3RequestCounters {
 public:
  // One attempt of `operation`: `ok` when it got a 2xx answer.
  void record(std::string_view operation, bool ok, size_t bytes_sent, size_t bytes_received);
  // Every operation of kS3Operations, in that order (zeros included).
  std::vector<S3OperationCounts> snapshot() const;

 private:
  struct Slot {
    std::atomic<int64_t> requests{0};
    std::atomic<int64_t> errors{0};
    std::atomic<int64_t> bytes_sent{0};
    std::atomic<int64_t> bytes_received{0};
  };
  std::array<Slot, kS3Operations.size()> slots_;
};

}  // namespace skiff::remote::s3
