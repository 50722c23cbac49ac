// Log: the read path (Fetch) and offset lookups (ListOffsets).
#include <algorithm>
#include <climits>
#include <thread>

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
                          bool cut, ReadSlice& res) {
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

Result<ReadSlice> Log::read(Offset offset, size_t max_bytes) const {
  return read(offset, max_bytes, Offset(INT64_MAX));
}

Result<ReadSlice> Log::read(Offset offset, size_t max_bytes, Offset max_offset) const {
  // A segment deleted by retention between picking it and opening its file
  // (its descriptor was not cached) reads as ENOENT: start over, the log
  // start has moved past it by then.
  for (int attempt = 0;; ++attempt) {
    bool raced = false;
    Result<ReadSlice> res = read_once(offset, max_bytes, max_offset.value, &raced);
    if (!raced || attempt == 3) return res;
  }
}

// `max_offset`: only batches with a base offset below it (the LSO is always
// a batch boundary, so this cuts at the batch holding it).
//
// A read never passes the end it reports, and finds every offset below it
// (as Kafka bounds a fetch by the high watermark's position): it reads the
// segment holding `offset` up to that segment's size of the same publish
// as the end (ends()). A later segment (the log rolled since) is cut at
// that end.
Result<ReadSlice> Log::read_once(Offset offset, size_t max_bytes, int64_t max_offset, bool* raced) const {
  ReadSlice res;
  const int64_t o = offset.value;
  auto seg = floor_segment(o);
  const Ends e = ends(seg.get());
  // The local start first: it is stored after the log start it may follow
  // (release), so this log start is at least as new.
  const int64_t local = local_start_.load(std::memory_order_acquire);
  const int64_t start = log_start_.load(std::memory_order_acquire);
  const int64_t leo = e.leo;
  const uint64_t limit = e.limit;
  res.log_start_offset = Offset(start);
  res.log_end_offset = Offset(leo);
  res.last_stable_offset = Offset(e.lso);
  if (o < start || o > leo) return unexpected(Error::of(LogErrc::kOffsetOutOfRange));
  if (o < local) return unexpected(Error::of(LogErrc::kOffsetMovedToTieredStorage));  // a remote read
  if (o == leo || o >= max_offset) return res;
  if (!seg) {  // retention deleted it meanwhile: the next attempt sees where the start(s) went
    *raced = true;
    return unexpected(Error::of(LogErrc::kOffsetOutOfRange));
  }
  const int64_t bound = std::min(max_offset, leo);
  for (bool first = true; seg; first = false) {
    auto found = read_segment(*seg, offset, max_bytes, bound, first ? limit : seg->size(), !first || bound < leo, res);
    if (!found) {
      *raced = seg->deleted();
      Error e = std::move(found.error());
      e.code = LogErrc::kStorageError;
      return unexpected(std::move(e));
    }
    if (*found) return res;
    seg = segment_after(seg->base_offset().value);
  }
  return res;
}

// A sequence lock's reader: the loads are acquire, so the second look at
// the sequence number comes after them, and a store of publish_locked they
// saw makes it differ from the first. A writer is never held up; a reader
// that catches one mid-publish (a few stores) tries again, and yields if
// the writer was preempted there.
Log::Ends Log::ends(const LogSegment* seg) const {
  for (int tries = 1;; ++tries) {
    const uint64_t seq = publish_seq_.load(std::memory_order_acquire);
    if ((seq & 1) == 0) {
      Ends e;
      e.lso = lso_.load(std::memory_order_acquire);
      e.leo = leo_.load(std::memory_order_acquire);
      e.limit = seg ? seg->size() : 0;
      if (publish_seq_.load(std::memory_order_relaxed) == seq) return e;
    }
    if (tries % 64 == 0) std::this_thread::yield();
  }
}

OffsetAndTimestamp Log::offset_for_timestamp(int64_t ts) const {
  const int64_t start = local_start_.load(std::memory_order_acquire);  // the log start without tiered storage
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
