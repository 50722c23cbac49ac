#include "log/log_segment.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <system_error>

#include "log/chunk_reader.h"
#include "log/lock_stripes.h"
#include "log/record_batch.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace {
constexpr size_t kHeaderScanChunk = size_t{16} * 1024;
constexpr size_t kRecoveryChunk = 1 << 20;

// Gives back the blocks a file holds past its end (preallocate, or one left
// by a crash), keeping its mtime (retention and segment.ms may read it).
// Files that hold none are not touched.
Result<void> trim_allocation(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return unexpected(Error::io(errno));
  const auto block = std::max<int64_t>(st.st_blksize, 512);
  const int64_t held = static_cast<int64_t>(st.st_blocks) * 512;
  if (held <= (st.st_size + block - 1) / block * block) return {};
  if (::ftruncate(fd, st.st_size) != 0) return unexpected(Error::io(errno));
  const struct timespec times[2] = {{0, UTIME_OMIT}, st.st_mtim};
  if (::futimens(fd, times) != 0) return unexpected(Error::io(errno));
  return {};
}

int64_t file_mtime_ms(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

// The batch at `pos` if recovery keeps it: whole within the file, its header
// and CRC valid, its offsets after `next` and within the segment's 32-bit
// relative range from `base`. nullopt ends recovery there (the tail is cut).
std::optional<RecordBatchView> recoverable_batch(ChunkReader& r, uint64_t pos, uint64_t file_size, int64_t base,
                                                 int64_t next) {
  const uint8_t* p = r.get(pos, batch_layout::kLogOverhead);
  if (!p) return std::nullopt;
  const int64_t sz = batch_size_from_prefix(p, batch_layout::kLogOverhead);
  if (sz < static_cast<int64_t>(batch_layout::kHeaderSize) || pos + static_cast<uint64_t>(sz) > file_size)
    return std::nullopt;
  const uint8_t* bp = r.get(pos, static_cast<size_t>(sz));
  if (!bp) return std::nullopt;
  RecordBatchView v({const_cast<uint8_t*>(bp), static_cast<size_t>(sz)});
  if (!v.validate_header_and_crc()) return std::nullopt;
  if (v.base_offset() < next || v.last_offset_delta() < 0 || v.last_offset() - base > INT32_MAX) return std::nullopt;
  return v;
}
}  // namespace

std::string segment_file_name(int64_t base_offset, const char* suffix) {
  return fmt::format("{:020d}{}", base_offset, suffix);
}

namespace {
std::string stem_in(const std::string& dir, int64_t base_offset) {
  std::string out;
  out.reserve(dir.size() + 21);
  out.append(dir);
  if (!dir.empty() && dir.back() != '/') out.push_back('/');
  fmt::format_to(std::back_inserter(out), "{:020d}", base_offset);
  return out;
}
}  // namespace

// The stem is joined as text: a std::filesystem::path join parses both
// sides into components, at every start.
LogSegment::LogSegment(std::shared_ptr<FdCache> cache, const std::filesystem::path& dir, int64_t base)
    : cache_(std::move(cache)),
      stem_(stem_in(dir.native(), base)),
      base_(base),
      log_file_(*cache_, SegmentStem{&stem_}, ".log"),
      offset_index_(*cache_, SegmentStem{&stem_}, Offset(base)),
      time_index_(*cache_, SegmentStem{&stem_}, Offset(base)) {}

LogSegment::~LogSegment() = default;

Result<std::shared_ptr<LogSegment>> LogSegment::create(std::shared_ptr<FdCache> cache, const std::filesystem::path& dir,
                                                       int64_t base_offset, size_t index_max_bytes, int64_t now_ms) {
  std::shared_ptr<LogSegment> seg(new LogSegment(std::move(cache), dir, base_offset));
  if (auto f = seg->log_file_.open(true, true); !f) return unexpected(f.error());
  try {  // IndexFile::open throws (it serves startup load too)
    seg->offset_index_.file().open(true);
    seg->time_index_.file().open(true);
  } catch (const std::system_error& e) {
    seg->delete_files();
    return unexpected(Error::io(e.code().value()));
  }
  if (auto r = seg->make_appendable(index_max_bytes); !r) {
    seg->delete_files();
    return unexpected(r.error());
  }
  seg->roll_base_ms_ = now_ms;
  return seg;
}

std::shared_ptr<LogSegment> LogSegment::open(std::shared_ptr<FdCache> cache, const std::filesystem::path& dir,
                                             int64_t base_offset, bool indexes_listed) {
  std::shared_ptr<LogSegment> seg(new LogSegment(std::move(cache), dir, base_offset));
  const auto& log_path = seg->log_file_.path();
  auto file = seg->log_file_.open(false, false);
  if (!file) throw_io(file.error(), "open " + log_path.string());
  const int fd = (*file)->fd();
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::system_error(errno, std::generic_category(), "fstat " + log_path.string());
  seg->size_.store(static_cast<uint64_t>(st.st_size), std::memory_order_release);
  seg->indexes_missing_ = !indexes_listed && (!std::filesystem::exists(seg->offset_index_.file().path()) ||
                                              !std::filesystem::exists(seg->time_index_.file().path()));
  seg->offset_index_.file().open();
  seg->time_index_.file().open();
  // Age for segment.ms: the first batch's timestamp, else the file's mtime.
  seg->roll_base_ms_ = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  ChunkReader r(fd, static_cast<uint64_t>(st.st_size), batch_layout::kHeaderSize);
  BatchHeader h;
  if (read_batch_header(r, 0, h) && h.max_timestamp >= 0) seg->roll_base_ms_ = h.max_timestamp;
  return seg;
}

std::shared_ptr<LogSegment> LogSegment::restore(std::shared_ptr<FdCache> cache, const std::filesystem::path& dir,
                                                const CleanLogState& state) {
  std::shared_ptr<LogSegment> seg(new LogSegment(std::move(cache), dir, state.active_base));
  seg->size_.store(state.log_bytes, std::memory_order_release);
  seg->offset_index_.file().restore(state.offset_entries);
  seg->time_index_.file().restore(state.time_entries);
  seg->roll_base_ms_ = state.roll_base_ms;
  seg->bytes_since_last_index_entry_ = state.bytes_since_index;
  seg->max_ts_ = {state.max_timestamp, Offset(state.max_timestamp_offset)};
  return seg;
}

std::mutex& LogSegment::ts_lock() const {
  static LockStripes<> ts_locks;
  return ts_locks.for_object(this);
}

void LogSegment::note_batch(Offset last_offset, int64_t max_ts) {
  std::lock_guard lk(ts_lock());
  if (max_ts > max_ts_.timestamp) max_ts_ = {max_ts, last_offset};
}

TimestampOffset LogSegment::max_timestamp_so_far() const {
  std::lock_guard lk(ts_lock());
  return max_ts_;
}

int64_t LogSegment::largest_timestamp() const {
  auto m = max_timestamp_so_far();
  return m.timestamp >= 0 ? m.timestamp : file_mtime_ms(log_file_.path());
}

Result<void> LogSegment::ensure_appendable(size_t index_max_bytes) {
  if (offset_index_.file().appendable() && time_index_.file().appendable()) return {};
  return make_appendable(index_max_bytes);
}

Result<void> LogSegment::make_appendable(size_t index_max_bytes) {
  if (auto r = offset_index_.file().make_appendable(index_max_bytes); !r) return r;
  return time_index_.file().make_appendable(index_max_bytes);
}

Result<uint64_t> LogSegment::append(std::span<const uint8_t> bytes, std::span<const BatchAppendInfo> batches,
                                    int64_t index_interval_bytes, int64_t now_ms) {
  const uint64_t pos0 = size_.load(std::memory_order_relaxed);
  auto acquired = log_file_.acquire();
  if (!acquired) return unexpected(acquired.error());
  const FdRef& file = *acquired;
  if (int rc = pwrite_full(file->fd(), bytes.data(), bytes.size(), static_cast<int64_t>(pos0)); rc != 0) {
    (void)::ftruncate(file->fd(), static_cast<off_t>(pos0));  // drop a partial write
    return unexpected(Error::io(rc));
  }
  const size_t saved_off_entries = offset_index_.entries();
  const size_t saved_time_entries = time_index_.entries();
  const int64_t saved_bytes_since = bytes_since_last_index_entry_;
  const TimestampOffset saved_max_ts = max_timestamp_so_far();
  uint64_t pos = pos0;
  Result<void> rc;
  for (const auto& b : batches) {
    note_batch(b.last_offset, b.max_timestamp);
    if (bytes_since_last_index_entry_ > index_interval_bytes && !offset_index_.file().full()) {
      rc = index_batch(b.last_offset, pos);
      if (!rc) break;
      bytes_since_last_index_entry_ = 0;
    }
    pos += b.size;
    bytes_since_last_index_entry_ += b.size;
  }
  if (!rc) {
    offset_index_.file().truncate_entries(saved_off_entries);
    time_index_.file().truncate_entries(saved_time_entries);
    bytes_since_last_index_entry_ = saved_bytes_since;
    {
      std::lock_guard lk(ts_lock());
      max_ts_ = saved_max_ts;
    }
    (void)::ftruncate(file->fd(), static_cast<off_t>(pos0));
    return unexpected(rc.error());
  }
  if (pos0 == 0) roll_base_ms_ = now_ms;
  fully_flushed_.store(false, std::memory_order_release);
  return pos;
}

// An entry in both indexes for the batch ending at `last_offset`, at byte
// `pos` of the .log. Writer only.
Result<void> LogSegment::index_batch(Offset last_offset, uint64_t pos) {
  if (auto r = offset_index_.append(last_offset, static_cast<uint32_t>(pos)); !r) return r;
  auto m = max_timestamp_so_far();
  if (m.timestamp < 0) return {};
  return time_index_.maybe_append(m.timestamp, m.offset);
}

SegmentRecovery LogSegment::recover(int64_t index_interval_bytes, size_t index_max_bytes) {
  if (auto r = make_appendable(index_max_bytes); !r) throw_io(r.error(), "index resize in " + dir());
  offset_index_.file().truncate_entries(0);
  time_index_.file().truncate_entries(0);
  {
    std::lock_guard lk(ts_lock());
    max_ts_ = {-1, Offset(-1)};
  }
  auto acquired = log_file_.acquire();
  if (!acquired) throw_io(acquired.error(), "open " + log_file_.path().string());
  struct stat st {};
  if (::fstat((*acquired)->fd(), &st) != 0) throw std::system_error(errno, std::generic_category(), "fstat");
  return scan_and_cut(*acquired, static_cast<uint64_t>(st.st_size), 0, base_, 0, index_interval_bytes);
}

SegmentRecovery LogSegment::scan_and_cut(const FdRef& file, uint64_t file_size, uint64_t pos, int64_t next,
                                         int64_t bytes_since, int64_t index_interval_bytes) {
  const uint64_t start = pos;
  ChunkReader r(file->fd(), file_size, kRecoveryChunk);
  while (auto v = recoverable_batch(r, pos, file_size, base_, next)) {
    note_batch(Offset(v->last_offset()), v->max_timestamp());
    if (bytes_since > index_interval_bytes && !offset_index_.file().full()) {
      if (auto ir = index_batch(Offset(v->last_offset()), pos); !ir) throw_io(ir.error(), "index write in " + dir());
      bytes_since = 0;
    }
    pos += v->size_in_bytes();
    bytes_since += static_cast<int64_t>(v->size_in_bytes());
    next = v->next_offset();
  }
  if (auto st = r.status(); !st) throw_io(st.error(), "read " + log_file_.path().string());
  // The cut is made durable: lost at a power cut, the invalid bytes would
  // come back in a segment a later start no longer scans (below its
  // recovery point), and be served (issue 57's torn-page cuts).
  if (pos < file_size && (::ftruncate(file->fd(), static_cast<off_t>(pos)) != 0 || ::fsync(file->fd()) != 0)) {
    throw std::system_error(errno, std::generic_category(), "truncate " + log_file_.path().string());
  }
  size_.store(pos, std::memory_order_release);
  bytes_since_last_index_entry_ = bytes_since;
  indexes_missing_ = false;
  return {pos, file_size - pos, next, file_size - start, false};
}

namespace {

// How many entries of an index left by a crash are real: they come first
// (positions > 0: a segment's first batch is never indexed), the zeros of
// the preallocated file after them. The search reads with pread (peek): the
// zeros may be holes of a sparse file, and a mapped read of a hole faults a
// page in, which on a full tmpfs is SIGBUS; the real entries' pages exist.
size_t real_entries(const OffsetIndex& idx) {
  size_t lo = 0;
  size_t hi = idx.entries();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (idx.peek(mid).position > 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// How many of entries [0, n) increase strictly in offset and position and
// point inside the file (the entries past a torn tail do not).
size_t increasing_prefix(const OffsetIndex& idx, size_t n, uint64_t file_size) {
  OffsetPosition prev{Offset(idx.base_offset().value - 1), 0};
  for (size_t i = 0; i < n; ++i) {
    auto e = idx.entry(i);
    if (e.offset.value <= prev.offset.value || e.position <= prev.position || e.position >= file_size) return i;
    prev = e;
  }
  return n;
}

// The same for a time index: real entries are not all zero.
size_t real_time_entries(const TimeIndex& idx) {
  size_t lo = 0;
  size_t hi = idx.entries();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const auto e = idx.peek(mid);
    if (e.timestamp != 0 || e.offset.value != 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Time-index entries that go with an offset index cut after `last`: the
// strictly increasing prefix whose offsets are at most `last`.
size_t time_entries_upto(const TimeIndex& idx, Offset last) {
  size_t n = 0;
  TimestampOffset prev{-1, Offset(-1)};
  const size_t real = real_time_entries(idx);
  for (; n < real; ++n) {
    auto e = idx.entry(n);
    if (e.timestamp <= prev.timestamp || e.offset.value < prev.offset.value || e.offset.value > last.value) break;
    prev = e;
  }
  return n;
}

}  // namespace

std::optional<OffsetPosition> LogSegment::trusted_index_point(ChunkReader& r, uint64_t file_size) {
  constexpr size_t kTries = 4;  // entries tried back from the last one
  const size_t n = increasing_prefix(offset_index_, real_entries(offset_index_), file_size);
  for (size_t k = n; k > 0 && n - k < kTries; --k) {
    auto e = offset_index_.entry(k - 1);
    auto v = recoverable_batch(r, e.position, file_size, base_, base_);
    if (!v || v->last_offset() != e.offset.value) continue;
    offset_index_.file().truncate_entries(k);
    const size_t t = time_entries_upto(time_index_, e.offset);
    time_index_.file().truncate_entries(t);
    std::lock_guard lk(ts_lock());
    max_ts_ = t > 0 ? time_index_.entry(t - 1) : TimestampOffset{-1, Offset(-1)};
    return e;
  }
  return std::nullopt;
}

SegmentRecovery LogSegment::recover_tail(int64_t index_interval_bytes, size_t index_max_bytes) {
  if (indexes_missing_) return recover(index_interval_bytes, index_max_bytes);
  if (auto r = make_appendable(index_max_bytes); !r) throw_io(r.error(), "index resize in " + dir());
  auto acquired = log_file_.acquire();
  if (!acquired) throw_io(acquired.error(), "open " + log_file_.path().string());
  struct stat st {};
  if (::fstat((*acquired)->fd(), &st) != 0) throw std::system_error(errno, std::generic_category(), "fstat");
  const auto file_size = static_cast<uint64_t>(st.st_size);
  ChunkReader r((*acquired)->fd(), file_size, kHeaderScanChunk);
  auto point = trusted_index_point(r, file_size);
  if (!r.status() || !point) return recover(index_interval_bytes, index_max_bytes);
  // The entry's batch is whole and valid: walk on from it, as recover() would
  // have after indexing it (its bytes count towards the next entry).
  auto out = scan_and_cut(*acquired, file_size, point->position, base_, 0, index_interval_bytes);
  out.from_index = true;
  return out;
}

int64_t LogSegment::load_as_active(size_t index_max_bytes) {
  if (auto r = make_appendable(index_max_bytes); !r) throw_io(r.error(), "index resize in " + dir());
  int64_t next = base_;
  uint64_t start = 0;
  if (offset_index_.entries() > 0) start = offset_index_.peek(offset_index_.entries() - 1).position;
  const uint64_t limit = size();
  auto acquired = log_file_.acquire();
  if (!acquired) throw_io(acquired.error(), "open " + log_file_.path().string());
  const FdRef& file = *acquired;
  ChunkReader r(file->fd(), limit, kHeaderScanChunk);
  BatchHeader h;
  uint64_t pos = start;
  while (read_batch_header(r, pos, h)) {
    note_batch(Offset(h.last_offset()), h.max_timestamp);
    next = h.last_offset() + 1;
    pos += h.size;
  }
  if (auto st = r.status(); !st) throw_io(st.error(), "read " + log_file_.path().string());
  bytes_since_last_index_entry_ = static_cast<int64_t>(limit - start);
  return next;
}

void LogSegment::preallocate(uint64_t bytes) {
  if (bytes <= size()) return;
  auto file = log_file_.acquire();
  Result<void> r;
  if (!file)
    r = unexpected(file.error());
  else if (::fallocate((*file)->fd(), FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes)) != 0)
    r = unexpected(Error::io(errno));
  if (!r)
    storage_log().warn("segment {}: preallocating {} bytes failed ({}); writing it without", log_path().string(), bytes,
                       describe(r.error()));
}

// Every step runs even after one fails; the first failure is returned.
Result<void> LogSegment::become_inactive() {
  auto m = max_timestamp_so_far();
  Result<void> r;
  auto keep_first = [&r](Result<void> step) {
    if (r && !step) r = std::move(step);
  };
  if (m.timestamp >= 0 && time_index_.file().appendable())
    keep_first(time_index_.maybe_append(m.timestamp, m.offset, true));
  keep_first(offset_index_.file().trim());
  keep_first(time_index_.file().trim());
  keep_first(flush_indexes());  // final now: make them durable once, then drop the fds
  if (auto file = log_file_.acquire(); file)
    keep_first(trim_allocation((*file)->fd()));
  else
    keep_first(unexpected(file.error()));
  offset_index_.file().release_fd();
  time_index_.file().release_fd();
  return r;
}

void LogSegment::release_index_fds() {
  offset_index_.file().release_fd();
  time_index_.file().release_fd();
}

bool LogSegment::indexes_sane() {
  if (indexes_missing_) return false;
  if (!offset_index_.file().whole_entries_on_open() || !time_index_.file().whole_entries_on_open()) return false;
  uint64_t sz = size();
  if (!offset_index_.sane(sz)) return false;
  // Offsets in the time index can't exceed the last offset of the file; we
  // don't know it without reading, so bound by what 32-bit deltas allow.
  if (!time_index_.sane(Offset(base_ + INT32_MAX))) return false;
  if (sz == 0 && (offset_index_.entries() > 0 || time_index_.entries() > 0)) return false;
  if (time_index_.entries() == 0) return true;
  auto last = time_index_.peek(time_index_.entries() - 1);
  std::lock_guard lk(ts_lock());
  max_ts_ = last;
  return true;
}

Result<void> LogSegment::flush_log() {
  auto file = log_file_.acquire();
  if (!file) return unexpected(file.error());
  if (::fdatasync((*file)->fd()) != 0) return unexpected(errno_error());
  return {};
}

Result<void> LogSegment::flush_indexes() {
  auto r = offset_index_.file().flush();
  auto r2 = time_index_.file().flush();
  return r ? r2 : r;
}

void LogSegment::delete_files() {
  deleted_.store(true, std::memory_order_release);
  ::unlink(log_file_.path().c_str());
  log_file_.close();                         // holders of an FdRef keep reading the unlinked file
  (void)offset_index_.file().remove_file();  // best effort, as the unlink above
  (void)time_index_.file().remove_file();
}

Result<std::optional<BatchHeader>> LogSegment::find_batch(Offset target, uint64_t limit) const {
  uint64_t start = offset_index_.lookup(target).position;
  if (start >= limit) start = 0;
  auto file = log_file_.acquire();
  if (!file) return unexpected(file.error());
  ChunkReader r((*file)->fd(), limit, kHeaderScanChunk);
  BatchHeader h;
  for (uint64_t pos = start; read_batch_header(r, pos, h); pos += h.size) {
    if (h.last_offset() >= target.value) return h;
  }
  if (auto st = r.status(); !st) return unexpected(st.error());
  return std::nullopt;
}

Result<FileSlice> LogSegment::slice_from(const BatchHeader& first, size_t max_bytes, uint64_t limit) const {
  auto file = log_file_.acquire();
  if (!file) return unexpected(file.error());
  uint64_t p = first.position;
  uint64_t end = p + first.size;
  if (max_bytes > first.size && end < limit) {
    uint64_t budget_end = p + max_bytes;
    if (budget_end >= limit) {
      end = limit;  // the committed size always falls on a batch boundary
    } else {
      // The offset index maps batch starts: jump close to the budget's end.
      uint64_t q = offset_index_.lookup_by_position(static_cast<uint32_t>(budget_end)).position;
      if (q > end && q <= limit) end = q;
      ChunkReader r((*file)->fd(), limit, kHeaderScanChunk);
      BatchHeader h;
      while (read_batch_header(r, end, h) && end + h.size <= budget_end) end += h.size;
      if (auto st = r.status(); !st) return unexpected(st.error());
    }
  }
  return FileSlice{std::move(*file), static_cast<int64_t>(p), static_cast<size_t>(end - p)};
}

Result<std::optional<TimestampOffset>> LogSegment::find_offset_by_timestamp(int64_t ts, Offset min_offset) const {
  const uint64_t limit = size();
  auto te = time_index_.lookup(ts);
  uint64_t start = offset_index_.lookup(std::max(te.offset, min_offset)).position;
  if (start >= limit) start = 0;
  auto file = log_file_.acquire();
  if (!file) return unexpected(file.error());
  ChunkReader r((*file)->fd(), limit, kHeaderScanChunk);
  BatchHeader h;
  uint64_t pos = start;
  while (read_batch_header(r, pos, h)) {
    if (h.max_timestamp >= ts && h.last_offset() >= min_offset.value) {
      const uint8_t* bp = r.get(pos, h.size);
      if (!bp) break;
      RecordBatchView v({const_cast<uint8_t*>(bp), h.size});
      if (v.compression() == Compression::kNone && v.timestamp_type() == TimestampType::kCreateTime) {
        RecordIterator it(v);
        RecordView rec;
        while (it.next(rec)) {
          if (rec.timestamp(v) >= ts && rec.offset(v) >= min_offset.value)
            return TimestampOffset{rec.timestamp(v), Offset(rec.offset(v))};
        }
      }
      // LogAppendTime: every record has the batch's max timestamp. Compressed:
      // we don't decompress here; the batch's first eligible offset is a
      // safe answer (a consumer starting there sees the wanted record).
      return TimestampOffset{h.max_timestamp, std::max(Offset(h.base_offset), min_offset)};
    }
    pos += h.size;
  }
  if (auto st = r.status(); !st) return unexpected(st.error());
  return std::nullopt;
}

Result<std::optional<TimestampOffset>> LogSegment::max_timestamp_record() const {
  auto m = max_timestamp_so_far();
  if (m.timestamp < 0) return std::nullopt;
  const uint64_t limit = size();
  uint64_t start = offset_index_.lookup(m.offset).position;
  if (start >= limit) start = 0;
  auto file = log_file_.acquire();
  if (!file) return unexpected(file.error());
  ChunkReader r((*file)->fd(), limit, kHeaderScanChunk);
  BatchHeader h;
  uint64_t pos = start;
  while (read_batch_header(r, pos, h)) {
    if (h.max_timestamp == m.timestamp) {
      const uint8_t* bp = r.get(pos, h.size);
      if (!bp) break;
      RecordBatchView v({const_cast<uint8_t*>(bp), h.size});
      if (v.timestamp_type() == TimestampType::kLogAppendTime)
        return TimestampOffset{m.timestamp, Offset(h.base_offset)};
      if (v.compression() == Compression::kNone) {
        RecordIterator it(v);
        RecordView rec;
        while (it.next(rec)) {
          if (rec.timestamp(v) == m.timestamp) return TimestampOffset{m.timestamp, Offset(rec.offset(v))};
        }
      }
      return TimestampOffset{m.timestamp, Offset(h.last_offset())};
    }
    pos += h.size;
  }
  if (auto st = r.status(); !st) return unexpected(st.error());
  return m;
}

}  // namespace skiff::storage
