// ReplicaDirMover: moves a partition from one log dir (log.dirs) to another
// while it is being written and read (AlterReplicaLogDirs). Kafka's future
// replica, on one node: the partition's files are copied into
// `<dest>/<topic>-<partition>.<32 hex>-future` by repeated incremental passes
// (dir_copy.h) while appends go on to the current log; once a pass copies
// little, the current log is closed (appends wait for nothing: they get
// UNKNOWN_TOPIC_OR_PARTITION, which clients retry), the last changes are
// copied, and the new log takes its place in the LogManager.
//
// The steps, and what a kill -9 after each leaves (recover() runs at start,
// before any log is opened):
//   1. mkdir the -future dir                  -> removed at start
//   2. bulk copy passes                       -> removed at start
//   3. close the source, last pass, fsync,
//      write `.skiff-move-target` in it       -> removed at start (the
//                                                source has every record:
//                                                it refused appends once closed)
//   4. rename -future -> <dest>/<topic>-<p>   -> the partition is in two dirs;
//                                                the one holding the marker
//                                                wins, the other is removed
//   5. swap the logs in memory; rename the
//      source to `<name>.<hex>-delete`        -> the -delete dir is removed
//   6. remove the marker, then the -delete dir
// A future dir is therefore never served: an interrupted move is dropped
// (the operator re-issues it), and no acknowledged record is lost, since
// nothing is acknowledged by the source after step 3.
// A failure (ENOSPC in the destination, the partition deleted meanwhile)
// before step 5 removes the future dir and reopens the source.
//
// Threads: request(), futures() and stop() from any thread. Moves run one at
// a time on the mover's own thread (started at the first request), or on the
// caller's in run_pending() (tests). The LogManager's admin mutex is held from
// step 3 to step 5 only, so topic creation/deletion wait milliseconds, not for
// the copy; the log cleaner is paused for the partition during the move.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "log/checkpoint_file.h"
#include "log/result.h"
#include "log/types.h"

namespace skiff::storage {

class LogManager;
class Log;

// A partition being moved: its future replica (DescribeLogDirs IsFutureKey).
struct FutureReplica {
  TopicPartition tp;
  size_t dir_index = 0;     // destination log dir
  uint64_t size_bytes = 0;  // copied so far
  int64_t offset_lag = 0;   // the current log's end minus the copy's (approximate until the last pass)
};

class ReplicaDirMover {
 public:
  explicit ReplicaDirMover(LogManager& logs) : logs_(logs) {}
  ~ReplicaDirMover() { stop(); }

  // Start-up, before any log is opened: applies the rules above to
  // leftovers of moves interrupted by a crash. Throws on I/O errors.
  static void recover(const std::vector<std::filesystem::path>& log_dirs);

  // Moves tp to log dir `dir_index` in the background. kNone also when it is
  // there already (nothing to do) or already moving there; a move elsewhere
  // is cancelled first. kUnknownTopicOrPartition: no such partition.
  LogErrc request(const TopicPartition& tp, size_t dir_index);
  std::vector<FutureReplica> futures() const;
  // replica.alter.log.dirs.io.max.bytes.per.second: the copy's rate, from
  // the next bulk pass on (the last pass, with appends held, is never slowed).
  void set_rate(int64_t bytes_per_second) { rate_.store(bytes_per_second, std::memory_order_relaxed); }
  // Cancels a move in progress (its future dir is removed) and joins the thread.
  void stop();

  // Tests: run the queued moves on this thread; `crash_at(step)` returning
  // true stops the move right after that step, leaving disk as a kill would.
  void set_crash_at(std::function<bool(int)> crash_at) { crash_at_ = std::move(crash_at); }
  void set_manual() { manual_ = true; }  // no thread: run_pending() runs the moves
  void run_pending();
  // Tests: called between bulk passes (appends during the copy).
  void set_between_passes(std::function<void()> f) { between_passes_ = std::move(f); }

 private:
  struct Job {
    TopicPartition tp;
    size_t dest = 0;
  };
  struct Move;
  void run();
  bool next_job(Job& job, bool wait);
  // An I/O Error on failure; errno ECANCELED (as the cleaner's passes carry
  // it): cancelled, crashed in a test, or nothing to do.
  Result<void> move(const Job& job);
  Result<void> bulk_copy(Move& m);
  std::function<void(uint64_t)> rate_limit(int64_t bytes_per_second);
  Result<void> commit(Move& m);
  Result<void> swap_in(Move& m, std::shared_ptr<Log> fresh);
  void abandon(Move& m, bool reopen_source);
  void finish(const Job& job, const Result<void>& r);
  bool cancelled() const;
  bool crash(int step) const { return crash_at_ && crash_at_(step); }
  void set_progress(const TopicPartition& tp, uint64_t bytes, int64_t lag);

  LogManager& logs_;
  std::function<bool(int)> crash_at_;
  std::function<void()> between_passes_;
  std::atomic<int64_t> rate_{INT64_MAX};

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  std::deque<Job> queue_;
  std::map<TopicPartition, FutureReplica> moving_;  // the move in progress (at most one)
  bool cancel_current_ = false;
  bool stopping_ = false;
  bool manual_ = false;
  std::thread thread_;
};

}  // namespace skiff::storage
