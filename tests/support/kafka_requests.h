// Small synchronous Kafka requests over a RawClient, encoded with our codec:
// CreateTopics, single-partition-per-topic Produce batches, and Fetch, for
// tests and benchmark drivers that exercise many partitions end to end.
// Threads: one caller per RawClient. Errors are thrown as std::runtime_error
// (I/O) or returned as Kafka error codes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/support/raw_client.h"

namespace skiff::test {

class KafkaRequests {
 public:
  explicit KafkaRequests(RawClient& c) : c_(c) {}

  // One CreateTopics request (v5); the error code of each topic, by name.
  std::map<std::string, int16_t> create_topics(const std::vector<std::string>& names, int32_t partitions);
  // One Produce request (v9, acks=1) with `batch` for each listed partition
  // of `topic`; the error code of each partition (its base offset in `offsets`).
  std::map<int32_t, int16_t> produce(const std::string& topic, const std::vector<int32_t>& partitions,
                                     const std::vector<uint8_t>& batch, std::map<int32_t, int64_t>* offsets = nullptr);

  struct FetchedPartition {
    int16_t error_code = 0;
    int64_t high_watermark = 0;
    std::vector<uint8_t> records;
  };
  // One Fetch request (v11, max_wait 0) from `offset` for each listed partition.
  std::map<int32_t, FetchedPartition> fetch(const std::string& topic, const std::vector<int32_t>& partitions,
                                            int64_t offset, int32_t partition_max_bytes = 1 << 20);

 private:
  std::vector<uint8_t> round_trip(const std::vector<uint8_t>& frame);
  RawClient& c_;
  int32_t correlation_ = 0;
};

}  // namespace skiff::test
