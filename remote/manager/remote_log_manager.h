// RemoteLogManager: tiered storage's driver (Kafka's RemoteLogManager) for
// every partition whose topic has remote.storage.enable=true. Its passes:
//  - copy: the log's copy candidates (closed segments below the LSO, oldest
//    first, after the highest offset already remote) go to the store, each
//    as COPY_SEGMENT_STARTED (durable) -> the store's copy ->
//    COPY_SEGMENT_FINISHED (durable) -> the log's highest remote offset.
//    Only then may local retention delete the local copy, so nothing leaves
//    the disk before it is durable in the store and in the metadata.
//  - expire: remote retention as Kafka's RLMExpirationTask: oldest first,
//    a finished segment goes when its last offset is below the log start
//    (DeleteRecords), its max timestamp is older than retention.ms, or the
//    remote plus local-only bytes exceed retention.bytes by its size;
//    DELETE_SEGMENT_STARTED -> the store's delete -> DELETE_SEGMENT_FINISHED,
//    then the log start moves past it. The first segment kept stops the pass.
//    Copies and deletes cut by a crash or an error (a COPY_SEGMENT_STARTED
//    not in flight, a DELETE_SEGMENT_STARTED) are finished as deletes here.
//  - sweep: remote data of a deleted topic (its topic id gone), or of a
//    topic that turned remote storage off with remote.log.delete.on.disable,
//    is deleted: the partition is marked first (DELETE_PARTITION_MARKED,
//    STARTED), each segment deleted as above, then DELETE_PARTITION_FINISHED;
//    a crash part way resumes at the next pass.
//  - recover (start()): each log learns its highest remote offset back from
//    the metadata (the log does not keep it).
// Threads: start() and stop() from the owner. A ticker thread posts one task
// per partition each remote.log.manager.task.interval.ms to the copier or
// the expiration pool; a partition's tasks hold its lock, so one partition
// is never worked on by two threads (a task finding it busy skips the tick).
// run_copy_once() / run_expiration_once() are the same passes, synchronous,
// on the caller's thread (tests, tools). Stats are atomics, read anywhere.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "log/log_manager.h"
#include "log/throttler.h"
#include "remote/manager/segment_store.h"
#include "remote/metadata/metadata_manager.h"

namespace skiff::remote {

struct RemoteLogManagerConfig {
  int32_t broker_id = 1;
  int64_t task_interval_ms = 30000;      // remote.log.manager.task.interval.ms
  int copier_threads = 10;               // remote.log.manager.copier.thread.pool.size
  int expiration_threads = 10;           // remote.log.manager.expiration.thread.pool.size
  double copy_max_bytes_per_second = 0;  // remote.log.manager.copy.max.bytes.per.second (<= 0: none)
  int64_t retry_backoff_ms = 500;        // remote.log.manager.task.retry.backoff.ms
  int64_t retry_backoff_max_ms = 30000;  // remote.log.manager.task.retry.backoff.max.ms
};

// What the manager did, for /metrics and the console (monotonic counters).
struct RemoteLogStats {
  std::atomic<int64_t> segments_copied{0};
  std::atomic<int64_t> bytes_copied{0};
  std::atomic<int64_t> copy_errors{0};
  std::atomic<int64_t> segments_deleted{0};
  std::atomic<int64_t> bytes_deleted{0};
  std::atomic<int64_t> delete_errors{0};
  std::atomic<int64_t> metadata_errors{0};
};

class RemoteLogManager {
 public:
  RemoteLogManager(storage::LogManager& logs, RemoteLogMetadataManager& metadata, SegmentStore& store,
                   RemoteLogManagerConfig config);
  ~RemoteLogManager();
  RemoteLogManager(const RemoteLogManager&) = delete;
  RemoteLogManager& operator=(const RemoteLogManager&) = delete;

  // Recovers every log's highest remote offset, then starts the ticker and pools.
  void start();
  // Stops posting, lets running copies end (a copy in flight stays
  // COPY_SEGMENT_STARTED if cut: the next start's expiration deletes it).
  void stop();

  // Every log's highest remote offset from the metadata (start() does it).
  void recover();
  // One copy pass over every partition; returns the segments copied.
  int run_copy_once(int64_t now_ms);
  // One expiration and sweep pass; returns the segments deleted.
  int run_expiration_once(int64_t now_ms);

  const RemoteLogStats& stats() const { return stats_; }

 private:
  // The partitions of topics with remote storage enabled, and of every
  // partition the metadata knows (for the sweep).
  std::vector<std::pair<storage::TopicInfo, int32_t>> remote_partitions() const;
  std::shared_ptr<std::mutex> partition_lock(const TopicIdPartition& tp);
  void recover_log(storage::Log& log, const TopicIdPartition& tp);
  int copy_partition(const storage::TopicInfo& topic, int32_t partition, int64_t now_ms);
  bool copy_segment(storage::Log& log, const TopicIdPartition& tp, const storage::CopyCandidate& c, int64_t now_ms);
  int expire_partition(const storage::TopicInfo& topic, int32_t partition, int64_t now_ms);
  // Finishes copies and deletes left part way; returns the segments deleted.
  int clean_unfinished(const TopicIdPartition& tp, int64_t now_ms);
  int apply_retention(storage::Log& log, const TopicIdPartition& tp, int64_t now_ms);
  // DELETE_SEGMENT_STARTED -> the store's delete -> DELETE_SEGMENT_FINISHED.
  bool delete_segment(const RemoteLogSegmentMetadata& segment, int64_t now_ms);
  // Deletes every segment of a partition whose data must go; marks the
  // partition deleted when `whole_partition` (its topic is gone).
  int sweep_partition(const TopicIdPartition& tp, bool whole_partition, int64_t now_ms);
  int sweep(int64_t now_ms);
  void ticker();
  void post_tick();

  storage::LogManager& logs_;
  RemoteLogMetadataManager& metadata_;
  SegmentStore& store_;
  const RemoteLogManagerConfig config_;
  RemoteLogStats stats_;
  storage::Throttler copy_throttle_;  // copy.max.bytes.per.second over every copier thread

  std::mutex locks_mu_;  // leaf: guards locks_
  std::map<TopicIdPartition, std::shared_ptr<std::mutex>> locks_;

  struct Pools;
  std::unique_ptr<Pools> pools_;
  std::mutex ticker_mu_;
  std::condition_variable ticker_cv_;
  bool stopping_ = false;
  std::atomic<bool> stop_requested_{false};
  std::thread ticker_;
};

}  // namespace skiff::remote
