// Log: what the log cleaner (log_cleaner.h) needs from a partition, and the
// online half of the swap protocol (startup half: cleaner_recovery.h).
#include <cerrno>
#include <system_error>

#include "log/cleaner_recovery.h"
#include "log/file_util.h"
#include "log/log.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace fs = std::filesystem;

std::vector<std::shared_ptr<LogSegment>> Log::inactive_segments() const {
  auto segs = snapshot();
  if (!segs.empty()) segs.pop_back();
  return segs;
}

int64_t Log::active_base_offset() const {
  auto a = active();
  return a ? a->base_offset().value : 0;
}

std::unordered_map<int64_t, int64_t> Log::producer_last_offsets() {
  std::lock_guard lk(mu_);
  std::unordered_map<int64_t, int64_t> out;
  for (const auto& [pid, e] : producers_.producers())
    if (!e.batches.empty()) out[pid] = e.batches.back().last_offset;
  return out;
}

namespace {

// True if `old` are still segments of the map, consecutive and inactive.
bool still_current(const std::map<int64_t, std::shared_ptr<LogSegment>>& segs,
                   const std::vector<std::shared_ptr<LogSegment>>& old) {
  auto it = segs.find(old.front()->base_offset().value);
  for (const auto& o : old) {
    if (it == segs.end() || it->second != o || std::next(it) == segs.end()) return false;
    ++it;
  }
  return true;
}

}  // namespace

// Steps (crash_at numbers): 1 .cleaned complete; old segments the new one no
// longer reaches (base >= its next offset: all their records were removed)
// unlinked; .txnindex.cleaned renamed .txnindex.swap; 2 .log.cleaned renamed
// .log.swap (commit); 3 first old unlinked; 4 all unlinked; .txnindex.swap
// renamed .txnindex; 5 .log.swap renamed .log; then indexes rebuilt and the
// map updated. Readers
// wait on the exclusive map lock from the commit on; those holding an old
// segment see deleted() and retry.
Result<void> Log::swap_in_cleaned(const std::vector<std::shared_ptr<LogSegment>>& old, const fs::path& cleaned,
                                  std::vector<AbortedTxn> aborts, const std::function<bool(int)>& crash_at) {
  if (crash_at && crash_at(1)) return unexpected(Error::io(ECANCELED));
  const int64_t base = old.front()->base_offset().value;
  int64_t next;
  try {  // shared with startup recovery, which throws
    next = segment_file_next_offset(cleaned, base);
  } catch (const std::system_error& e) {
    return unexpected(Error::io(e.code().value()));
  }
  const fs::path txn_cleaned = fs::path(dir_) / (segment_file_name(base, ".txnindex") + ".cleaned");
  auto cfg = config();
  std::lock_guard lk(mu_);
  std::unique_lock slk(segments_mu_);
  if (closed_.load() || !still_current(segments_, old)) {
    std::error_code ec;
    fs::remove(cleaned, ec);
    fs::remove(txn_cleaned, ec);
    return unexpected(Error::io(EAGAIN));
  }
  if (auto r = swap_cleaned_files(old, cleaned, txn_cleaned, next, crash_at); !r) return r;
  return install_cleaned(old, *cfg, std::move(aborts));
}

// swap_in_cleaned's steps 2-5 on disk: the .cleaned files renamed .swap (the
// commit), the old segments unlinked, the .swap files renamed into place.
// Caller holds mu_ and segments_mu_ exclusively. An I/O Error (errno
// ECANCELED: crash_at).
Result<void> Log::swap_cleaned_files(const std::vector<std::shared_ptr<LogSegment>>& old, const fs::path& cleaned,
                                     const fs::path& txn_cleaned, int64_t next,
                                     const std::function<bool(int)>& crash_at) {
  auto crash = [&](int step) { return crash_at && crash_at(step); };
  const auto cancelled = [] { return unexpected(Error::io(ECANCELED)); };
  const int64_t base = old.front()->base_offset().value;
  const fs::path swap = fs::path(dir_) / (segment_file_name(base, ".log") + ".swap");
  const fs::path txn_swap = fs::path(dir_) / (segment_file_name(base, ".txnindex") + ".swap");
  std::error_code ec;
  for (const auto& o : old) {
    if (o->base_offset().value > base && o->base_offset().value >= next) o->delete_files();
  }
  fs::rename(txn_cleaned, txn_swap, ec);
  if (!ec) fs::rename(cleaned, swap, ec);
  if (ec || fsync_dir(dir_) != 0) return unexpected(Error::io(ec ? ec.value() : EIO));
  if (crash(2)) return cancelled();
  for (size_t i = 0; i < old.size(); ++i) {
    if (!old[i]->deleted()) old[i]->delete_files();
    if (i == 0 && crash(3)) return cancelled();
  }
  if (crash(4)) return cancelled();
  fs::rename(txn_swap, TxnIndex::path(dir_, base), ec);
  if (!ec) fs::rename(swap, fs::path(dir_) / segment_file_name(base, ".log"), ec);
  if (ec || fsync_dir(dir_) != 0) {
    storage_log().error("log {}: cleaner swap at {} failed after the commit; restart completes it", dir_, base);
    return unexpected(Error::io(ec ? ec.value() : EIO));
  }
  if (crash(5)) return cancelled();
  return {};
}

// swap_in_cleaned's last step: the cleaned segment opened, its indexes
// rebuilt, and put in the map in place of `old`. Caller holds mu_ and
// segments_mu_ exclusively. An I/O Error on failure.
Result<void> Log::install_cleaned(const std::vector<std::shared_ptr<LogSegment>>& old, const LogConfig& cfg,
                                  std::vector<AbortedTxn> aborts) {
  const int64_t base = old.front()->base_offset().value;
  std::shared_ptr<LogSegment> seg;
  try {  // LogSegment::open and recover serve startup load, so they throw
    seg = LogSegment::open(fd_cache_, dir_, base);
    seg->recover(cfg.index_interval_bytes, static_cast<size_t>(cfg.segment_index_bytes));
  } catch (const std::system_error& e) {
    storage_log().error("log {}: opening cleaned segment {}: {}", dir_, base, e.what());
    return unexpected(Error::io(e.code().value()));
  }
  if (auto r = seg->become_inactive(); !r) return r;
  seg->mark_fully_flushed();
  std::vector<int64_t> old_bases;
  for (const auto& o : old) {
    segments_.erase(o->base_offset().value);
    old_bases.push_back(o->base_offset().value);
  }
  segments_[base] = seg;
  txn_index_.replace_segments(old_bases, base, std::move(aborts));
  return {};
}

}  // namespace skiff::storage
