// LogCleanerManager: the cleaner threads of a node (Kafka's LogCleaner +
// LogCleanerManager). Each thread repeatedly picks the compacted log that
// most needs cleaning (needs_cleaning(); the highest dirty ratio first, a log
// past max.compaction.lag.ms counts as ratio 1), cleans its whole dirty range
// with its own Cleaner (dedupe buffer = log.cleaner.dedupe.buffer.size /
// threads), and records the new first dirty offset in the log dir's
// `cleaner-offset-checkpoint` (written durably after every cleaning; only
// partitions that still exist are written). With nothing to clean, or after
// an error, a thread sleeps log.cleaner.backoff.ms.
//
// Threads: all public methods are thread-safe. abort_and_pause() waits for a
// cleaning of that partition to finish and keeps it from starting again until
// resume() (topic deletion calls it before deleting files). The list of logs
// is asked from the owner through a callback on the cleaner threads.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "log/checkpoint_file.h"
#include "log/log_cleaner.h"
#include "log/throttler.h"

namespace skiff::storage {

class Log;

struct CleanableLog {
  TopicPartition tp;
  std::shared_ptr<Log> log;
  std::filesystem::path log_dir;  // where its cleaner-offset-checkpoint lives
};

struct LogCleanerManagerConfig {
  int threads = 1;                                          // log.cleaner.threads
  size_t dedupe_buffer_bytes = 128u << 20;                  // log.cleaner.dedupe.buffer.size (all threads)
  size_t io_buffer_bytes = 512u << 10;                      // log.cleaner.io.buffer.size
  double load_factor = 0.9;                                 // log.cleaner.io.buffer.load.factor
  int64_t backoff_ms = 15000;                               // log.cleaner.backoff.ms
  double max_io_bytes_per_second = 1.7976931348623157e308;  // log.cleaner.io.max.bytes.per.second (all threads)
};

class LogCleanerManager {
 public:
  using Lister = std::function<std::vector<CleanableLog>()>;
  // Reads each dir's cleaner-offset-checkpoint (a malformed one: logged, ignored).
  LogCleanerManager(LogCleanerManagerConfig cfg, const std::vector<std::filesystem::path>& log_dirs, Lister list);
  ~LogCleanerManager();

  void start();
  void stop();  // running cleanings stop after their current group

  // One round on the calling thread: cleans the log that most needs it.
  // True if a log was cleaned without error.
  bool clean_filthiest(Cleaner& cleaner, int64_t now_ms);
  // The partition's first dirty offset (-1 if never cleaned).
  int64_t checkpoint(const TopicPartition& tp) const;
  void abort_and_pause(const TopicPartition& tp);
  void resume(const TopicPartition& tp);

 private:
  std::optional<CleanableLog> pick(int64_t now_ms, CleaningPoint& point);
  void record(const CleanableLog& l, int64_t end_offset, const std::vector<CleanableLog>& all);
  void loop(int index);

  const LogCleanerManagerConfig cfg_;
  const Lister list_;
  const std::shared_ptr<Throttler> throttler_;  // shared by the threads, as Kafka's
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::filesystem::path, std::map<TopicPartition, int64_t>> checkpoints_;
  std::set<TopicPartition> in_progress_;
  std::set<TopicPartition> paused_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace skiff::storage
