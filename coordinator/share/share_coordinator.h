// ShareCoordinator: runs the share coordinator (Kafka's ShareCoordinatorService;
// its logic is coordinator/share/share_state_machine.h) inside the broker. It
// owns __share_group_state (a coordinator::StateTopic created with
// cleanup.policy=delete, retention.ms=-1, as Kafka does) and offers the
// per-share-partition operations of APIs 83-87, which the handlers in
// api/handlers/*_share_group_state_handler.cc call per (topic, partition),
// and server/ adapts to share::StatePersister.
//
// Threads: one small io_context thread ("the share coordinator thread") with
// one strand; every operation, replay, completion and timer runs there.
// Every public operation may be called from any thread: it posts and returns
// at once; `done` runs later on the share coordinator thread (never inside
// the call; after stop(): at once, COORDINATOR_NOT_AVAILABLE), so no caller
// waits. A state change is answered only once its
// record is durable (StateTopic::flush_async, group-committed on the topic's
// flusher thread); an operation that writes nothing is answered once every
// record appended before it to that partition is durable, so no answer ever
// shows state that a crash could lose.
//
// Errors: Kafka's codes and messages (share_state_machine.h); before start()
// finished loading: COORDINATOR_LOAD_IN_PROGRESS; after stop() or when the
// state cannot be appended or made durable: COORDINATOR_NOT_AVAILABLE
// ("Unable to <op> share group state: <why>"; clients retry it). A state
// appended but not made durable (fsync error) stays in memory: the record is
// in the log and is read back at the next start unless the crash loses it.
//
// Timers (on the strand): every share.coordinator.state.topic.prune.interval.ms
// the log start of each partition moves to its last redundant offset (never
// past what is durable); every share.coordinator.cold.partition.snapshot.interval.ms
// idle keys get a fresh snapshot (both as Kafka's periodic jobs), and the
// state of share-partitions whose topic was deleted is deleted (Kafka does it
// on the metadata delta).
//
// Startup: start() opens and replays __share_group_state on the caller's
// thread (a corrupt log throws), then starts the thread. stop() is
// idempotent; operations under way are dropped (their callers time out).
#pragma once

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/runtime/state_topic.h"
#include "coordinator/share/share_state_machine.h"

namespace skiff::sharecoord {

struct ShareCoordinatorConfig {
  int32_t num_partitions = 50;         // share.coordinator.state.topic.num.partitions
  int32_t segment_bytes = 104857600;   // share.coordinator.state.topic.segment.bytes
  int32_t prune_interval_ms = 300000;  // share.coordinator.state.topic.prune.interval.ms
  ShareCoreConfig core;                // snapshot cadence, cold snapshot interval
};

// ReadShareGroupStateSummary's answer for one share-partition.
struct ShareSummary {
  int32_t state_epoch = 0;
  int32_t leader_epoch = 0;
  int64_t start_offset = -1;
  int32_t delivery_complete_count = -1;
};

class ShareCoordinator {
 public:
  using Done = std::function<void(ErrorCode, std::string message)>;
  using ReadDone = std::function<void(ErrorCode, std::string message, ShareState)>;
  using SummaryDone = std::function<void(ErrorCode, std::string message, ShareSummary)>;

  // `clock` null: the wall clock. `topics` null: every topic id is looked up
  // in `logs` (LogManager::topic_by_id).
  ShareCoordinator(ShareCoordinatorConfig config, storage::LogManager& logs, std::unique_ptr<ShareClock> clock = {},
                   TopicPartitionCount topics = {});
  ~ShareCoordinator();
  ShareCoordinator(const ShareCoordinator&) = delete;
  ShareCoordinator& operator=(const ShareCoordinator&) = delete;

  void start();  // throws std::runtime_error / protocol::DecodeError on an unusable state log
  void stop();

  // InitializeShareGroupState for one share-partition (start_offset -1: unset).
  void initialize(const Key& key, int32_t state_epoch, int64_t start_offset, Done done);
  // ReadShareGroupState: the state (state_epoch, start_offset, batches;
  // the leader epoch, delivery complete count and timestamps as stored).
  void read(const Key& key, int32_t leader_epoch, ReadDone done);
  // WriteShareGroupState: `batches` are the changed ranges.
  void write(const Key& key, int32_t state_epoch, int32_t leader_epoch, int64_t start_offset,
             int32_t delivery_complete_count, std::vector<StateBatch> batches, Done done);
  // DeleteShareGroupState.
  void remove(const Key& key, Done done);
  // ReadShareGroupStateSummary.
  void read_summary(const Key& key, SummaryDone done);

  // The __share_group_state partition of `key` (Kafka's partitionFor); valid after start().
  int32_t partition_for(const Key& key) const;
  bool loaded() const { return loaded_.load(); }
  // Runs the prune and cold-snapshot jobs now; `done` after (tests).
  void run_periodic_jobs(std::function<void()> done);

 private:
  class WallClock;
  void post(std::function<void()> fn);
  // Runs `op` on the strand once loaded, else answers `refuse`.
  void submit(std::function<void()> op, std::function<void(ErrorCode, std::string)> refuse);
  // Appends `record`, replays it, and calls `done` once it is durable.
  void append(const ShareRecord& record, const std::string& what, Done done);
  // Calls `done` once everything appended to `partition` so far is durable.
  void after_durable(int32_t partition, const std::string& what, Done done);
  void prune();
  void snapshot_cold();
  void arm_prune_timer();
  void arm_cold_timer();

  ShareCoordinatorConfig config_;
  storage::LogManager& logs_;
  std::unique_ptr<ShareClock> clock_;
  coordinator::StateTopic topic_;
  ShareStateMachine machine_;
  int32_t partitions_ = 0;             // set by start()
  std::vector<int64_t> appended_end_;  // per partition: the end of what was appended (strand)
  std::vector<int64_t> durable_end_;   // per partition: the end of what is durable (strand)
  std::vector<int64_t> pruned_to_;     // per partition: the log start we moved to (strand)
  boost::asio::io_context io_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::steady_timer prune_timer_;
  boost::asio::steady_timer cold_timer_;
  std::atomic<bool> loaded_{false};
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

}  // namespace skiff::sharecoord
