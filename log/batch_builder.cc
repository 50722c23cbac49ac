#include "log/batch_builder.h"

#include <algorithm>

#include "common/byte_order.h"
#include "common/varint.h"
#include "log/crc32c.h"
#include "log/record_batch.h"

namespace skiff::storage {

namespace bl = batch_layout;

BatchBuilder& BatchBuilder::add(std::optional<std::string_view> key, std::optional<std::string_view> value,
                                int64_t timestamp) {
  BuilderRecord r;
  if (key) r.key = std::string(*key);
  if (value) r.value = std::string(*value);
  r.timestamp = timestamp;
  records_.push_back(std::move(r));
  return *this;
}

namespace {

void put_bytes(std::vector<uint8_t>& out, const std::optional<std::string>& s) {
  if (!s) {
    write_zigzag(out, -1);
    return;
  }
  write_zigzag(out, static_cast<int64_t>(s->size()));
  out.insert(out.end(), s->begin(), s->end());
}

}  // namespace

std::vector<uint8_t> BatchBuilder::build() const {
  int64_t base_ts = records_.empty() ? kNoTimestamp : records_.front().timestamp;
  int64_t max_ts = kNoTimestamp;
  for (const auto& r : records_) max_ts = std::max(max_ts, r.timestamp);

  std::vector<uint8_t> out(bl::kHeaderSize, 0);
  std::vector<uint8_t> body;
  for (size_t i = 0; i < records_.size(); ++i) {
    const auto& r = records_[i];
    body.clear();
    body.push_back(0);  // record attributes
    write_zigzag(body, r.timestamp - base_ts);
    write_zigzag(body, static_cast<int64_t>(i));
    put_bytes(body, r.key);
    put_bytes(body, r.value);
    write_zigzag(body, static_cast<int64_t>(r.headers.size()));
    for (const auto& [hk, hv] : r.headers) {
      put_bytes(body, hk);
      put_bytes(body, hv);
    }
    write_zigzag(out, static_cast<int64_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
  }
  uint8_t* p = out.data();
  uint16_t attrs = 0;
  if (ts_type_ == TimestampType::kLogAppendTime) attrs |= bl::kTimestampTypeBit;
  if (transactional_) attrs |= bl::kTransactionalBit;
  if (control_) attrs |= bl::kControlBit;
  store_be64(p + bl::kBaseOffset, static_cast<uint64_t>(base_offset_));
  store_be32(p + bl::kBatchLength, static_cast<uint32_t>(out.size() - bl::kLogOverhead));
  store_be32(p + bl::kPartitionLeaderEpoch, static_cast<uint32_t>(epoch_));
  p[bl::kMagic] = bl::kCurrentMagic;
  store_be16(p + bl::kAttributes, attrs);
  store_be32(p + bl::kLastOffsetDelta, static_cast<uint32_t>(records_.empty() ? 0 : records_.size() - 1));
  store_be64(p + bl::kBaseTimestamp, static_cast<uint64_t>(base_ts));
  store_be64(p + bl::kMaxTimestamp, static_cast<uint64_t>(max_ts));
  store_be64(p + bl::kProducerId, static_cast<uint64_t>(producer_id_));
  store_be16(p + bl::kProducerEpoch, static_cast<uint16_t>(producer_epoch_));
  store_be32(p + bl::kBaseSequence, static_cast<uint32_t>(base_sequence_));
  store_be32(p + bl::kRecordCount, static_cast<uint32_t>(records_.size()));
  store_be32(p + bl::kCrc, crc32c(p + bl::kAttributes, out.size() - bl::kAttributes));
  return out;
}

std::vector<uint8_t> make_test_batch(int count, size_t value_size, int64_t ts, uint64_t seed) {
  BatchBuilder b;
  std::string value(value_size, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < count; ++i) {
    for (auto& c : value) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      c = static_cast<char>('a' + (x % 26));
    }
    std::string key = "k";
    key += std::to_string(i);
    b.add(key, value, ts);
  }
  return b.build();
}

}  // namespace skiff::storage
