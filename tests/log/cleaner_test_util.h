// Helpers for the log cleaner tests: a compacted-topic config, batches with
// keys (optionally compressed), reading every record back with its offset,
// timestamp and raw headers, and checks that every batch is a valid batch.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/byte_order.h"
#include "log/cleaner_batch.h"
#include "log/compression.h"
#include "log/log_cleaner.h"
#include "test_util.h"

namespace skiff::storage::test {

// The wall clock the cleaner tests start from (ms).
inline constexpr int64_t kT0 = 1'700'000'000'000;

// A cleaner small enough for tests: `dedupe` bytes of key map, 4 KiB I/O.
inline CleanerConfig small_cleaner(size_t dedupe = 1 << 20) {
  CleanerConfig c;
  c.dedupe_buffer_bytes = dedupe;
  c.io_buffer_bytes = 4096;
  return c;
}

struct Rec {
  int64_t offset = -1;
  std::optional<std::string> key, value;
  int64_t timestamp = -1;
  std::string headers;  // raw header bytes
  auto operator<=>(const Rec&) const = default;
};

inline std::shared_ptr<const LogConfig> compact_config(std::function<void(LogConfig&)> f = nullptr) {
  return config_with([f](LogConfig& c) {
    c.compact = true;
    c.retention_deletes = false;
    c.min_cleanable_dirty_ratio = 0.0;
    if (f) f(c);
  });
}

inline std::string str(std::span<const uint8_t> s) { return {s.begin(), s.end()}; }

// Re-encodes an uncompressed batch's records with `codec` (CRC recomputed).
inline std::vector<uint8_t> with_codec(std::vector<uint8_t> batch, Compression codec) {
  if (codec == Compression::kNone) return batch;
  RecordBatchView v(batch);
  auto body = compress(codec, v.records_bytes());
  std::vector<uint8_t> out(batch.begin(), batch.begin() + batch_layout::kHeaderSize);
  out.insert(out.end(), body->begin(), body->end());
  store_be32(out.data() + batch_layout::kBatchLength, static_cast<uint32_t>(out.size() - 12));
  uint16_t attrs = static_cast<uint16_t>(v.attributes() | static_cast<uint16_t>(codec));
  store_be16(out.data() + batch_layout::kAttributes, attrs);
  RecordBatchView nv(out);
  store_be32(out.data() + batch_layout::kCrc, nv.compute_crc());
  return out;
}

// Every record the log serves, in offset order. Checks each batch: CRC,
// record count, every record and header parses, offsets increasing, maxTimestamp.
inline std::vector<Rec> read_records(const Log& log) {
  std::vector<Rec> out;
  int64_t last = -1;
  for (auto& bytes : read_all_batches(log)) {
    RecordBatchView b(bytes);
    REQUIRE(b.crc_valid());
    REQUIRE(b.base_offset() > last);
    last = b.last_offset();
    if (b.record_count() == 0) continue;
    auto plain = uncompressed_copy(b, 1 << 26);
    RecordBatchView p(plain);
    REQUIRE(b.validate_header_and_crc());
    RecordIterator it(p);
    RecordView r;
    int64_t max_ts = -1, last_off = -1;
    int32_t count = 0;
    while (it.next(r)) {
      ++count;
      HeaderIterator hi(r);
      RecordHeaderView h;
      while (hi.next(h)) {
      }
      REQUIRE(hi.ok());
      REQUIRE(r.offset(p) > last_off);
      Rec x;
      x.offset = r.offset(p);
      if (r.key) x.key = str(*r.key);
      if (r.value) x.value = str(*r.value);
      x.timestamp = r.timestamp(p);
      x.headers = str(r.headers_bytes);
      max_ts = std::max(max_ts, x.timestamp);
      last_off = x.offset;
      out.push_back(x);
    }
    REQUIRE(it.ok());
    REQUIRE(count == b.record_count());
    REQUIRE(last_off == b.last_offset());
    if (b.timestamp_type() == TimestampType::kCreateTime) REQUIRE(max_ts == b.max_timestamp());
  }
  return out;
}

// The exact expected result of cleaning everything below `end` (all dirty):
// below end, only the latest record of each key below end (tombstones too
// when `keep_tombstones`); from end on, everything.
inline std::vector<Rec> model_after_clean(const std::vector<Rec>& before, int64_t end, bool keep_tombstones) {
  std::map<std::string, int64_t> latest;
  for (const auto& r : before)
    if (r.offset < end && r.key) latest[*r.key] = r.offset;
  std::vector<Rec> out;
  for (const auto& r : before) {
    if (r.offset >= end) {
      out.push_back(r);
      continue;
    }
    if (!r.key || latest[*r.key] != r.offset) continue;
    if (!r.value && !keep_tombstones) continue;
    out.push_back(r);
  }
  return out;
}

// Flushes the whole log: the cleaner cleans only what is durable (below the
// recovery point), which a broker's roll flush moves on and a test must.
inline void make_durable(Log& log) { REQUIRE(log.flush().has_value()); }

// The cleaning point of `log` once all of it is durable.
inline CleaningPoint durable_point(Log& log, int64_t checkpoint, int64_t now_ms) {
  make_durable(log);
  return cleaning_point(log, checkpoint, now_ms);
}

inline CleaningPoint clean_all(Log& log, Cleaner& c, int64_t checkpoint, int64_t now_ms, CleanResult* res = nullptr) {
  CleaningPoint p = durable_point(log, checkpoint, now_ms);
  CleanResult r = c.clean(log, p, now_ms);
  REQUIRE(r.status.has_value());
  REQUIRE(r.end_offset == p.first_uncleanable);
  if (res) *res = r;
  return p;
}

}  // namespace skiff::storage::test
