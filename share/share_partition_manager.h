// SharePartitionManager: the broker's share partitions (Kafka's
// kafka.server.share.SharePartitionManager). A share partition is created on
// the first fetch of its (group, topic-partition) and loaded through the
// StatePersister asynchronously; until then fetches of it acquire nothing.
// It owns the ShareSessionCache, applies the acknowledgements of ShareFetch
// and ShareAcknowledge, and releases a member's records when its session
// closes (epoch -1) or its connection does.
//
// Threads: any thread (the handler threads). Each share partition has its own
// recursive mutex; every call into a SharePartition, and every callback it
// gets back (lock-timeout timers, persister completions), runs under it, so
// different partitions run in parallel and nothing parks a thread: loads and
// writes complete through callbacks, on whatever thread the persister or the
// timer runs them. The partition map has its own mutex, never held while a
// partition's is taken.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/runtime/timer_queue.h"
#include "share/dead_letter_queue.h"
#include "share/share_metrics.h"
#include "share/share_partition.h"
#include "share/share_session.h"
#include "share/state_persister.h"

namespace skiff::share {

// One loaded share partition as /metrics reports it (read under its lock).
struct SharePartitionStats {
  std::string group_id;
  TopicIdPartition tp;
  int32_t in_flight_records = 0;  // Kafka's InFlightMessageCount
  int64_t in_flight_batches = 0;  // Kafka's InFlightBatchCount
  int64_t start_offset = 0;
  int32_t delivery_complete_count = 0;
  uint64_t lock_timeouts = 0;  // records whose acquisition lock expired (AcquisitionLockTimeoutPerSec)
};

class SharePartitionManager {
 public:
  struct Ports {
    std::function<int64_t()> now_ms;
    // Runs fn after delay_ms on some thread (the integrator: a
    // coordinator::TimerQueue; tests: a fake clock).
    std::function<void(int64_t delay_ms, std::function<void()> fn)> schedule;
    // ListOffsets' lookup on the partition's log: -1 latest, -2 earliest, else
    // a timestamp; -1 when no offset.
    std::function<int64_t(const TopicIdPartition&, int64_t timestamp)> offset_for_timestamp;
    // Records of (group, partition) may be acquirable: wake the share fetches
    // waiting in the purgatory. May be called under a partition's lock.
    std::function<void(const std::string& group_id, const TopicIdPartition&)> on_acquirable;
    // The partition's leader epoch (Skiff is one node: 0 when unset).
    std::function<int32_t(const TopicIdPartition&)> leader_epoch;
    // KIP-1191's dead-letter queue; null: none (records archived at once).
    DeadLetterQueue* dead_letters = nullptr;
  };

  SharePartitionManager(StatePersister& persister, const ShareGroupConfigPort& config, int32_t max_share_sessions,
                        Ports ports);
  SharePartitionManager(const SharePartitionManager&) = delete;
  SharePartitionManager& operator=(const SharePartitionManager&) = delete;

  ShareSessionCache& sessions() { return sessions_; }
  const ShareGroupConfigPort& config() const { return config_; }

  // Creates the share partition when absent and starts its load; done(ok)
  // once it is ACTIVE (inline when it already is), done(error) when the load
  // failed (the partition is dropped so a later fetch retries).
  void maybe_initialize(const std::string& group_id, const TopicIdPartition& tp, std::function<void(ShareResult)> done);

  // Runs fn under the partition's lock when it is loaded (ACTIVE); false
  // when it is absent or not loaded. try_only: false also when another
  // thread holds the partition (Kafka's fetch lock: skip it this time).
  bool with_partition(const std::string& group_id, const TopicIdPartition& tp,
                      const std::function<void(SharePartition&)>& fn, bool try_only = false);

  using AckResults = std::vector<std::pair<TopicIdPartition, ShareResult>>;
  // Applies acknowledgements per partition; done once every partition's
  // write completed (or failed). A partition not loaded answers
  // UNKNOWN_TOPIC_OR_PARTITION.
  void acknowledge(const std::string& group_id, const std::string& member_id,
                   const std::vector<std::pair<TopicIdPartition, std::vector<AcknowledgementBatch>>>& acks,
                   std::function<void(AckResults)> done);

  // Closes the member's session and releases its records in the session's
  // partitions; SHARE_SESSION_NOT_FOUND when there is no session.
  void release_session(const std::string& group_id, const std::string& member_id,
                       std::function<void(ShareResult, AckResults)> done);

  // A connection closed (the integrator's disconnect hook).
  void on_disconnect(const std::string& connection_id);

  // The partition's log start offset moved (retention, DeleteRecords).
  void on_log_start_offset(const TopicIdPartition& tp, int64_t log_start_offset);
  // share.version went below 1 (Kafka's onShareVersionToggle): every share
  // session and every cached share partition is dropped; their durable
  // state stays with the share coordinator and is read again when share
  // groups come back.
  void on_share_groups_disabled();

  size_t partition_count() const;

  // The broker-wide share counters (share/share_metrics.h); any thread.
  ShareMetrics& metrics() { return metrics_; }
  const ShareMetrics& metrics() const { return metrics_; }
  // The loaded (ACTIVE) partitions, in (group, topic id, partition) order;
  // takes each partition's lock in turn, briefly. Any thread.
  std::vector<SharePartitionStats> partition_stats() const;

 private:
  struct Entry {
    std::recursive_mutex mu;
    std::unique_ptr<SharePartition> sp;
    std::vector<std::function<void(ShareResult)>> waiters;
    std::string group_id;
    TopicIdPartition tp;
  };
  using Key = std::pair<std::string, TopicIdPartition>;

  std::shared_ptr<Entry> find(const std::string& group_id, const TopicIdPartition& tp) const;
  std::shared_ptr<Entry> get_or_create(const std::string& group_id, const TopicIdPartition& tp);
  void remove(const std::shared_ptr<Entry>& e);
  void on_loaded(const std::shared_ptr<Entry>& e, ErrorCode code, const std::string& message,
                 const PersistedState& state);
  static bool fences(ErrorCode code);
  void count_acknowledged(const ShareResult& r, const std::vector<AcknowledgementBatch>& batches);

  StatePersister& persister_;
  const ShareGroupConfigPort& config_;
  Ports ports_;
  ShareSessionCache sessions_;
  ShareMetrics metrics_;
  mutable std::mutex mu_;
  std::map<Key, std::shared_ptr<Entry>> partitions_;
};

// Ports over the broker's clock and timer thread, for the integrator: the
// lock deadlines and the timers must read the same (steady) clock.
inline int64_t steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(coordinator::TimerQueue::Clock::now().time_since_epoch())
      .count();
}
inline std::function<void(int64_t, std::function<void()>)> schedule_on(coordinator::TimerQueue& timers) {
  return [&timers](int64_t delay_ms, std::function<void()> fn) {
    timers.schedule_after(std::chrono::milliseconds(delay_ms), std::move(fn));
  };
}

}  // namespace skiff::share
