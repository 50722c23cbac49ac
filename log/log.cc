// Log: opening/recovery, segment map helpers, close and deletion.
// (append/flush in log_append.cc, reads in log_read.cc, retention in
// log_retention.cc.)
#include "log/log.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>
#include <system_error>

#include "log/cleaner_recovery.h"
#include "log/file_util.h"
#include "log/lock_stripes.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace fs = std::filesystem;

Log::Log(const fs::path& dir, LogLoadParams params, std::shared_ptr<const LogConfig> config)
    : dir_(dir.native()),
      params_(std::move(params)),
      fd_cache_(params_.fd_cache ? params_.fd_cache : FdCache::default_instance()),
      producers_(dir_),
      txn_index_(dir_),
      config_(std::move(config)) {}

Log::~Log() = default;

std::shared_ptr<Log> Log::open(const fs::path& dir, const LogLoadParams& params,
                               std::shared_ptr<const LogConfig> config, const CleanLogState* clean) {
  fs::create_directories(dir);
  std::shared_ptr<Log> log(new Log(dir, params, std::move(config)));
  log->load(params.clean_shutdown ? clean : nullptr);
  return log;
}

namespace {

bool parse_segment_name(const std::string& name, const std::string& suffix, int64_t& base) {
  if (name.size() != 20 + suffix.size() || name.compare(20, suffix.size(), suffix) != 0) return false;
  base = 0;
  for (int i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    base = base * 10 + (name[i] - '0');
  }
  return true;
}

// What one read of a partition's directory found: Log::load lists it once
// and asks nothing more of the file system about which files exist (at
// 100,000 partitions every per-partition syscall is ~0.1 s of start).
// Leftovers of an interrupted write (.tmp) or deletion (.deleted) and index
// files without their .log (a crash mid-roll or mid-delete) are removed;
// files of an interrupted cleaning (.cleaned, .swap) are reported, and
// removed by the listing made after finish_interrupted_cleaning.
struct DirListing {
  std::set<int64_t> bases;         // <base>.log
  std::set<int64_t> with_indexes;  // bases with both their .index and .timeindex
  std::set<int64_t> txn_indexes;   // bases with a .txnindex
  std::vector<int64_t> snapshots;  // <offset>.snapshot, ascending
  bool cleaning = false;           // .cleaned or .swap files were found
  bool partition_metadata = false;
};

DirListing list_dir(const fs::path& dir, bool remove_cleaning) {
  DirListing out;
  std::vector<std::pair<int64_t, std::string>> index_files;
  std::set<int64_t> index, timeindex;
  for_each_dir_entry(dir, [&](std::string_view sv, bool) {
    const std::string name(sv);
    int64_t base;
    if (name.ends_with(".tmp") || name.ends_with(".deleted")) {
      fs::remove(dir / name);
    } else if (name.ends_with(".cleaned") || name.ends_with(".swap")) {
      out.cleaning = true;
      if (remove_cleaning) fs::remove(dir / name);
    } else if (parse_segment_name(name, ".log", base)) {
      out.bases.insert(base);
    } else if (parse_segment_name(name, ".index", base)) {
      index.insert(base);
      index_files.emplace_back(base, name);
    } else if (parse_segment_name(name, ".timeindex", base)) {
      timeindex.insert(base);
      index_files.emplace_back(base, name);
    } else if (parse_segment_name(name, ".txnindex", base)) {
      out.txn_indexes.insert(base);
      index_files.emplace_back(base, name);
    } else if (parse_segment_name(name, ".snapshot", base)) {
      out.snapshots.push_back(base);
    } else if (name == "partition.metadata") {
      out.partition_metadata = true;
    }
  });
  for (const auto& [b, name] : index_files) {
    if (!out.bases.count(b)) fs::remove(dir / name);
  }
  for (int64_t b : index)
    if (timeindex.count(b)) out.with_indexes.insert(b);
  std::sort(out.snapshots.begin(), out.snapshots.end());
  return out;
}

// Whether the clean close's record still describes the directory: its
// segment is the newest listed, with both indexes, and no cleaning was
// interrupted (then the files are as the close left them).
bool restorable(const CleanLogState* clean, const DirListing& listing) {
  return clean && !listing.cleaning && !listing.bases.empty() && *listing.bases.rbegin() == clean->active_base &&
         listing.with_indexes.count(clean->active_base) > 0 && clean->next_offset >= clean->active_base;
}

// Recovery found garbage inside segs[i]: nothing after it can be trusted, so
// the later segments (and their aborted-transaction entries) are deleted.
void drop_segments_after(std::vector<std::shared_ptr<LogSegment>>& segs, size_t i, const fs::path& dir,
                         TxnIndex& txn_index) {
  for (size_t j = i + 1; j < segs.size(); ++j) {
    storage_log().warn("log {}: deleting segment {} after a truncated one", dir.string(), segs[j]->base_offset().value);
    segs[j]->delete_files();
    txn_index.drop_segment(segs[j]->base_offset().value);
  }
  segs.resize(i + 1);
}

// True when every segment after `i` holds no byte (a roll's new segment).
bool only_empty_after(const std::vector<std::shared_ptr<LogSegment>>& segs, size_t i) {
  for (size_t j = i + 1; j < segs.size(); ++j)
    if (segs[j]->size() != 0) return false;
  return true;
}

// Whether the log ends at recovered segment `i` (not the last), whose
// successor starts at `next_base`: after a torn tail; and after a power cut
// that kept a newer segment (its name, maybe some of its records: writeback
// has no order) but not this one's unflushed tail (a roll flushes it later):
// offsets no segment holds, where consumers would wait (issue 57). The log
// is then the prefix up to the gap, as after a torn tail. A compacted log
// keeps a gap before records (its segments may end in one the cleaner made).
bool ends_log_here(const SegmentRecovery& r, bool unflushed, bool compact,
                   const std::vector<std::shared_ptr<LogSegment>>& segs, size_t i, int64_t next_base,
                   const fs::path& dir) {
  if (r.truncated_bytes > 0) return true;
  if (!unflushed || r.next_offset >= next_base || (compact && !only_empty_after(segs, i))) return false;
  storage_log().warn(
      "log {}: segment {} ends at offset {}, the next starts at {}: its unflushed tail was lost; the "
      "log ends there",
      dir.string(), segs[i]->base_offset().value, r.next_offset, next_base);
  return true;
}

// The empty active segment of a log that has none, at `base`.
std::shared_ptr<LogSegment> first_segment(const std::shared_ptr<FdCache>& fd_cache, const fs::path& dir, int64_t base,
                                          const LogConfig& cfg) {
  auto seg = LogSegment::create(fd_cache, dir, base, static_cast<size_t>(cfg.segment_index_bytes), wall_clock_ms());
  if (!seg) throw_io(seg.error(), "create segment in " + dir.string());
  if (cfg.preallocate) (*seg)->preallocate(static_cast<uint64_t>(cfg.segment_size()));
  // Its name durable before anything is appended to it (a power cut, issue 57).
  if (int rc = fsync_dir(dir); rc != 0) storage_log().warn("log {}: fsync dir: {}", dir.string(), std::strerror(rc));
  return std::move(*seg);
}

}  // namespace

int64_t Log::load_segment(std::vector<std::shared_ptr<LogSegment>>& segs, size_t i, const LogConfig& cfg) {
  const size_t idx_max = static_cast<size_t>(cfg.segment_index_bytes);
  auto& seg = segs[i];
  bool last = i + 1 == segs.size();
  int64_t next_base = last ? INT64_MAX : segs[i + 1]->base_offset().value;
  const bool dirty = !params_.clean_shutdown && next_base > params_.recovery_point;
  // Same boot: a rolled segment was whole before the next one began (appends
  // and rolls run one at a time), so only the last one needs a look.
  const bool unflushed = dirty && !(params_.same_boot && !last);
  if (unflushed || !seg->indexes_sane()) {
    const bool tail_only = dirty && params_.same_boot;
    auto r = tail_only ? seg->recover_tail(cfg.index_interval_bytes, idx_max)
                       : seg->recover(cfg.index_interval_bytes, idx_max);
    if (dirty)
      ++load_stats_.segments_recovered;
    else
      ++load_stats_.indexes_rebuilt;
    if (r.from_index) ++load_stats_.segments_tail_recovered;
    load_stats_.bytes_scanned += r.scanned_bytes;
    load_stats_.bytes_truncated += r.truncated_bytes;
    if (r.truncated_bytes > 0) {
      storage_log().warn("log {}: truncated {} invalid bytes at position {} of segment {}", dir_, r.truncated_bytes,
                         r.valid_bytes, seg->base_offset().value);
    }
    if (!last && ends_log_here(r, unflushed, cfg.compact, segs, i, next_base, dir_)) {
      drop_segments_after(segs, i, dir_, txn_index_);
      last = true;
    }
    if (last) return r.next_offset;
    if (auto bi = seg->become_inactive(); !bi)
      storage_log().warn("log {}: trimming indexes: {}", seg->log_path().string(), describe(bi.error()));
    return -1;
  }
  if (last) return seg->load_as_active(idx_max);
  seg->release_index_fds();
  if (params_.clean_shutdown || next_base <= params_.recovery_point) seg->mark_fully_flushed();
  return -1;
}

int64_t Log::open_segments(const std::set<int64_t>& bases, const std::set<int64_t>& with_indexes,
                           const CleanLogState* clean, std::vector<std::shared_ptr<LogSegment>>& segs,
                           const LogConfig& cfg) {
  for (int64_t b : bases) {
    if (clean && b == clean->active_base)
      segs.push_back(LogSegment::restore(fd_cache_, dir_, *clean));
    else
      segs.push_back(LogSegment::open(fd_cache_, dir_, b, with_indexes.count(b) > 0));
  }
  int64_t next_offset = 0;
  for (size_t i = 0; i < segs.size(); ++i) {
    if (clean && i + 1 == segs.size()) {
      next_offset = clean->next_offset;  // the restored active segment
    } else if (int64_t n = load_segment(segs, i, cfg); n >= 0) {
      next_offset = n;
    }
  }
  if (segs.empty()) {  // a new log, or one whose every segment was deleted
    next_offset = std::max<int64_t>(params_.log_start_offset, 0);
    segs.push_back(first_segment(fd_cache_, dir_, next_offset, cfg));
  }
  return next_offset;
}

void Log::load(const CleanLogState* clean) {
  auto cfg = config();
  DirListing listing = list_dir(dir_, false);
  if (listing.cleaning) {  // the log cleaner's .cleaned/.swap files
    finish_interrupted_cleaning(dir_);
    listing = list_dir(dir_, true);
  }
  partition_metadata_found_ = listing.partition_metadata;
  if (!restorable(clean, listing)) clean = nullptr;
  load_stats_.active_restored = clean != nullptr;
  std::vector<std::shared_ptr<LogSegment>> segs;
  const int64_t next_offset = open_segments(listing.bases, listing.with_indexes, clean, segs, *cfg);
  load_stats_.segments = static_cast<int>(segs.size());
  {
    std::unique_lock lk(segments_mu_);
    for (auto& s : segs) segments_[s->base_offset().value] = s;
  }
  leo_.store(next_offset, std::memory_order_release);
  // With tiered storage the checkpointed log start may lie below the first
  // local segment (the data between is remote): kept, as Kafka's UnifiedLog.
  const int64_t first_base = segs.front()->base_offset().value;
  const int64_t start = cfg->remote_storage_enable ? std::max<int64_t>(params_.log_start_offset, 0)
                                                   : std::max(params_.log_start_offset, first_base);
  log_start_.store(std::min(start, next_offset), std::memory_order_release);
  update_local_start_locked();
  int64_t rp = params_.clean_shutdown ? next_offset : std::min(params_.recovery_point, next_offset);
  recovery_point_.store(rp, std::memory_order_release);
  last_flush_ms_.store(wall_clock_ms(), std::memory_order_relaxed);
  for (const auto& s : segs) {
    if (!listing.txn_indexes.count(s->base_offset().value)) continue;
    if (auto r = txn_index_.load_segment(s->base_offset().value, next_offset); !r)
      throw_io(r.error(), "read transaction index in " + dir_);
  }
  // A clean close that left no producer needs no snapshot read.
  const bool no_producers =
      clean && clean->no_producers && !listing.snapshots.empty() && listing.snapshots.back() == next_offset;
  if (!no_producers) rebuild_producer_state(&listing.snapshots);
  update_lso_locked();
}

void Log::update_local_start_locked() {
  int64_t first;
  {
    std::shared_lock lk(segments_mu_);
    first = segments_.empty() ? leo_.load(std::memory_order_relaxed) : segments_.begin()->first;
  }
  set_local_start_locked(first);
}

void Log::set_local_start_locked(int64_t first_base) {
  // Both only grow, so the local start does too.
  local_start_.store(std::max(log_start_.load(std::memory_order_relaxed), first_base), std::memory_order_release);
}

std::shared_ptr<LogSegment> Log::active() const {
  std::shared_lock lk(segments_mu_);
  return segments_.empty() ? nullptr : segments_.rbegin()->second;
}

std::shared_ptr<LogSegment> Log::floor_segment(int64_t offset) const {
  std::shared_lock lk(segments_mu_);
  auto it = segments_.upper_bound(offset);
  if (it == segments_.begin()) return nullptr;
  return std::prev(it)->second;
}

std::shared_ptr<LogSegment> Log::segment_after(int64_t base) const {
  std::shared_lock lk(segments_mu_);
  auto it = segments_.upper_bound(base);
  return it == segments_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<LogSegment>> Log::snapshot() const {
  std::shared_lock lk(segments_mu_);
  std::vector<std::shared_ptr<LogSegment>> v;
  v.reserve(segments_.size());
  for (const auto& [b, s] : segments_) v.push_back(s);
  return v;
}

size_t Log::segment_count() const {
  std::shared_lock lk(segments_mu_);
  return segments_.size();
}

uint64_t Log::size_in_bytes() const {
  std::shared_lock lk(segments_mu_);
  uint64_t n = 0;
  for (const auto& [b, s] : segments_) n += s->size();
  return n;
}

uint64_t Log::local_only_size_bytes() const {
  const int64_t remote = highest_offset_in_remote();
  std::shared_lock lk(segments_mu_);
  uint64_t n = 0;
  for (auto it = segments_.upper_bound(remote); it != segments_.end(); ++it) n += it->second->size();
  return n;
}

std::vector<int64_t> Log::segment_base_offsets() const {
  std::shared_lock lk(segments_mu_);
  std::vector<int64_t> v;
  for (const auto& [b, s] : segments_) v.push_back(b);
  return v;
}

std::mutex& Log::config_lock() const {
  static LockStripes<> config_locks;
  return config_locks.for_object(this);
}

void Log::set_config(std::shared_ptr<const LogConfig> config) {
  std::lock_guard lk(config_lock());
  config_.swap(config);  // the old one is released after the unlock
}

std::shared_ptr<const LogConfig> Log::config() const {
  std::lock_guard lk(config_lock());
  return config_;
}

void Log::close() {
  std::lock_guard lk(mu_);
  if (closed_.exchange(true)) return;
  bool ok = true;
  if (!flush_to(log_end_offset())) {
    storage_log().error("log {}: flush failed on close", dir_);
    ok = false;
  }
  // A snapshot at the end: the next start reads no log data for producer state.
  if (auto r = producers_.take_snapshot(log_end_offset().value, prune_snapshots()); !r) {
    storage_log().warn("log {}: producer snapshot failed: {}", dir_, describe(r.error()));
    ok = false;
  }
  if (auto seg = active()) {
    if (auto r = seg->become_inactive(); !r) {
      storage_log().warn("log {}: index trim failed: {}", dir_, describe(r.error()));
      ok = false;
    }
  }
  closed_clean_ = ok;
}

std::optional<CleanLogState> Log::clean_state() {
  std::lock_guard lk(mu_);
  auto seg = active();
  if (!closed_clean_ || deleted() || !seg) return std::nullopt;
  CleanLogState s;
  s.active_base = seg->base_offset().value;
  s.next_offset = log_end_offset().value;
  s.log_bytes = seg->size();
  s.offset_entries = static_cast<uint32_t>(seg->offset_index().entries());
  s.time_entries = static_cast<uint32_t>(seg->time_index().entries());
  const auto m = seg->max_timestamp_so_far();
  s.max_timestamp = m.timestamp;
  s.max_timestamp_offset = m.offset.value;
  s.roll_base_ms = seg->roll_base_ms();
  s.bytes_since_index = seg->bytes_since_last_index_entry();
  s.no_producers = producers_.producers().empty() && producers_.ongoing().empty();
  return s;
}

void Log::delete_all() {
  std::lock_guard lk(mu_);
  closed_.store(true);
  deleted_.store(true, std::memory_order_release);
  std::vector<std::shared_ptr<LogSegment>> segs;
  {
    std::unique_lock slk(segments_mu_);
    for (auto& [b, s] : segments_) segs.push_back(s);
    segments_.clear();
  }
  for (auto& s : segs) s->delete_files();
  std::error_code ec;
  fs::remove_all(dir_, ec);
  if (ec) storage_log().error("log {}: delete failed: {}", dir_, ec.message());
}

}  // namespace skiff::storage
