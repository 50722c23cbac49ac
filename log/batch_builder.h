// BatchBuilder: builds valid, uncompressed magic-2 record batches. A test and
// tooling utility (our tests, others' tests, the bench); the broker itself
// never builds batches, it stores what producers send.
// Thread: one builder per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "log/types.h"

namespace skiff::storage {

struct BuilderRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp = 0;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

class BatchBuilder {
 public:
  BatchBuilder& base_offset(int64_t o) {
    base_offset_ = o;
    return *this;
  }
  BatchBuilder& partition_leader_epoch(int32_t e) {
    epoch_ = e;
    return *this;
  }
  BatchBuilder& producer(int64_t id, int16_t epoch, int32_t base_sequence) {
    producer_id_ = id;
    producer_epoch_ = epoch;
    base_sequence_ = base_sequence;
    return *this;
  }
  BatchBuilder& transactional(bool t) {
    transactional_ = t;
    return *this;
  }
  BatchBuilder& control(bool c) {
    control_ = c;
    return *this;
  }
  BatchBuilder& timestamp_type(TimestampType t) {
    ts_type_ = t;
    return *this;
  }

  BatchBuilder& add(std::optional<std::string_view> key, std::optional<std::string_view> value, int64_t timestamp);
  BatchBuilder& add(BuilderRecord r) {
    records_.push_back(std::move(r));
    return *this;
  }
  size_t record_count() const { return records_.size(); }

  // Serialises the batch (CRC computed). The builder can be reused after.
  std::vector<uint8_t> build() const;

 private:
  int64_t base_offset_ = 0;
  int32_t epoch_ = -1;
  int64_t producer_id_ = -1;
  int16_t producer_epoch_ = -1;
  int32_t base_sequence_ = -1;
  bool transactional_ = false;
  bool control_ = false;
  TimestampType ts_type_ = TimestampType::kCreateTime;
  std::vector<BuilderRecord> records_;
};

// Convenience: one batch of `count` records with values of `value_size`
// bytes (deterministic content derived from `seed`), timestamps `ts`.
std::vector<uint8_t> make_test_batch(int count, size_t value_size, int64_t ts, uint64_t seed = 0);

}  // namespace skiff::storage
