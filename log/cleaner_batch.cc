#include "log/cleaner_batch.h"

#include <algorithm>

#include "common/byte_order.h"
#include "common/varint.h"
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

int64_t delete_horizon_for(int64_t now_ms, int64_t delete_retention_ms) {
  if (delete_retention_ms > 0 && now_ms > INT64_MAX - delete_retention_ms) return INT64_MAX;
  return now_ms + delete_retention_ms;
}

namespace {

// Header fields of the rewritten batch, then batchLength and the CRC.
void finish_batch(std::vector<uint8_t>& out, size_t start, uint16_t attrs, int32_t last_delta, int64_t base_ts,
                  int64_t max_ts, int32_t count) {
  uint8_t* h = out.data() + start;
  store_be32(h + bl::kBatchLength, static_cast<uint32_t>(out.size() - start - bl::kLogOverhead));
  store_be16(h + bl::kAttributes, attrs);
  store_be32(h + bl::kLastOffsetDelta, static_cast<uint32_t>(last_delta));
  store_be64(h + bl::kBaseTimestamp, static_cast<uint64_t>(base_ts));
  store_be64(h + bl::kMaxTimestamp, static_cast<uint64_t>(max_ts));
  store_be32(h + bl::kRecordCount, static_cast<uint32_t>(count));
  RecordBatchView v(std::span<uint8_t>(h, out.size() - start));
  store_be32(h + bl::kCrc, v.compute_crc());
}

bool keep_record(const RecordView& r, int64_t offset, const BatchFilterContext& ctx, bool retain_deletes) {
  if (offset >= ctx.map_end) return true;
  if (!r.key) return false;  // Kafka's cleaner drops keyless records of a compacted log
  int64_t latest = ctx.map->get(*r.key);
  if (latest >= 0 && offset < latest) return false;  // a later record of this key exists
  return r.value.has_value() || retain_deletes;
}

struct KeptRecord {
  const uint8_t* begin;  // length prefix included, in the plain copy
  const uint8_t* end;
  int64_t timestamp;
};

struct Kept {
  std::vector<KeptRecord> records;
  int32_t last_delta = -1;
  int64_t max_ts = -1;
  bool tombstones = false;
};

// keep_all: a control batch (its records are not compacted).
bool collect(const RecordBatchView& plain, const BatchFilterContext& ctx, bool keep_all, bool retain_deletes,
             Kept& kept, BatchFilterStats& stats) {
  RecordIterator it(plain);
  RecordView r;
  const uint8_t* start = plain.records_bytes().data();
  while (it.next(r)) {
    const uint8_t* end = r.headers_bytes.data() + r.headers_bytes.size();
    ++stats.records_read;
    if (keep_all || keep_record(r, r.offset(plain), ctx, retain_deletes)) {
      kept.records.push_back({start, end, r.timestamp(plain)});
      kept.last_delta = r.offset_delta;
      kept.max_ts = std::max(kept.max_ts, r.timestamp(plain));
      kept.tombstones |= !keep_all && !r.value.has_value();
    }
    start = end;
  }
  return it.ok();
}

// One record (length prefix included) with its timestampDelta replaced.
void append_rebased(const KeptRecord& rec, int64_t delta, std::vector<uint8_t>& out) {
  const uint8_t* p = rec.begin;
  int32_t len = 0;
  int64_t old_delta = 0;
  read_varint32(p, rec.end, len);  // both parsed by RecordIterator already
  const uint8_t attrs = *p++;
  read_varint64(p, rec.end, old_delta);
  write_zigzag(out, static_cast<int64_t>(1 + zigzag_size(delta) + static_cast<size_t>(rec.end - p)));
  out.push_back(attrs);
  write_zigzag(out, delta);
  out.insert(out.end(), p, rec.end);
}

bool holds_producer_last_batch(const RecordBatchView& b, const BatchFilterContext& ctx) {
  if (b.producer_id() < 0 || !ctx.producer_last_offsets) return false;
  auto it = ctx.producer_last_offsets->find(b.producer_id());
  return it != ctx.producer_last_offsets->end() && it->second == b.last_offset();
}

void append_copy(const RecordBatchView& b, std::vector<uint8_t>& out) {
  out.insert(out.end(), b.data(), b.data() + b.size_in_bytes());
}

// Kafka's empty batch (writeEmptyHeader): same offsets and producer fields,
// no records, no codec, no delete horizon, baseTimestamp -1.
void append_empty(const RecordBatchView& b, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  out.insert(out.end(), b.data(), b.data() + bl::kHeaderSize);
  const auto attrs =
      static_cast<uint16_t>(static_cast<uint16_t>(b.attributes()) & ~(bl::kCompressionMask | bl::kDeleteHorizonBit));
  finish_batch(out, start, attrs, b.last_offset_delta(), kNoTimestamp, b.max_timestamp(), 0);
}

// The kept records as a new batch; with `stamp`, on the delete horizon.
void append_rewritten(const RecordBatchView& batch, const Kept& kept, bool stamp, const BatchFilterContext& ctx,
                      std::vector<uint8_t>& out) {
  uint16_t attrs = static_cast<uint16_t>(batch.attributes());
  int64_t base_ts = batch.base_timestamp();
  if (stamp) {
    attrs = static_cast<uint16_t>(attrs | bl::kDeleteHorizonBit);
    base_ts = delete_horizon_for(ctx.now_ms, ctx.delete_retention_ms);
  }
  std::vector<uint8_t> plain;
  for (const auto& r : kept.records) {
    if (stamp)
      append_rebased(r, r.timestamp - base_ts, plain);
    else
      plain.insert(plain.end(), r.begin, r.end);
  }
  auto body = compress(batch.compression(), plain);
  if (!body) return append_copy(batch, out);  // library failure: keep the original batch
  const size_t start = out.size();
  out.insert(out.end(), batch.data(), batch.data() + bl::kHeaderSize);
  out.insert(out.end(), body->begin(), body->end());
  const bool log_append = batch.timestamp_type() == TimestampType::kLogAppendTime;
  finish_batch(out, start, attrs, kept.last_delta, base_ts, log_append ? batch.max_timestamp() : kept.max_ts,
               static_cast<int32_t>(kept.records.size()));
}

}  // namespace

void filter_batch(const RecordBatchView& batch, const BatchFilterContext& ctx, std::vector<uint8_t>& out,
                  BatchFilterStats& stats) {
  if (ctx.discard_batch || batch.record_count() == 0) {
    stats.records_read += batch.record_count();
    if (holds_producer_last_batch(batch, ctx)) append_empty(batch, out);
    return;
  }
  const bool control = batch.is_control();
  // A marker stays as it is until it may go; then it gets its horizon once.
  if (control && (!ctx.marker_may_go || batch.has_delete_horizon())) return append_copy(batch, out);
  std::vector<uint8_t> plain_bytes = uncompressed_copy(batch, ctx.max_decompressed_bytes);
  const auto horizon = batch.delete_horizon_ms();
  const bool retain_deletes = !horizon || ctx.now_ms < *horizon;
  Kept kept;
  if (plain_bytes.empty() || !collect(RecordBatchView(plain_bytes), ctx, control, retain_deletes, kept, stats)) {
    stats.corrupt = true;
    return append_copy(batch, out);  // never lose bytes we cannot read
  }
  stats.records_kept += static_cast<int64_t>(kept.records.size());
  if (kept.records.empty()) {
    if (holds_producer_last_batch(batch, ctx)) append_empty(batch, out);
    return;
  }
  const bool stamp = !horizon && (kept.tombstones || control);
  if (!stamp && static_cast<int32_t>(kept.records.size()) == batch.record_count()) return append_copy(batch, out);
  append_rewritten(batch, kept, stamp, ctx, out);
}

}  // namespace skiff::storage
