// Log: the read path (Fetch) and offset lookups (ListOffsets).
#include <algorithm>
#include <climits>

#include "log/log.h"

namespace skiff::storage {

namespace {

// Ends `slice` before the batch holding `max_offset` if that batch is in it.
Result<void> cut_at(const LogSegment& seg, FileSlice& slice, int64_t max_offset, uint64_t limit) {
  auto found = seg.find_batch(Offset(max_offset), limit);
  if (!found) return unexpected(found.error());
  const auto& bound = *found;
  if (!bound) return {};
  const int64_t end = slice.position + static_cast<int64_t>(slice.length);
  if (bound->position >= static_cast<uint64_t>(slice.position) && static_cast<int64_t>(bound->position) < end)
    slice.length = bound->position - static_cast<uint64_t>(slice.position);
  return {};
}

// The batches of `seg` from `offset` (up to max_bytes, and below max_offset
// when `cut`) within its first `limit` bytes into `res`; false if those
// hold nothing from `offset` on.
Result<bool> read_segment(const LogSegment& seg, Offset offset, size_t max_bytes, int64_t max_offset, uint64_t limit,
                          bool cut, ReadResult& res) {
  auto found = seg.find_batch(offset, limit);
  if (!found) return unexpected(found.error());
  const auto& h = *found;
  if (!h) return false;
  if (h->base_offset >= max_offset) return true;
  auto slice = seg.slice_from(*h, max_bytes, limit);
  if (!slice) return unexpected(slice.error());
  res.slice = std::move(*slice);
  if (cut) {
    if (auto done = cut_at(seg, res.slice, max_offset, limit); !done) return unexpected(done.error());
  }
  return true;
}

}  // namespace

ReadResult Log::read(Offset offset, size_t max_bytes) const { return read(offset, max_bytes, Offset(INT64_MAX)); }

ReadResult Log::read(Offset offset, size_t max_bytes, Offset max_offset) const {
  // A segment deleted by retention between picking it and opening its file
  // (its descriptor was not cached) reads as ENOENT: start over, the log
  // start has moved past it by then.
  for (int attempt = 0;; ++attempt) {
    bool raced = false;
    ReadResult res = read_once(offset, max_bytes, max_offset.value, &raced);
    if (!raced || attempt == 3) return res;
  }
}

// `max_offset`: only batches with a base offset below it (the LSO is always
// a batch boundary, so this cuts at the batch holding it).
//
// A read never passes the end it reports (as Kafka bounds a fetch by the
// high watermark's position): an append publishes the end offsets first and
// its segment's new size last (append_impl), so the size of the segment
// read, loaded here before the ends, covers only offsets below them. A later
// segment (the log rolled since) has no such bound: its read is cut at the
// end loaded here.
ReadResult Log::read_once(Offset offset, size_t max_bytes, int64_t max_offset, bool* raced) const {
  ReadResult res;
  const int64_t o = offset.value;
  auto seg = floor_segment(o);
  const uint64_t limit = seg ? seg->size() : 0;              // before the ends
  const int64_t lso = lso_.load(std::memory_order_acquire);  // before the end: lso <= leo
  const int64_t start = log_start_.load(std::memory_order_acquire);
  const int64_t leo = leo_.load(std::memory_order_acquire);
  res.log_start_offset = Offset(start);
  res.log_end_offset = Offset(leo);
  res.last_stable_offset = Offset(lso);
  if (o < start || o > leo) {
    res.error = LogErrc::kOffsetOutOfRange;
    return res;
  }
  if (o == leo || o >= max_offset) return res;
  if (!seg) {  // retention moved the start meanwhile
    res.error = LogErrc::kOffsetOutOfRange;
    return res;
  }
  const int64_t bound = std::min(max_offset, leo);
  for (bool first = true; seg; first = false) {
    auto found = read_segment(*seg, offset, max_bytes, bound, first ? limit : seg->size(), !first || bound < leo, res);
    if (!found) {
      *raced = seg->deleted();
      res.error = LogErrc::kStorageError;
      res.slice = {};
      return res;
    }
    if (*found) return res;
    seg = segment_after(seg->base_offset().value);
  }
  return res;
}

OffsetAndTimestamp Log::offset_for_timestamp(int64_t ts) const {
  const int64_t start = log_start_.load(std::memory_order_acquire);
  for (const auto& seg : snapshot()) {
    if (seg->max_timestamp_so_far().timestamp < ts) continue;
    auto r = seg->find_offset_by_timestamp(ts, Offset(start));
    if (r && *r) return {(*r)->offset, (*r)->timestamp};
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
  auto r = best->max_timestamp_record();
  if (!r || !*r) return {};
  return {(*r)->offset, (*r)->timestamp};
}

}  // namespace skiff::storage
