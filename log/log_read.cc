// Log: the read path (Fetch) and offset lookups (ListOffsets).
#include "log/log.h"

namespace skiff::storage {

ReadResult Log::read(Offset offset, size_t max_bytes) const {
  // A segment deleted by retention between picking it and opening its file
  // (its descriptor was not cached) reads as ENOENT: start over, the log
  // start has moved past it by then.
  for (int attempt = 0;; ++attempt) {
    bool raced = false;
    ReadResult res = read_once(offset, max_bytes, &raced);
    if (!raced || attempt == 3) return res;
  }
}

ReadResult Log::read_once(Offset offset, size_t max_bytes, bool* raced) const {
  ReadResult res;
  const int64_t start = log_start_.load(std::memory_order_acquire);
  const int64_t leo = leo_.load(std::memory_order_acquire);
  res.log_start_offset = Offset(start);
  res.log_end_offset = Offset(leo);
  const int64_t o = offset.value;
  if (o < start || o > leo) {
    res.error = LogErrc::kOffsetOutOfRange;
    return res;
  }
  if (o == leo) return res;
  auto seg = floor_segment(o);
  if (!seg) {  // retention moved the start meanwhile
    res.error = LogErrc::kOffsetOutOfRange;
    return res;
  }
  while (seg) {
    const uint64_t limit = seg->size();
    int err = 0;
    auto h = seg->find_batch(o, limit, &err);
    if (err == 0 && h) res.slice = seg->slice_from(*h, max_bytes, limit, &err);
    if (err != 0) {
      *raced = seg->deleted();
      res.error = LogErrc::kStorageError;
      res.slice = {};
      return res;
    }
    if (h) return res;
    seg = segment_after(seg->base_offset());
  }
  return res;
}

OffsetAndTimestamp Log::offset_for_timestamp(int64_t ts) const {
  const int64_t start = log_start_.load(std::memory_order_acquire);
  for (const auto& seg : snapshot()) {
    if (seg->max_timestamp_so_far().timestamp < ts) continue;
    int err = 0;
    if (auto r = seg->find_offset_by_timestamp(ts, start, &err)) return {Offset(r->offset), r->timestamp};
  }
  return {};
}

OffsetAndTimestamp Log::max_timestamp_offset() const {
  std::shared_ptr<LogSegment> best;
  int64_t best_ts = -1;
  for (const auto& seg : snapshot()) {
    auto m = seg->max_timestamp_so_far();
    if (m.timestamp > best_ts) {
      best_ts = m.timestamp;
      best = seg;
    }
  }
  if (!best) return {};
  int err = 0;
  auto r = best->max_timestamp_record(&err);
  if (!r) return {};
  return {Offset(r->offset), r->timestamp};
}

}  // namespace skiff::storage
