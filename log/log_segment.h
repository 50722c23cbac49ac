// LogSegment: one segment of a partition log: `<base>.log` (record batches,
// exactly as produced, with our offsets), `<base>.index` (OffsetIndex) and
// `<base>.timeindex` (TimeIndex); <base> is the 20-digit zero-padded base
// offset. Mirrors Kafka's LogSegment.
//
// .log byte layout: record batches back to back (see record_batch.h), no
// framing of its own. Indexes: see offset_index.h / time_index.h; one entry
// per index.interval.bytes of log, added before the batch that crosses it.
//
// Descriptors: the segment holds none of its own. All three files live in
// the shared FdCache (fd_cache.h): every operation acquires a pinned FdRef
// for its duration (a read's FileSlice keeps it until sent), and the cache
// closes cold descriptors. So a partition costs no descriptor while idle.
//
// Threads: mutators (append, recover, become_inactive, truncate, delete) run
// under the owning Log's append lock. size(), read paths, timestamps and
// acquire_file() may be called by any thread concurrently: the committed size
// is published (release) only after the bytes and index entries are written.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "log/chunk_reader.h"
#include "log/clean_log_state.h"
#include "log/file_slice.h"
#include "log/offset_index.h"
#include "log/time_index.h"

namespace skiff::storage {

// Per-batch facts the Log gathered while validating an append.
struct BatchAppendInfo {
  uint32_t size = 0;              // bytes of this batch
  int32_t last_offset_delta = 0;  // from the batch header
  Offset last_offset;             // set by offset assignment
  int64_t max_timestamp = 0;      // after LogAppendTime rewrite
};

struct SegmentRecovery {
  uint64_t valid_bytes = 0;
  uint64_t truncated_bytes = 0;
  int64_t next_offset = 0;     // offset after the last valid batch (base if none)
  uint64_t scanned_bytes = 0;  // bytes read and validated (recover_tail: the tail only)
  bool from_index = false;     // recover_tail trusted the bytes before an index entry
};

std::string segment_file_name(int64_t base_offset, const char* suffix);

class LogSegment {
 public:
  // Creates fresh, empty files (truncating leftovers). An I/O Error (errno)
  // on failure, with nothing left behind.
  static Result<std::shared_ptr<LogSegment>> create(std::shared_ptr<FdCache> cache, const std::filesystem::path& dir,
                                                    int64_t base_offset, size_t index_max_bytes, int64_t now_ms);
  // Opens existing files; creates missing index files (then indexes_missing()
  // is true). `indexes_listed`: the caller's directory listing showed both
  // index files (no need to look again). Throws std::system_error.
  static std::shared_ptr<LogSegment> open(std::shared_ptr<FdCache> cache, const std::filesystem::path& dir,
                                          int64_t base_offset, bool indexes_listed = false);
  // The last segment of a log closed cleanly, from what the close recorded
  // (clean_log_state.h): opens no file. Its indexes stay trimmed until the
  // first append (ensure_appendable).
  static std::shared_ptr<LogSegment> restore(std::shared_ptr<FdCache> cache, const std::filesystem::path& dir,
                                             const CleanLogState& state);
  ~LogSegment();

  Offset base_offset() const { return Offset(base_); }
  uint64_t size() const { return size_.load(std::memory_order_acquire); }
  // A pinned descriptor of the .log (reopened if the cache closed it); an
  // I/O Error on failure (ENOENT once delete_files() ran).
  Result<FdRef> acquire_file() const { return log_file_.acquire(); }
  std::filesystem::path log_path() const { return log_file_.path(); }
  // True once delete_files() ran (a reader that lost the race retries).
  bool deleted() const { return deleted_.load(std::memory_order_acquire); }
  OffsetIndex& offset_index() { return offset_index_; }
  TimeIndex& time_index() { return time_index_; }
  bool indexes_missing() const { return indexes_missing_; }

  // --- writer side (Log's append lock held) ---
  // Writes `bytes` (whole batches, offsets already assigned) at the end and
  // indexes them; returns the segment's new size. Readers do not see the
  // bytes until publish(new size), which the Log does together with its end
  // offset (Log::publish_locked). The next append starts at the published
  // size, so every append is published before the next. On failure (an I/O
  // Error) the file and indexes are rolled back.
  Result<uint64_t> append(std::span<const uint8_t> bytes, std::span<const BatchAppendInfo> batches,
                          int64_t index_interval_bytes, int64_t now_ms);
  void publish(uint64_t size) { size_.store(size, std::memory_order_release); }
  // Full scan from byte 0: validates each batch (length, magic, CRC, offsets
  // increasing), rebuilds both indexes, truncates at the first invalid byte.
  // The indexes must be appendable (make_appendable). errno via exception.
  SegmentRecovery recover(int64_t index_interval_bytes, size_t index_max_bytes);
  // recover() after a process crash on the same boot, when the page cache
  // outlived the writer (every write(2) that returned is in the file, only
  // the last append can be torn): trusts the bytes before the last
  // offset-index entry whose batch checks out (a strictly increasing index
  // prefix, the batch whole, CRC-valid, its last offset the entry's) and
  // validates and indexes only from that batch on, cutting a torn tail. With
  // no such entry (a segment smaller than index.interval.bytes, an index that
  // does not check out) it is recover().
  SegmentRecovery recover_tail(int64_t index_interval_bytes, size_t index_max_bytes);
  // For a segment opened clean as the last one: reads its tail to learn the
  // next offset, and prepares the indexes for appends.
  int64_t load_as_active(size_t index_max_bytes);
  Result<void> make_appendable(size_t index_max_bytes);
  // make_appendable unless already done: a restored segment's first append.
  Result<void> ensure_appendable(size_t index_max_bytes);
  int64_t bytes_since_last_index_entry() const { return bytes_since_last_index_entry_; }
  // Kafka's `preallocate`: allocates the .log's disk blocks up to `bytes`
  // ahead of the appends (fallocate, FALLOC_FL_KEEP_SIZE), so an append
  // writes into allocated blocks instead of allocating them as it goes. The
  // file's size does not change: readers, recovery and copies see only what
  // was appended. Best effort: where the file system cannot, or the disk is
  // full, the segment is written with plain appends (logged, not an error).
  void preallocate(uint64_t bytes);
  // Final time index entry + trims both index files, fsyncs them and closes
  // their fds; gives back blocks allocated past the .log's end (preallocate)
  // (roll, clean close).
  Result<void> become_inactive();
  // For inactive segments opened clean: the mappings suffice.
  void release_index_fds();
  // Index sanity on open (Kafka-like cheap checks).
  bool indexes_sane();
  Result<void> flush_log();
  Result<void> flush_indexes();
  void mark_fully_flushed() { fully_flushed_.store(true, std::memory_order_release); }
  bool fully_flushed() const { return fully_flushed_.load(std::memory_order_acquire); }
  // Unlinks the files; readers holding a FileSlice / FdRef keep reading.
  void delete_files();

  // --- reader side (any thread) ---
  // Each fails only on an I/O error.
  // The first batch whose last offset >= target, scanning from the index
  // entry below target. nullopt if the segment has none.
  Result<std::optional<BatchHeader>> find_batch(Offset target, uint64_t limit) const;
  // Whole batches starting at `first` up to max_bytes (the first always whole).
  Result<FileSlice> slice_from(const BatchHeader& first, size_t max_bytes, uint64_t limit) const;
  // First record with timestamp >= ts and offset >= min_offset, with its timestamp.
  Result<std::optional<TimestampOffset>> find_offset_by_timestamp(int64_t ts, Offset min_offset) const;
  // Exact record offset of the max timestamp (ListOffsets -3).
  Result<std::optional<TimestampOffset>> max_timestamp_record() const;
  // Largest batch max-timestamp seen and the last offset of that batch.
  TimestampOffset max_timestamp_so_far() const;
  // For retention: max timestamp, or the file's mtime if no timestamps.
  int64_t largest_timestamp() const;
  // Wall time the segment's age is measured from (segment.ms roll).
  int64_t roll_base_ms() const { return roll_base_ms_; }

 private:
  LogSegment(std::shared_ptr<FdCache> cache, const std::filesystem::path& dir, int64_t base);
  void note_batch(Offset last_offset, int64_t max_ts);
  Result<void> index_batch(Offset last_offset, uint64_t pos);
  // recover()'s walk: from `pos` (offsets from `next` on, `bytes_since`
  // bytes since the last index entry), validates and indexes batches up to
  // the first invalid byte, cuts the file there and publishes the size.
  SegmentRecovery scan_and_cut(const FdRef& file, uint64_t file_size, uint64_t pos, int64_t next, int64_t bytes_since,
                               int64_t index_interval_bytes);
  // recover_tail's choice: the offset-index entry to resume at, its entries
  // after it dropped, the time index cut to match (nullopt: none checks out).
  std::optional<OffsetPosition> trusted_index_point(ChunkReader& r, uint64_t file_size);

  std::shared_ptr<FdCache> cache_;  // outlives the three CachedFiles below
  // `<dir>/<base, 20 digits>`: its three files' names without extension
  // (SegmentStem); declared before them.
  const std::string stem_;
  std::string dir() const { return stem_.substr(0, stem_.rfind('/')); }  // for messages
  int64_t base_;
  CachedFile log_file_;
  OffsetIndex offset_index_;
  TimeIndex time_index_;
  std::atomic<uint64_t> size_{0};
  bool indexes_missing_ = false;
  std::atomic<bool> deleted_{false};
  std::atomic<bool> fully_flushed_{false};
  int64_t bytes_since_last_index_entry_ = 0;  // writer only
  int64_t roll_base_ms_ = 0;                  // writer only after open

  // max_ts_ (a pair read by readers) is guarded by ts_lock().
  std::mutex& ts_lock() const;
  TimestampOffset max_ts_{-1, Offset(-1)};
};

}  // namespace skiff::storage
