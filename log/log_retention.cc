// Log: retention by time/bytes, and log start offset moves (DeleteRecords).
// (Local retention under tiered storage: log_remote.cc.)

#include "log/log.h"
#include "log/storage_log.h"

namespace skiff::storage {

void Log::delete_segments_locked(const std::vector<std::shared_ptr<LogSegment>>& victims, bool move_log_start) {
  if (victims.empty()) return;
  int64_t first_remaining = leo_.load(std::memory_order_relaxed);
  {
    std::shared_lock slk(segments_mu_);
    auto it = segments_.upper_bound(victims.back()->base_offset().value);
    if (it != segments_.end()) first_remaining = it->first;
  }
  // The start(s) move before the segments leave the map (as Kafka's
  // deleteSegments): a reader that no longer finds a segment sees the new
  // start, and answers out of range (or moved to tiered storage), not a miss.
  int64_t cur = log_start_.load(std::memory_order_relaxed);
  if (move_log_start && first_remaining > cur) log_start_.store(first_remaining, std::memory_order_release);
  set_local_start_locked(first_remaining);
  {
    std::unique_lock slk(segments_mu_);
    for (const auto& v : victims) segments_.erase(v->base_offset().value);
  }
  producers_.remove_before(log_start_.load(std::memory_order_relaxed));
  producers_.delete_snapshots_below(first_remaining);
  for (const auto& v : victims) {
    storage_log().info("log {}: deleting segment {} ({} bytes)", dir_, v->base_offset().value, v->size());
    v->delete_files();  // open FileSlices keep the fd, and so the bytes
    txn_index_.drop_segment(v->base_offset().value);
  }
  update_lso_locked();
}

// Kafka's UnifiedLog.deleteOldSegments: from the oldest segment on, delete
// while a segment lies below the log start, or (cleanup.policy has delete)
// is past retention.ms by its largest timestamp or over retention.bytes. The
// active segment counts too once it holds data: when every segment goes, a
// new empty active segment is rolled first, so the log start moves to the end
// and a partition that stopped receiving data still loses it on time.
int Log::delete_old_segments(int64_t now_ms) {
  std::lock_guard lk(mu_);
  if (closed_.load()) return 0;
  auto cfg = config();
  if (cfg->tiering_active()) return delete_local_segments_locked(*cfg, now_ms);
  auto segs = snapshot();
  uint64_t total = 0;
  for (const auto& s : segs) total += s->size();
  const int64_t start = log_start_.load(std::memory_order_relaxed);
  std::vector<std::shared_ptr<LogSegment>> victims;
  for (size_t i = 0; i < segs.size(); ++i) {
    const auto& s = segs[i];
    const bool last = i + 1 == segs.size();
    if (last && s->size() == 0) break;  // an empty active segment stays
    const bool below_start = !last && segs[i + 1]->base_offset().value <= start;
    const bool by_time = cfg->retention_ms >= 0 && now_ms - s->largest_timestamp() > cfg->retention_ms;
    const bool by_size = cfg->retention_bytes >= 0 && static_cast<int64_t>(total - s->size()) >= cfg->retention_bytes;
    if (!below_start && !(cfg->retention_deletes && (by_time || by_size))) break;
    victims.push_back(s);
    total -= s->size();
  }
  if (!victims.empty() && victims.size() == segs.size()) {
    if (!roll_locked(now_ms)) victims.pop_back();  // keep the active one; retry next round
  }
  delete_segments_locked(victims);
  return static_cast<int>(victims.size());
}

Result<void> Log::maybe_increment_log_start_offset(Offset new_start) {
  std::lock_guard lk(mu_);
  if (closed_.load()) return unexpected(Error::of(LogErrc::kUnknownTopicOrPartition));
  if (new_start.value > leo_.load(std::memory_order_relaxed)) return unexpected(Error::of(LogErrc::kOffsetOutOfRange));
  if (new_start.value <= log_start_.load(std::memory_order_relaxed)) return {};
  log_start_.store(new_start.value, std::memory_order_release);
  update_local_start_locked();
  producers_.remove_before(new_start.value);
  update_lso_locked();
  auto segs = snapshot();
  std::vector<std::shared_ptr<LogSegment>> victims;
  for (size_t i = 0; i + 1 < segs.size() && segs[i + 1]->base_offset() <= new_start; ++i) {
    victims.push_back(segs[i]);
  }
  delete_segments_locked(victims);
  return {};
}

}  // namespace skiff::storage
