#include "log/log_cleaner_manager.h"

#include <cerrno>
#include <chrono>
#include <cstring>

#include "log/log.h"
#include "log/storage_log.h"

namespace skiff::storage {

LogCleanerManager::LogCleanerManager(LogCleanerManagerConfig cfg, const std::vector<std::filesystem::path>& log_dirs,
                                     Lister list)
    : cfg_(cfg), list_(std::move(list)), throttler_(std::make_shared<Throttler>(cfg.max_io_bytes_per_second)) {
  for (const auto& d : log_dirs) {
    try {
      checkpoints_[d] = read_cleaner_checkpoint(d);
    } catch (const std::exception& e) {
      storage_log().warn("ignoring unreadable {} in {}: {}", kCleanerOffsetCheckpointFile, d.string(), e.what());
      checkpoints_[d] = {};
    }
  }
}

LogCleanerManager::~LogCleanerManager() { stop(); }

void LogCleanerManager::start() {
  std::lock_guard lk(mu_);
  stopping_ = false;
  for (int i = 0; i < std::max(1, cfg_.threads); ++i) threads_.emplace_back([this, i] { loop(i); });
}

void LogCleanerManager::stop() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

int64_t LogCleanerManager::checkpoint(const TopicPartition& tp) const {
  std::lock_guard lk(mu_);
  for (const auto& [dir, m] : checkpoints_) {
    if (auto it = m.find(tp); it != m.end()) return it->second;
  }
  return -1;
}

void LogCleanerManager::abort_and_pause(const TopicPartition& tp) {
  std::unique_lock lk(mu_);
  paused_.insert(tp);
  cv_.wait(lk, [&] { return !in_progress_.count(tp); });
}

void LogCleanerManager::resume(const TopicPartition& tp) {
  std::lock_guard lk(mu_);
  paused_.erase(tp);
}

// The log with the highest dirty ratio among those that need cleaning; marks
// it in progress.
std::optional<CleanableLog> LogCleanerManager::pick(int64_t now_ms, CleaningPoint& point) {
  std::optional<CleanableLog> best;
  double best_ratio = -1;
  for (auto& l : list_()) {
    if (l.log->deleted()) continue;
    {
      std::lock_guard lk(mu_);
      if (in_progress_.count(l.tp) || paused_.count(l.tp)) continue;
    }
    auto p = cleaning_point(*l.log, checkpoint(l.tp), now_ms);
    if (!needs_cleaning(p, *l.log->config())) continue;
    double ratio = p.max_lag_exceeded ? 1.0 : p.dirty_ratio();
    if (ratio > best_ratio) {
      best_ratio = ratio;
      best = l;
      point = p;
    }
  }
  if (best) {
    // Another cleaner thread may have taken it since the check above: one
    // cleaner per log at a time (two would swap each other's files away).
    std::lock_guard lk(mu_);
    if (paused_.count(best->tp) || !in_progress_.insert(best->tp).second) return std::nullopt;
  }
  return best;
}

void LogCleanerManager::record(const CleanableLog& l, int64_t end_offset, const std::vector<CleanableLog>& all) {
  std::lock_guard lk(mu_);
  auto& m = checkpoints_[l.log_dir];
  m[l.tp] = end_offset;
  std::map<TopicPartition, int64_t> live;
  for (const auto& x : all) {
    if (x.log_dir != l.log_dir) continue;
    if (auto it = m.find(x.tp); it != m.end()) live[x.tp] = it->second;
  }
  m = live;
  if (auto r = write_cleaner_checkpoint(l.log_dir, m); !r)
    storage_log().error("writing {} in {}: {}", kCleanerOffsetCheckpointFile, l.log_dir.string(), describe(r.error()));
}

bool LogCleanerManager::clean_filthiest(Cleaner& cleaner, int64_t now_ms) {
  CleaningPoint p;
  auto l = pick(now_ms, p);
  if (!l) return false;
  const TopicPartition tp = l->tp;
  const auto started = std::chrono::steady_clock::now();
  CleanResult r = cleaner.clean(*l->log, p, now_ms, [this, &tp] {
    std::lock_guard lk(mu_);
    return stopping_ || paused_.count(tp) > 0;
  });
  const int err = r.status ? 0 : r.status.error().sys_errno;
  if (r.status) {
    record(*l, r.end_offset, list_());
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double dirty_mb = static_cast<double>(p.dirty_bytes) / (1 << 20);
    storage_log().info(
        "cleaner: {} cleaned to offset {}: {} -> {} records, {} passes, {:.1f} MB dirty in {:.2f} s "
        "({:.1f} MB/s)",
        l->log->dir().string(), r.end_offset, r.records_read, r.records_kept, r.passes, dirty_mb, secs,
        secs > 0 ? dirty_mb / secs : 0.0);
  } else if (err != EAGAIN && err != ECANCELED) {
    storage_log().error("cleaner: cleaning {} failed: {}", l->log->dir().string(), describe(r.status.error()));
  }
  {
    std::lock_guard lk(mu_);
    in_progress_.erase(l->tp);
  }
  cv_.notify_all();
  return r.status.has_value();
}

void LogCleanerManager::loop(int index) {
  CleanerConfig cc;
  cc.dedupe_buffer_bytes = cfg_.dedupe_buffer_bytes / static_cast<size_t>(std::max(1, cfg_.threads));
  cc.dedupe_load_factor = cfg_.load_factor;
  cc.io_buffer_bytes = cfg_.io_buffer_bytes;
  if (!throttler_->unlimited()) cc.throttler = throttler_;
  Cleaner cleaner(cc);
  storage_log().info("log cleaner thread {} started", index);
  while (true) {
    {
      std::lock_guard lk(mu_);
      if (stopping_) return;
    }
    if (clean_filthiest(cleaner, wall_clock_ms())) continue;
    std::unique_lock lk(mu_);
    cv_.wait_for(lk, std::chrono::milliseconds(cfg_.backoff_ms), [&] { return stopping_; });
  }
}

}  // namespace skiff::storage
