// RecordBatchView: a zero-copy view of one Kafka record batch (magic 2), the
// unit stored in the log and carried by Produce/Fetch. Plus record iteration
// (uncompressed batches only) and iteration over the batches of a byte range.
//
// Thread: a view is a plain pointer+size; use it from one thread at a time.
//
// Byte layout (big-endian), 61-byte header then the records:
//   0 baseOffset int64 | 8 batchLength int32 (bytes after this field)
//  12 partitionLeaderEpoch int32 | 16 magic int8 (=2) | 17 crc uint32
//  21 attributes int16 | 23 lastOffsetDelta int32 | 27 baseTimestamp int64
//  35 maxTimestamp int64 | 43 producerId int64 | 51 producerEpoch int16
//  53 baseSequence int32 | 57 recordCount int32 | 61 records...
// attributes: bits 0-2 codec, 3 timestamp type, 4 transactional, 5 control,
// 6 delete horizon (baseTimestamp is the cleaner's delete horizon, KIP-534).
// The CRC-32C covers bytes [21, end): baseOffset, batchLength, leader epoch
// and magic are outside it, so offsets are assigned without re-checksumming.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "common/byte_order.h"
#include "log/types.h"

namespace skiff::storage {

namespace batch_layout {
inline constexpr size_t kBaseOffset = 0;
inline constexpr size_t kBatchLength = 8;
inline constexpr size_t kPartitionLeaderEpoch = 12;
inline constexpr size_t kMagic = 16;
inline constexpr size_t kCrc = 17;
inline constexpr size_t kAttributes = 21;
inline constexpr size_t kLastOffsetDelta = 23;
inline constexpr size_t kBaseTimestamp = 27;
inline constexpr size_t kMaxTimestamp = 35;
inline constexpr size_t kProducerId = 43;
inline constexpr size_t kProducerEpoch = 51;
inline constexpr size_t kBaseSequence = 53;
inline constexpr size_t kRecordCount = 57;
inline constexpr size_t kHeaderSize = 61;
inline constexpr size_t kLogOverhead = 12;  // baseOffset + batchLength
inline constexpr int8_t kCurrentMagic = 2;
inline constexpr uint16_t kCompressionMask = 0x07;
inline constexpr uint16_t kTimestampTypeBit = 0x08;
inline constexpr uint16_t kTransactionalBit = 0x10;
inline constexpr uint16_t kControlBit = 0x20;
inline constexpr uint16_t kDeleteHorizonBit = 0x40;
}  // namespace batch_layout

enum class Compression : uint8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

// Outcome of a validation: an error value plus a static human-readable reason.
struct BatchCheck {
  LogErrc error = LogErrc::kNone;
  const char* reason = "";
  explicit operator bool() const { return error == LogErrc::kNone; }
};

class RecordBatchView {
 public:
  RecordBatchView() = default;
  // `bytes` must cover exactly one batch (use BatchIterator to split a range).
  explicit RecordBatchView(std::span<uint8_t> bytes) : p_(bytes.data()), size_(bytes.size()) {}

  size_t size_in_bytes() const { return size_; }
  const uint8_t* data() const { return p_; }
  uint8_t* mutable_data() { return p_; }
  std::span<const uint8_t> bytes() const { return {p_, size_}; }

  int64_t base_offset() const { return i64(batch_layout::kBaseOffset); }
  int32_t batch_length() const { return i32(batch_layout::kBatchLength); }
  int32_t partition_leader_epoch() const { return i32(batch_layout::kPartitionLeaderEpoch); }
  int8_t magic() const { return static_cast<int8_t>(p_[batch_layout::kMagic]); }
  uint32_t crc() const { return load_be32(p_ + batch_layout::kCrc); }
  int16_t attributes() const { return static_cast<int16_t>(load_be16(p_ + batch_layout::kAttributes)); }
  int32_t last_offset_delta() const { return i32(batch_layout::kLastOffsetDelta); }
  int64_t base_timestamp() const { return i64(batch_layout::kBaseTimestamp); }
  int64_t max_timestamp() const { return i64(batch_layout::kMaxTimestamp); }
  int64_t producer_id() const { return i64(batch_layout::kProducerId); }
  int16_t producer_epoch() const { return static_cast<int16_t>(load_be16(p_ + batch_layout::kProducerEpoch)); }
  int32_t base_sequence() const { return i32(batch_layout::kBaseSequence); }
  int32_t record_count() const { return i32(batch_layout::kRecordCount); }

  int64_t last_offset() const { return base_offset() + last_offset_delta(); }
  int64_t next_offset() const { return last_offset() + 1; }
  Compression compression() const { return static_cast<Compression>(attributes() & batch_layout::kCompressionMask); }
  TimestampType timestamp_type() const {
    return (attributes() & batch_layout::kTimestampTypeBit) ? TimestampType::kLogAppendTime
                                                            : TimestampType::kCreateTime;
  }
  bool is_transactional() const { return attributes() & batch_layout::kTransactionalBit; }
  bool is_control() const { return attributes() & batch_layout::kControlBit; }
  // KIP-534: the log cleaner sets bit 6 on the pass that first cleans a batch
  // holding tombstones or a removable marker; baseTimestamp then holds the
  // delete horizon (record timestamps stay baseTimestamp + delta, the deltas
  // having been rewritten against it).
  bool has_delete_horizon() const { return attributes() & batch_layout::kDeleteHorizonBit; }
  std::optional<int64_t> delete_horizon_ms() const {
    return has_delete_horizon() ? std::optional<int64_t>(base_timestamp()) : std::nullopt;
  }
  std::span<const uint8_t> records_bytes() const {
    return {p_ + batch_layout::kHeaderSize, size_ - batch_layout::kHeaderSize};
  }

  uint32_t compute_crc() const;
  bool crc_valid() const { return compute_crc() == crc(); }

  // Structural checks on the header and the CRC: sizes agree, magic is 2,
  // CRC matches. Cheap (one CRC pass). Used on recovery and on append.
  BatchCheck validate_header_and_crc() const;
  // What Log::append checks on a batch from a client: the above, plus a
  // positive record count that agrees with the last offset delta, a known
  // codec, and for uncompressed batches that the records section splits into
  // exactly that many length-prefixed records (one varint per record; the
  // batch is stored as it arrived, nothing inside a record is parsed).
  BatchCheck validate_for_append() const;
  // The above plus a parse of every field of every uncompressed record (no
  // copy, no allocation): a deep check for tools and tests.
  BatchCheck validate_records_deep() const;

  // In-place rewrites outside the CRC (no re-checksum needed).
  void set_base_offset(int64_t o) { store_be64(p_ + batch_layout::kBaseOffset, static_cast<uint64_t>(o)); }
  void set_partition_leader_epoch(int32_t e) {
    store_be32(p_ + batch_layout::kPartitionLeaderEpoch, static_cast<uint32_t>(e));
  }
  // LogAppendTime: sets the timestamp-type bit and maxTimestamp, and
  // recomputes the CRC (these two fields are inside it).
  void set_log_append_time(int64_t now_ms);

 private:
  int32_t i32(size_t o) const { return static_cast<int32_t>(load_be32(p_ + o)); }
  int64_t i64(size_t o) const { return static_cast<int64_t>(load_be64(p_ + o)); }
  uint8_t* p_ = nullptr;
  size_t size_ = 0;
};

// Reads just enough of a header to know a batch's extent: 0 if fewer than 12
// bytes are given, else 12 + batchLength (may be < 61 or negative for junk).
inline int64_t batch_size_from_prefix(const uint8_t* p, size_t n) {
  if (n < batch_layout::kLogOverhead) return 0;
  return static_cast<int64_t>(batch_layout::kLogOverhead) +
         static_cast<int32_t>(load_be32(p + batch_layout::kBatchLength));
}

// Splits a byte range (e.g. a Produce partition's records) into batches.
// next() returns false at the end or on a malformed tail (then error() says
// why: a truncated or impossible length).
class BatchIterator {
 public:
  explicit BatchIterator(std::span<uint8_t> bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  bool next(RecordBatchView& out);
  BatchCheck error() const { return error_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

 private:
  uint8_t* p_;
  uint8_t* end_;
  BatchCheck error_;
};

// One record of an uncompressed batch; key/value spans point into the batch.
struct RecordHeaderView {
  std::span<const uint8_t> key;
  std::optional<std::span<const uint8_t>> value;  // nullopt = null
};

struct RecordView {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  std::optional<std::span<const uint8_t>> key;    // nullopt = null
  std::optional<std::span<const uint8_t>> value;  // nullopt = null
  int32_t header_count = 0;
  std::span<const uint8_t> headers_bytes;  // raw, parse with HeaderIterator

  int64_t offset(const RecordBatchView& b) const { return b.base_offset() + offset_delta; }
  int64_t timestamp(const RecordBatchView& b) const {
    return b.timestamp_type() == TimestampType::kLogAppendTime ? b.max_timestamp()
                                                               : b.base_timestamp() + timestamp_delta;
  }
};

// Iterates the records of an UNCOMPRESSED batch. next() returns false at the
// end or on malformed data (then ok() is false).
class RecordIterator {
 public:
  explicit RecordIterator(const RecordBatchView& batch);
  bool next(RecordView& out);
  bool ok() const { return ok_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  int32_t remaining_;
  bool ok_ = true;
};

class HeaderIterator {
 public:
  HeaderIterator(const RecordView& r)
      : p_(r.headers_bytes.data()), end_(p_ + r.headers_bytes.size()), left_(r.header_count) {}
  bool next(RecordHeaderView& out);
  bool ok() const { return ok_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  int32_t left_;
  bool ok_ = true;
};

}  // namespace skiff::storage
