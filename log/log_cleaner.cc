// Log cleaner: choosing the range, mapping keys, passes and groups.
// (Batch rewrite: cleaner_batch.cc; writing a group: cleaner_group.cc;
// swap: log_cleaning.cc.)
#include "log/log_cleaner.h"

#include <algorithm>
#include <cerrno>

#include "log/chunk_reader.h"
#include "log/cleaner_batch.h"
#include "log/cleaner_txn.h"
#include "log/log.h"
#include "log/throttler.h"

namespace skiff::storage {

namespace {

int64_t first_batch_timestamp(const LogSegment& s) {
  auto h = s.find_batch(s.base_offset(), s.size());
  return h && *h ? (*h)->max_timestamp : -1;
}

}  // namespace

CleaningPoint cleaning_point(Log& log, int64_t checkpoint, int64_t now_ms) {
  auto cfg = log.config();
  auto segs = log.inactive_segments();
  const int64_t start = log.log_start_offset().value;
  CleaningPoint p;
  p.first_dirty = (checkpoint < start || checkpoint > log.log_end_offset().value) ? start : checkpoint;
  p.first_uncleanable = log.active_base_offset();
  for (const auto& s : segs) {
    if (s->base_offset().value >= p.first_dirty && cfg->min_compaction_lag_ms > 0 &&
        s->largest_timestamp() > now_ms - cfg->min_compaction_lag_ms) {
      p.first_uncleanable = std::min(p.first_uncleanable, s->base_offset().value);
      break;
    }
  }
  // Never past the last stable offset: an open transaction's records and
  // markers are not touched, and every transaction below it is complete.
  p.first_uncleanable = std::min(p.first_uncleanable, log.last_stable_offset().value);
  // Never past what is durable: a record may only be cleaned away for a newer
  // one a power cut cannot take (a roll's flush moves the recovery point on).
  p.first_uncleanable = std::min(p.first_uncleanable, log.recovery_point().value);
  p.first_uncleanable = std::max(p.first_uncleanable, p.first_dirty);
  for (size_t i = 0; i < segs.size(); ++i) {
    const int64_t next = i + 1 < segs.size() ? segs[i + 1]->base_offset().value : log.active_base_offset();
    if (next <= p.first_dirty) {
      p.clean_bytes += segs[i]->size();
    } else if (segs[i]->base_offset().value < p.first_uncleanable) {
      p.dirty_bytes += segs[i]->size();
      int64_t ts = first_batch_timestamp(*segs[i]);
      if (ts >= 0 && now_ms - ts > cfg->max_compaction_lag_ms) p.max_lag_exceeded = true;
    }
  }
  return p;
}

bool needs_cleaning(const CleaningPoint& p, const LogConfig& cfg) {
  if (!cfg.compact || p.dirty_bytes == 0 || p.first_dirty >= p.first_uncleanable) return false;
  return p.max_lag_exceeded || p.dirty_ratio() >= cfg.min_cleanable_dirty_ratio;
}

Cleaner::Cleaner(CleanerConfig cfg) : cfg_(std::move(cfg)) {}

// Maps keys of [first_dirty, first_uncleanable); returns the end of what was
// mapped: first_uncleanable, or the offset of the first record that no longer
// fit; -1 on an I/O error (res.status set).
int64_t Cleaner::build_map(Log& log, const std::vector<std::shared_ptr<LogSegment>>& segs, int64_t first_dirty,
                           int64_t first_uncleanable, CleanResult& res) {
  if (!map_) map_ = std::make_unique<OffsetMap>(cfg_.dedupe_buffer_bytes, cfg_.dedupe_load_factor);
  map_->clear();
  CleanedTxnState txn(log.collect_aborted_txns(Offset(first_dirty), Offset(first_uncleanable)));
  int64_t stop = -1;
  for (const auto& s : segs) {
    if (s->base_offset().value >= first_uncleanable) break;
    if (res.status = map_segment(*s, first_dirty, first_uncleanable, txn, res, stop); !res.status) return -1;
    if (stop >= 0) break;
  }
  return stop >= 0 ? std::max(stop, first_dirty + 1) : first_uncleanable;
}

// build_map's step over one segment: its batches in range mapped (aborted
// ones and markers only tracked). `stop` becomes the offset of the first
// record that did not fit. An I/O Error on failure.
Result<void> Cleaner::map_segment(const LogSegment& s, int64_t first_dirty, int64_t first_uncleanable,
                                  CleanedTxnState& txn, CleanResult& res, int64_t& stop) {
  auto f = s.acquire_file();
  if (!f) return unexpected(f.error());
  ChunkReader r((*f)->fd(), s.size(), cfg_.io_buffer_bytes);
  BatchHeader h;
  for (uint64_t pos = 0; stop < 0 && read_batch_header(r, pos, h); pos += h.size) {
    if (h.last_offset() < first_dirty) continue;
    if (h.base_offset >= first_uncleanable) break;  // the LSO may fall inside a segment
    const uint8_t* bytes = r.get(pos, h.size);
    if (!bytes) break;
    RecordBatchView b(std::span<uint8_t>(const_cast<uint8_t*>(bytes), h.size));
    res.bytes_read += h.size;
    if (cfg_.throttler) cfg_.throttler->maybe_throttle(h.size);
    if (b.is_control()) {
      txn.on_control_batch(b);
      continue;
    }
    if (txn.on_data_batch(b)) continue;  // aborted: never mapped
    for_each_keyed_record(b, 64u << 20, [&](std::span<const uint8_t> key, int64_t off, bool) {
      if (stop >= 0 || off < first_dirty || off >= first_uncleanable) return;
      if (!map_->put(key, off)) stop = off;
    });
  }
  return r.status();
}

CleanResult Cleaner::clean_once(Log& log, int64_t first_dirty, int64_t first_uncleanable, int64_t now_ms,
                                const AbortCheck& aborted) {
  CleanResult res;
  res.passes = 1;
  auto cfg = log.config();
  auto segs = log.inactive_segments();
  res.end_offset = build_map(log, segs, first_dirty, first_uncleanable, res);
  if (res.end_offset < 0) {
    res.end_offset = first_dirty;
    return res;
  }
  map_end_ = res.end_offset;
  // Segments wholly below end_offset, plus the one it falls in (its records
  // at or past end_offset are not mapped, so they are all kept).
  std::vector<std::shared_ptr<LogSegment>> todo;
  for (const auto& s : segs) {
    if (s->base_offset().value >= res.end_offset) break;
    todo.push_back(s);
  }
  if (todo.empty()) return res;
  int64_t next_base = todo.size() < segs.size() ? segs[todo.size()]->base_offset().value : log.active_base_offset();
  auto groups =
      group_segments_by_size(todo, next_base, cfg->segment_size(), cfg->segment_index_bytes, cfg->index_interval_bytes);
  // One walk of the transactions over every group, from the log start.
  CleanedTxnState txn(log.collect_aborted_txns(todo.front()->base_offset(), Offset(next_base)));
  for (const auto& g : groups) {
    if (aborted && aborted()) {
      res.status = unexpected(Error::io(ECANCELED));
      return res;
    }
    if (res.status = clean_group(log, g, now_ms, txn, res); !res.status) return res;
    ++res.groups;
  }
  return res;
}

CleanResult Cleaner::clean(Log& log, const CleaningPoint& p, int64_t now_ms, const AbortCheck& aborted) {
  CleanResult total;
  total.end_offset = p.first_dirty;
  while (total.end_offset < p.first_uncleanable) {
    CleanResult r = clean_once(log, total.end_offset, p.first_uncleanable, now_ms, aborted);
    total.passes += r.passes;
    total.records_read += r.records_read;
    total.records_kept += r.records_kept;
    total.bytes_read += r.bytes_read;
    total.bytes_written += r.bytes_written;
    total.groups += r.groups;
    if (!r.status) {
      total.status = r.status;
      break;
    }
    if (r.end_offset <= total.end_offset) break;  // no progress possible
    total.end_offset = r.end_offset;
  }
  return total;
}

std::vector<std::vector<std::shared_ptr<LogSegment>>> group_segments_by_size(
    const std::vector<std::shared_ptr<LogSegment>>& segs, int64_t next_base, int64_t max_bytes, int64_t max_index_bytes,
    int64_t index_interval_bytes) {
  // Index entries are 8 (offset) and 12 (time) bytes, one per interval plus one.
  auto index_bytes = [&](uint64_t log_bytes) {
    return static_cast<int64_t>(log_bytes / static_cast<uint64_t>(std::max<int64_t>(1, index_interval_bytes)) + 1) * 12;
  };
  std::vector<std::vector<std::shared_ptr<LogSegment>>> groups;
  for (size_t i = 0; i < segs.size();) {
    std::vector<std::shared_ptr<LogSegment>> g{segs[i]};
    uint64_t bytes = segs[i]->size();
    int64_t idx = index_bytes(segs[i]->size());
    size_t j = i + 1;
    for (; j < segs.size(); ++j) {
      int64_t end = j + 1 < segs.size() ? segs[j + 1]->base_offset().value : next_base;
      bool fits = static_cast<int64_t>(bytes + segs[j]->size()) <= max_bytes &&
                  idx + index_bytes(segs[j]->size()) <= max_index_bytes &&
                  end - 1 - segs[i]->base_offset().value <= INT32_MAX;
      if (!fits) break;
      bytes += segs[j]->size();
      idx += index_bytes(segs[j]->size());
      g.push_back(segs[j]);
    }
    groups.push_back(std::move(g));
    i = j;
  }
  return groups;
}

std::map<TopicPartition, int64_t> read_cleaner_checkpoint(const std::filesystem::path& log_dir) {
  return read_offset_checkpoint(log_dir / kCleanerOffsetCheckpointFile);
}

Result<void> write_cleaner_checkpoint(const std::filesystem::path& log_dir,
                                      const std::map<TopicPartition, int64_t>& offsets) {
  return write_offset_checkpoint(log_dir / kCleanerOffsetCheckpointFile, offsets);
}

}  // namespace skiff::storage
