#include "log/record_batch.h"

#include "common/varint.h"
#include "log/crc32c.h"

namespace skiff::storage {

namespace bl = batch_layout;

uint32_t RecordBatchView::compute_crc() const { return crc32c(p_ + bl::kAttributes, size_ - bl::kAttributes); }

BatchCheck RecordBatchView::validate_header_and_crc() const {
  if (size_ < bl::kLogOverhead + 5) return {LogErrc::kCorruptMessage, "batch shorter than its length prefix and magic"};
  // Magic is at byte 16 in every message format version, so we can tell an
  // old (v0/v1) message set from a corrupt batch.
  int8_t m = magic();
  if (m < bl::kCurrentMagic && m >= 0) {
    return {LogErrc::kUnsupportedForMessageFormat, "message format older than magic 2"};
  }
  if (m != bl::kCurrentMagic) return {LogErrc::kCorruptMessage, "unknown magic byte"};
  if (size_ < bl::kHeaderSize) return {LogErrc::kCorruptMessage, "batch shorter than the 61-byte header"};
  int64_t declared = static_cast<int64_t>(bl::kLogOverhead) + batch_length();
  if (declared != static_cast<int64_t>(size_)) return {LogErrc::kCorruptMessage, "batch length disagrees with size"};
  if (!crc_valid()) return {LogErrc::kCorruptMessage, "CRC-32C mismatch"};
  return {};
}

namespace {

using Bytes = std::optional<std::span<const uint8_t>>;

// A record's varint length prefix; on true, [p, rend) is its body, at least
// the attributes byte long.
bool record_body(const uint8_t*& p, const uint8_t* end, const uint8_t*& rend) {
  int32_t len;
  if (!read_varint32(p, end, len) || len < 1 || len > end - p) return false;
  rend = p + len;
  return true;
}

// A varint length and that many bytes inside [p, end) (keys, values, header
// keys and values); -1 is null where `nullable`. Advances p past them.
bool read_sized(const uint8_t*& p, const uint8_t* end, Bytes& out, bool nullable = true) {
  int32_t len;
  if (!read_varint32(p, end, len) || len < (nullable ? -1 : 0) || len > end - p) return false;
  if (len < 0) {
    out.reset();
  } else {
    out = std::span<const uint8_t>(p, static_cast<size_t>(len));
    p += len;
  }
  return true;
}

// Walks one record's framing; returns false if malformed.
bool walk_record(const uint8_t*& p, const uint8_t* end, int32_t expected_delta) {
  const uint8_t* rend;
  if (!record_body(p, end, rend)) return false;
  ++p;  // attributes
  int64_t ts_delta;
  int32_t off_delta, hcount;
  Bytes skipped;
  if (!read_varint64(p, rend, ts_delta) || !read_varint32(p, rend, off_delta) || off_delta != expected_delta)
    return false;
  if (!read_sized(p, rend, skipped) || !read_sized(p, rend, skipped)) return false;  // key, value
  if (!read_varint32(p, rend, hcount) || hcount < 0) return false;
  for (int32_t h = 0; h < hcount; ++h) {
    if (!read_sized(p, rend, skipped, /*nullable=*/false) || !read_sized(p, rend, skipped)) return false;
  }
  return p == rend;
}

}  // namespace

BatchCheck RecordBatchView::validate_for_append() const {
  if (auto c = validate_header_and_crc(); !c) return c;
  int32_t count = record_count();
  if (count <= 0) return {LogErrc::kInvalidRecord, "batch has no records"};
  if (last_offset_delta() != count - 1) {
    return {LogErrc::kInvalidRecord, "last offset delta disagrees with record count"};
  }
  if ((attributes() & bl::kCompressionMask) > 4) return {LogErrc::kCorruptMessage, "unknown compression codec"};
  if (compression() != Compression::kNone) return {};
  // Each uncompressed record takes at least 7 bytes.
  auto recs = records_bytes();
  if (static_cast<int64_t>(recs.size()) < static_cast<int64_t>(count) * 7) {
    return {LogErrc::kInvalidRecord, "record count too large for batch length"};
  }
  // The records section must split into exactly `count` length-prefixed
  // records, or no consumer could iterate it: one varint and a skip per
  // record, not a parse of each.
  const uint8_t* p = recs.data();
  const uint8_t* end = p + recs.size();
  for (int32_t i = 0; i < count; ++i) {
    int32_t len;
    if (!read_varint32(p, end, len) || len < 6 || len > end - p)
      return {LogErrc::kInvalidRecord, "malformed record length"};
    p += len;
  }
  if (p != end) return {LogErrc::kInvalidRecord, "bytes after the last record"};
  return {};
}

BatchCheck RecordBatchView::validate_records_deep() const {
  if (auto c = validate_for_append(); !c) return c;
  if (compression() == Compression::kNone) {
    auto recs = records_bytes();
    const uint8_t* p = recs.data();
    const uint8_t* end = p + recs.size();
    for (int32_t i = 0, count = record_count(); i < count; ++i) {
      if (!walk_record(p, end, i)) return {LogErrc::kInvalidRecord, "malformed record"};
    }
  }
  return {};
}

void RecordBatchView::set_log_append_time(int64_t now_ms) {
  uint16_t attrs = static_cast<uint16_t>(attributes()) | bl::kTimestampTypeBit;
  store_be16(p_ + bl::kAttributes, attrs);
  store_be64(p_ + bl::kMaxTimestamp, static_cast<uint64_t>(now_ms));
  store_be32(p_ + bl::kCrc, compute_crc());
}

bool BatchIterator::next(RecordBatchView& out) {
  size_t left = static_cast<size_t>(end_ - p_);
  if (left == 0) return false;
  if (left < bl::kLogOverhead) {
    error_ = {LogErrc::kCorruptMessage, "truncated batch length prefix"};
    return false;
  }
  int64_t size = batch_size_from_prefix(p_, left);
  if (size < static_cast<int64_t>(bl::kLogOverhead + 5)) {
    error_ = {LogErrc::kCorruptMessage, "batch length too small"};
    return false;
  }
  if (size > static_cast<int64_t>(left)) {
    error_ = {LogErrc::kCorruptMessage, "truncated batch"};
    return false;
  }
  out = RecordBatchView({p_, static_cast<size_t>(size)});
  p_ += size;
  return true;
}

RecordIterator::RecordIterator(const RecordBatchView& batch)
    : p_(batch.records_bytes().data()), end_(p_ + batch.records_bytes().size()), remaining_(batch.record_count()) {
  if (batch.compression() != Compression::kNone) ok_ = false;
}

bool RecordIterator::next(RecordView& r) {
  if (!ok_ || remaining_ <= 0) return false;
  const uint8_t* p = p_;
  const uint8_t* rend;
  if (!record_body(p, end_, rend)) return ok_ = false;
  r.attributes = static_cast<int8_t>(*p++);
  if (!read_varint64(p, rend, r.timestamp_delta) || !read_varint32(p, rend, r.offset_delta)) return ok_ = false;
  if (!read_sized(p, rend, r.key) || !read_sized(p, rend, r.value)) return ok_ = false;
  if (!read_varint32(p, rend, r.header_count) || r.header_count < 0) return ok_ = false;
  r.headers_bytes = std::span<const uint8_t>(p, static_cast<size_t>(rend - p));
  p_ = rend;
  --remaining_;
  return true;
}

bool HeaderIterator::next(RecordHeaderView& h) {
  if (!ok_ || left_ <= 0) return false;
  int32_t klen, vlen;
  if (!read_varint32(p_, end_, klen) || klen < 0 || klen > end_ - p_) return ok_ = false;
  h.key = {p_, static_cast<size_t>(klen)};
  p_ += klen;
  if (!read_varint32(p_, end_, vlen) || vlen < -1 || (vlen > 0 && vlen > end_ - p_)) return ok_ = false;
  if (vlen >= 0) {
    h.value = std::span<const uint8_t>(p_, static_cast<size_t>(vlen));
    p_ += vlen;
  } else {
    h.value.reset();
  }
  --left_;
  return true;
}

}  // namespace skiff::storage
