#include "log/replica_dir_mover.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <shared_mutex>

#include "common/uuid.h"
#include "log/dir_copy.h"
#include "log/file_util.h"
#include "log/log_manager.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

constexpr char kMoveMarker[] = ".skiff-move-target";
constexpr int kMaxPasses = 20;                          // bulk passes before closing the source anyway
constexpr uint64_t kSmallPass = uint64_t{1024} * 1024;  // a pass this small: the rest is copied with the source closed

// A move that stops without an error to log: cancelled, nothing to do, or
// a test's simulated kill (everything is then left as it is).
Result<void> cancelled_move() { return unexpected(Error::io(ECANCELED)); }

// Kafka's unique id in future/delete dir names: a UUID's 32 hex digits.
std::string random_hex() {
  auto u = Uuid::random();
  std::string s;
  char buf[3];
  for (uint8_t b : u.bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

void remove_dir(const fs::path& d) {
  std::error_code ec;
  fs::remove_all(d, ec);
  if (ec) storage_log().error("removing {}: {}", d.string(), ec.message());
}

}  // namespace

struct ReplicaDirMover::Move {
  TopicPartition tp;
  size_t src = 0;
  size_t dest = 0;
  std::shared_ptr<Log> source;
  fs::path src_dir, future_dir, final_dir, delete_dir;
  std::unique_ptr<DirCopier> copier;
  bool renamed = false;  // the copy has its final name (step 4 done)
};

void ReplicaDirMover::recover(const std::vector<fs::path>& log_dirs) {
  std::map<std::string, std::vector<size_t>> holders;  // partition dir name -> log dirs holding it
  for (size_t di = 0; di < log_dirs.size(); ++di) {
    for_each_dir_entry(log_dirs[di], [&](std::string_view sv, bool is_dir) {
      if (!is_dir) return;
      std::string name(sv);
      if (name.ends_with("-future")) {
        storage_log().warn("removing {}: a log dir move interrupted before it completed",
                           (log_dirs[di] / name).string());
        fs::remove_all(log_dirs[di] / name);
        fsync_dir(log_dirs[di]);
      } else if (!name.ends_with("-delete") && log_dirs.size() > 1) {
        // With one log dir no move can be in progress, and a marker left from
        // a former second dir is harmless until a second dir returns, when
        // this check runs again (before any move): at 100,000 partitions the
        // stat of each partition's marker was 0.5 s of the start.
        holders[std::move(name)].push_back(di);
      }
    });
  }
  for (const auto& [name, dirs] : holders) {
    std::vector<size_t> marked;
    for (size_t di : dirs)
      if (fs::exists(log_dirs[di] / name / kMoveMarker)) marked.push_back(di);
    if (marked.size() != 1) continue;  // none: no move; two: left for the duplicate check
    for (size_t di : dirs) {
      if (di == marked[0]) continue;
      storage_log().warn("removing {}: the partition was moved to {} before a crash", (log_dirs[di] / name).string(),
                         log_dirs[marked[0]].string());
      fs::remove_all(log_dirs[di] / name);
      fsync_dir(log_dirs[di]);
    }
    fs::remove(log_dirs[marked[0]] / name / kMoveMarker);
    fsync_dir(log_dirs[marked[0]] / name);
  }
}

LogErrc ReplicaDirMover::request(const TopicPartition& tp, size_t dir_index) {
  size_t current = 0;
  {
    std::shared_lock lk(logs_.mu_);
    auto it = logs_.logs_.find(tp);
    if (it == logs_.logs_.end()) return LogErrc::kUnknownTopicOrPartition;
    current = it->second.dir_index;
  }
  std::lock_guard lk(mu_);
  if (stopping_) return LogErrc::kStorageError;
  std::erase_if(queue_, [&](const Job& j) { return j.tp == tp; });
  if (auto it = moving_.find(tp); it != moving_.end()) {
    if (it->second.dir_index == dir_index) return LogErrc::kNone;
    cancel_current_ = true;  // then queued below, toward the new dir
  } else if (current == dir_index) {
    return LogErrc::kNone;
  }
  queue_.push_back({tp, dir_index});
  if (!manual_ && !thread_.joinable()) thread_ = std::thread([this] { run(); });
  cv_.notify_all();
  return LogErrc::kNone;
}

std::vector<FutureReplica> ReplicaDirMover::futures() const {
  std::lock_guard lk(mu_);
  std::vector<FutureReplica> v;
  for (const auto& [tp, f] : moving_) v.push_back(f);
  return v;
}

void ReplicaDirMover::stop() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void ReplicaDirMover::run_pending() {
  Job job;
  while (next_job(job, false)) finish(job, move(job));
}

void ReplicaDirMover::run() {
  Job job;
  while (next_job(job, true)) finish(job, move(job));
}

bool ReplicaDirMover::next_job(Job& job, bool wait) {
  std::unique_lock lk(mu_);
  if (wait) cv_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
  if (stopping_ || queue_.empty()) return false;
  job = queue_.front();
  queue_.pop_front();
  moving_[job.tp] = FutureReplica{job.tp, job.dest, 0, 0};
  cancel_current_ = false;
  return true;
}

void ReplicaDirMover::finish(const Job& job, const Result<void>& r) {
  const auto& dir = logs_.config_.log_dirs[job.dest];
  if (r)
    storage_log().info("partition {} moved to log dir {}", job.tp.dir_name(), dir.string());
  else if (r.error().sys_errno != ECANCELED)
    storage_log().error("moving partition {} to log dir {} failed: {}", job.tp.dir_name(), dir.string(),
                        describe(r.error()));
  std::lock_guard lk(mu_);
  moving_.erase(job.tp);
}

bool ReplicaDirMover::cancelled() const {
  std::lock_guard lk(mu_);
  return cancel_current_ || stopping_;
}

void ReplicaDirMover::set_progress(const TopicPartition& tp, uint64_t bytes, int64_t lag) {
  std::lock_guard lk(mu_);
  if (auto it = moving_.find(tp); it != moving_.end()) {
    it->second.size_bytes = bytes;
    it->second.offset_lag = std::max<int64_t>(0, lag);
  }
}

Result<void> ReplicaDirMover::move(const Job& job) {
  Move m;
  m.tp = job.tp;
  m.dest = job.dest;
  {
    std::shared_lock lk(logs_.mu_);
    auto it = logs_.logs_.find(job.tp);
    if (it == logs_.logs_.end()) return cancelled_move();
    m.source = it->second.log;
    m.src = it->second.dir_index;
  }
  if (m.src == m.dest) return cancelled_move();
  const std::string name = job.tp.dir_name(), id = random_hex();
  m.src_dir = m.source->dir();
  m.future_dir = logs_.config_.log_dirs[m.dest] / (name + "." + id + "-future");
  m.final_dir = logs_.config_.log_dirs[m.dest] / name;
  m.delete_dir = logs_.config_.log_dirs[m.src] / (name + "." + id + "-delete");
  storage_log().info("moving partition {} from {} to {}", name, logs_.config_.log_dirs[m.src].string(),
                     logs_.config_.log_dirs[m.dest].string());
  if (logs_.cleaner_) logs_.cleaner_->abort_and_pause(m.tp);
  auto r = bulk_copy(m);
  if (r) r = commit(m);
  if (logs_.cleaner_) logs_.cleaner_->resume(m.tp);
  return r;
}

// The copy's pace for one pass: after each chunk, sleeps until the bytes so
// far fit the rate (in steps, so that a cancel or stop is not kept waiting).
std::function<void(uint64_t)> ReplicaDirMover::rate_limit(int64_t bytes_per_second) {
  if (bytes_per_second <= 0 || bytes_per_second == INT64_MAX) return nullptr;
  const auto start = std::chrono::steady_clock::now();
  auto bytes = std::make_shared<uint64_t>(0);
  return [this, start, bytes, bytes_per_second](uint64_t n) {
    *bytes += n;
    const auto due = start + std::chrono::milliseconds(static_cast<int64_t>(static_cast<double>(*bytes) * 1000.0 /
                                                                            static_cast<double>(bytes_per_second)));
    while (std::chrono::steady_clock::now() < due && !cancelled())
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(due - std::chrono::steady_clock::now(),
                                                                                std::chrono::milliseconds(100)));
  };
}

Result<void> ReplicaDirMover::bulk_copy(Move& m) {
  std::error_code ec;
  fs::create_directories(m.future_dir, ec);
  if (ec) return unexpected(Error::io(ec.value()));
  fsync_dir(m.future_dir.parent_path());
  if (crash(1)) return cancelled_move();
  m.copier = std::make_unique<DirCopier>(m.src_dir, m.future_dir);
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    if (cancelled()) {
      abandon(m, false);
      return cancelled_move();
    }
    const int64_t leo_before = m.source->log_end_offset().value;
    m.copier->set_on_copied(rate_limit(rate_.load(std::memory_order_relaxed)));
    uint64_t copied = 0;
    if (auto r = m.copier->sync(false, &copied); !r) {
      abandon(m, false);
      return r;
    }
    set_progress(m.tp, m.copier->copied_bytes(), m.source->log_end_offset().value - leo_before);
    if (between_passes_) between_passes_();
    if (copied < kSmallPass) break;
  }
  if (crash(2)) return cancelled_move();
  return {};
}

// Steps 3 and 4, under the LogManager's admin mutex (no topic deletion or
// creation meanwhile).
Result<void> ReplicaDirMover::commit(Move& m) {
  std::lock_guard admin(logs_.admin_mu_);
  {
    std::shared_lock lk(logs_.mu_);
    auto it = logs_.logs_.find(m.tp);
    if (it == logs_.logs_.end() || it->second.log != m.source || cancelled()) {
      abandon(m, false);
      return cancelled_move();
    }
  }
  m.source->close();  // from here appends are refused: nothing more is acknowledged by the source
  m.copier->set_on_copied(nullptr);
  auto r = m.copier->sync(true, nullptr);
  if (r) r = m.copier->fsync_all();
  if (r) r = io_status(write_file_durably(m.future_dir / kMoveMarker, m.src_dir.string()));
  if (!r) {
    abandon(m, true);
    return r;
  }
  set_progress(m.tp, m.copier->copied_bytes(), 0);
  if (crash(3)) return cancelled_move();
  if (::rename(m.future_dir.c_str(), m.final_dir.c_str()) != 0) {
    const Error e = errno_error();
    abandon(m, true);
    return unexpected(e);
  }
  m.renamed = true;
  fsync_dir(m.final_dir.parent_path());
  if (crash(4)) return cancelled_move();
  LogLoadParams p{m.tp.topic,
                  m.tp.partition,
                  /*clean_shutdown=*/true,
                  m.source->log_end_offset().value,
                  m.source->log_start_offset().value,
                  logs_.fd_cache_};
  std::shared_ptr<Log> fresh;
  try {
    fresh = Log::open(m.final_dir, p, m.source->config());
  } catch (const std::exception& e) {
    storage_log().error("opening the moved partition {}: {}", m.final_dir.string(), e.what());
    abandon(m, true);
    return unexpected(Error::io(EIO));
  }
  return swap_in(m, std::move(fresh));
}

// Step 5 and 6: the copy becomes the partition's log.
Result<void> ReplicaDirMover::swap_in(Move& m, std::shared_ptr<Log> fresh) {
  {
    std::unique_lock lk(logs_.mu_);
    logs_.generation_.fetch_add(1, std::memory_order_release);
    auto& e = logs_.logs_[m.tp];
    e.log = std::move(fresh);
    e.dir_index = m.dest;
    --logs_.partitions_per_dir_[m.src];
    ++logs_.partitions_per_dir_[m.dest];
  }
  {
    std::lock_guard lk(mu_);  // the copy is the current log now, no longer a future replica
    moving_.erase(m.tp);
  }
  if (::rename(m.src_dir.c_str(), m.delete_dir.c_str()) != 0) {
    // The marker stays: a restart keeps the copy and drops the source.
    storage_log().error("renaming {} after its move: {}", m.src_dir.string(), std::strerror(errno));
    return {};
  }
  fsync_dir(m.src_dir.parent_path());
  if (crash(5)) return cancelled_move();
  ::unlink((m.final_dir / kMoveMarker).c_str());
  fsync_dir(m.final_dir);
  if (crash(6)) return cancelled_move();
  remove_dir(m.delete_dir);
  logs_.checkpoint_recovery_points();
  logs_.checkpoint_log_start_offsets();
  return {};
}

// A move that failed or was cancelled before step 5: the copy goes first
// (so that a restart can never prefer it), then the source is reopened if it
// was closed. If the copy cannot be removed, the source stays closed rather
// than take appends a restart would drop.
void ReplicaDirMover::abandon(Move& m, bool reopen_source) {
  const fs::path copy = m.renamed ? m.final_dir : m.future_dir;
  std::error_code ec;
  fs::remove(copy / kMoveMarker, ec);
  if (!ec) fsync_dir(copy);
  if (!ec) fs::remove_all(copy, ec);
  if (ec) {
    storage_log().error("removing {} of an abandoned move: {}; partition {} stays offline until restart", copy.string(),
                        ec.message(), m.tp.dir_name());
    return;
  }
  fsync_dir(copy.parent_path());
  if (!reopen_source) return;
  LogLoadParams p{m.tp.topic,
                  m.tp.partition,
                  /*clean_shutdown=*/true,
                  m.source->log_end_offset().value,
                  m.source->log_start_offset().value,
                  logs_.fd_cache_};
  try {
    auto again = Log::open(m.src_dir, p, m.source->config());
    std::unique_lock lk(logs_.mu_);
    logs_.generation_.fetch_add(1, std::memory_order_release);
    logs_.logs_[m.tp].log = std::move(again);
  } catch (const std::exception& e) {
    storage_log().error("reopening {} after an abandoned move: {}", m.src_dir.string(), e.what());
  }
}

}  // namespace skiff::storage
