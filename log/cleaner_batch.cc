#include "log/cleaner_batch.h"

#include <algorithm>

#include "log/byte_order.h"
#include "log/compression.h"
#include "log/crc32c.h"

namespace skiff::storage {
namespace bl = batch_layout;

std::vector<uint8_t> uncompressed_copy(const RecordBatchView& batch, size_t max_decompressed) {
  auto records = decompress(batch.compression(), batch.records_bytes(), max_decompressed);
  if (!records) return {};
  std::vector<uint8_t> out(batch.data(), batch.data() + bl::kHeaderSize);
  out.insert(out.end(), records->begin(), records->end());
  uint16_t attrs = static_cast<uint16_t>(batch.attributes()) & ~bl::kCompressionMask;
  store_be16(out.data() + bl::kAttributes, attrs);
  store_be32(out.data() + bl::kBatchLength, static_cast<uint32_t>(out.size() - bl::kLogOverhead));
  return out;
}

namespace {

// Header fields of the rewritten batch, then batchLength and the CRC.
void finish_batch(std::vector<uint8_t>& out, size_t start, uint16_t attrs, int32_t last_delta, int64_t max_ts,
                  int32_t count) {
  uint8_t* h = out.data() + start;
  store_be32(h + bl::kBatchLength, static_cast<uint32_t>(out.size() - start - bl::kLogOverhead));
  store_be16(h + bl::kAttributes, attrs);
  store_be32(h + bl::kLastOffsetDelta, static_cast<uint32_t>(last_delta));
  store_be64(h + bl::kMaxTimestamp, static_cast<uint64_t>(max_ts));
  store_be32(h + bl::kRecordCount, static_cast<uint32_t>(count));
  RecordBatchView v(std::span<uint8_t>(h, out.size() - start));
  store_be32(h + bl::kCrc, v.compute_crc());
}

bool keep_record(const RecordView& r, int64_t offset, const BatchFilterContext& ctx) {
  if (offset >= ctx.map_end) return true;
  if (!r.key) return false;  // Kafka's cleaner drops keyless records of a compacted log
  int64_t latest = ctx.map->get(*r.key);
  if (latest >= 0 && offset < latest) return false;  // a later record of this key exists
  return r.value.has_value() || ctx.retain_deletes;
}

struct Kept {
  std::vector<uint8_t> records;  // raw, uncompressed, verbatim
  int32_t count = 0;
  int32_t last_delta = -1;
  int64_t max_ts = -1;
};

bool collect(const RecordBatchView& plain, const BatchFilterContext& ctx, Kept& kept, BatchFilterStats& stats) {
  RecordIterator it(plain);
  RecordView r;
  const uint8_t* start = plain.records_bytes().data();
  while (it.next(r)) {
    const uint8_t* end = r.headers_bytes.data() + r.headers_bytes.size();
    ++stats.records_read;
    if (keep_record(r, r.offset(plain), ctx)) {
      kept.records.insert(kept.records.end(), start, end);
      ++kept.count;
      kept.last_delta = r.offset_delta;
      kept.max_ts = std::max(kept.max_ts, r.timestamp(plain));
    }
    start = end;
  }
  return it.ok();
}

bool holds_producer_last_batch(const RecordBatchView& b, const BatchFilterContext& ctx) {
  if (b.producer_id() < 0 || !ctx.producer_last_offsets) return false;
  auto it = ctx.producer_last_offsets->find(b.producer_id());
  return it != ctx.producer_last_offsets->end() && it->second == b.last_offset();
}

void append_copy(const RecordBatchView& b, std::vector<uint8_t>& out) {
  out.insert(out.end(), b.data(), b.data() + b.size_in_bytes());
}

}  // namespace

void filter_batch(const RecordBatchView& batch, const BatchFilterContext& ctx, std::vector<uint8_t>& out,
                  BatchFilterStats& stats) {
  if (ctx.discard_batch) {
    stats.records_read += batch.record_count();
    if (!holds_producer_last_batch(batch, ctx)) return;
    // Kafka's empty batch: same offsets and producer fields, no records, no codec.
    const size_t start = out.size();
    out.insert(out.end(), batch.data(), batch.data() + bl::kHeaderSize);
    uint16_t attrs = static_cast<uint16_t>(batch.attributes()) & ~bl::kCompressionMask;
    return finish_batch(out, start, attrs, batch.last_offset_delta(), batch.max_timestamp(), 0);
  }
  // A marker that stays is kept as it is (log_cleaner.h).
  if (batch.is_control()) return append_copy(batch, out);
  std::vector<uint8_t> plain_bytes = uncompressed_copy(batch, ctx.max_decompressed_bytes);
  Kept kept;
  if (plain_bytes.empty() || !collect(RecordBatchView(plain_bytes), ctx, kept, stats)) {
    stats.corrupt = true;
    return append_copy(batch, out);  // never lose bytes we cannot read
  }
  stats.records_kept += kept.count;
  if (kept.count == batch.record_count()) return append_copy(batch, out);
  uint16_t attrs = static_cast<uint16_t>(batch.attributes());
  const bool log_append = batch.timestamp_type() == TimestampType::kLogAppendTime;
  const size_t start = out.size();
  out.insert(out.end(), batch.data(), batch.data() + bl::kHeaderSize);
  if (kept.count == 0) {
    if (!holds_producer_last_batch(batch, ctx)) return out.resize(start);
    // Kafka's empty batch: same offsets and producer fields, no records, no codec.
    attrs &= ~bl::kCompressionMask;
    return finish_batch(out, start, attrs, batch.last_offset_delta(), batch.max_timestamp(), 0);
  }
  auto body = compress(batch.compression(), kept.records);
  if (!body) {  // library failure: keep the original batch
    out.resize(start);
    return append_copy(batch, out);
  }
  out.insert(out.end(), body->begin(), body->end());
  finish_batch(out, start, attrs, kept.last_delta, log_append ? batch.max_timestamp() : kept.max_ts, kept.count);
}

}  // namespace skiff::storage
