// Log: what tiered storage needs of the local log (log.h's tiered-storage
// section): the copy candidates, the highest offset in remote storage, and
// local retention, which deletes only uploaded segments.
#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>

#include "log/log.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

// Skiff's broker appends every batch at leader epoch 0 (api/broker_info.h:
// kLeaderEpoch; a single node is never re-elected), and the log keeps no
// epoch history of its own: its history is epoch 0 from the log start.
constexpr int32_t kOnlyLeaderEpoch = 0;

// Opens `p` read-only into `out`; 0 or errno.
int open_read_only(const fs::path& p, FileDescriptor& out) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  out = FileDescriptor(fd);
  return 0;
}

// Whether segment `s` breaches local retention (Kafka's predicates of
// deleteLogStartOffsetBreachedSegments, deleteRetentionSizeBreachedSegments
// and deleteRetentionMsBreachedSegments with the effective local.retention.*):
// wholly below the local start, or (retention applies) older than the
// local retention time by its largest timestamp, or the local log without it
// (`total` bytes with it) still at least local.retention.bytes.
bool breaches_local_retention(const LogSegment& s, bool below_local_start, const LogConfig& cfg, uint64_t total,
                              int64_t now_ms) {
  if (below_local_start) return true;
  if (!cfg.retention_deletes && cfg.compact) return false;  // compact only: the start alone deletes
  const int64_t ms = cfg.effective_local_retention_ms();
  const int64_t bytes = cfg.effective_local_retention_bytes();
  const bool by_time = ms >= 0 && now_ms - s.largest_timestamp() > ms;
  const bool by_size = bytes >= 0 && static_cast<int64_t>(total - s.size()) >= bytes;
  return by_time || by_size;
}

}  // namespace

std::string leader_epoch_checkpoint_text(const std::vector<LeaderEpochEntry>& entries) {
  std::string out = fmt::format("0\n{}\n", entries.size());
  for (const auto& e : entries) out += fmt::format("{} {}\n", e.epoch, e.start_offset);
  return out;
}

Result<CopyFiles> CopyCandidate::open_files() const {
  CopyFiles f;
  int rc = open_read_only(log_file, f.log);
  if (rc == 0) rc = open_read_only(offset_index_file, f.offset_index);
  if (rc == 0) rc = open_read_only(time_index_file, f.time_index);
  if (rc == 0 && txn_index_file) rc = open_read_only(*txn_index_file, f.txn_index);
  if (rc == 0 && producer_snapshot_file) rc = open_read_only(*producer_snapshot_file, f.producer_snapshot);
  if (rc != 0) return unexpected(Error::io(rc));
  return f;
}

Result<void> Log::update_highest_offset_in_remote(int64_t offset) {
  if (offset >= leo_.load(std::memory_order_acquire)) return unexpected(Error::of(LogErrc::kOffsetOutOfRange));
  int64_t cur = highest_remote_.load(std::memory_order_relaxed);
  while (offset > cur && !highest_remote_.compare_exchange_weak(cur, offset, std::memory_order_acq_rel)) {
  }
  return {};
}

std::vector<CopyCandidate> Log::copy_candidates(int64_t from_offset) const {
  const int64_t log_start = log_start_.load(std::memory_order_acquire);
  // LSO <= log end (= the high watermark here); the recovery point: flushed.
  const int64_t bound = std::min(last_stable_offset().value, recovery_point_.load(std::memory_order_acquire));
  const int64_t from = std::max(from_offset, log_start);
  const auto segs = snapshot();
  std::vector<CopyCandidate> out;
  for (size_t i = 0; i + 1 < segs.size(); ++i) {
    const int64_t next = segs[i + 1]->base_offset().value;
    if (next <= from) continue;  // wholly below `from`
    if (next > bound) break;     // holds records at or past the bound
    out.push_back(copy_candidate(segs, i, log_start));
  }
  return out;
}

CopyCandidate Log::copy_candidate(const std::vector<std::shared_ptr<LogSegment>>& segs, size_t i,
                                  int64_t log_start) const {
  const auto& seg = segs[i];
  CopyCandidate c;
  c.segment = seg;
  c.base_offset = seg->base_offset().value;
  c.next_base_offset = segs[i + 1]->base_offset().value;
  c.last_offset = c.next_base_offset - 1;
  c.max_timestamp = seg->largest_timestamp();
  c.size_bytes = seg->size();
  c.log_file = seg->log_path();
  c.offset_index_file = fs::path(dir_) / segment_file_name(c.base_offset, ".index");
  c.time_index_file = fs::path(dir_) / segment_file_name(c.base_offset, ".timeindex");
  if (!txn_index_.entries(c.base_offset).empty()) c.txn_index_file = TxnIndex::path(dir_, c.base_offset);
  std::error_code ec;
  if (auto snap = ProducerStateManager::snapshot_path(dir_, c.next_base_offset); fs::exists(snap, ec))
    c.producer_snapshot_file = snap;
  // Kafka's epochEntriesInRange(base, next) and (-1, next) of the history.
  c.segment_leader_epochs = {{kOnlyLeaderEpoch, std::max(c.base_offset, log_start)}};
  c.leader_epoch_checkpoint = leader_epoch_checkpoint_text({{kOnlyLeaderEpoch, log_start}});
  return c;
}

// Kafka's UnifiedLog.deletableSegments with remote copy on: from the oldest
// segment, while it breaches local retention and is eligible
// (isSegmentEligibleForDeletion: its last offset is in remote storage, or
// the log start passed it). The active segment is never eligible (never
// uploaded); breaching, it is rolled so that it can be uploaded and go later.
// Only the local start moves: the log start stays for the remote data.
int Log::delete_local_segments_locked(const LogConfig& cfg, int64_t now_ms) {
  const auto segs = snapshot();
  uint64_t total = 0;
  for (const auto& s : segs) total += s->size();
  const int64_t local = local_start_.load(std::memory_order_relaxed);
  const int64_t log_start = log_start_.load(std::memory_order_relaxed);
  const int64_t highest = highest_remote_.load(std::memory_order_acquire);
  std::vector<std::shared_ptr<LogSegment>> victims;
  bool roll = false;
  for (size_t i = 0; i < segs.size(); ++i) {
    const auto& s = segs[i];
    const bool last = i + 1 == segs.size();
    if (last && s->size() == 0) break;
    const int64_t next = last ? leo_.load(std::memory_order_relaxed) : segs[i + 1]->base_offset().value;
    if (!breaches_local_retention(*s, !last && next <= local, cfg, total, now_ms)) break;
    roll = last;
    const bool eligible = !last && ((next > 0 && next - 1 <= highest) || log_start >= next);
    if (!eligible) break;
    victims.push_back(s);
    total -= s->size();
  }
  if (roll) {
    storage_log().info("log {}: rolling the active segment to make it eligible for deletion", dir_);
    (void)roll_locked(now_ms);  // a failure is logged; retried next round
  }
  delete_segments_locked(victims, /*move_log_start=*/false);
  return static_cast<int>(victims.size());
}

}  // namespace skiff::storage
