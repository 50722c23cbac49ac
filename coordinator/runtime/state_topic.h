// StateTopic: one compacted internal topic that a coordinator keeps its
// durable state in (Kafka's CoordinatorRuntime over __consumer_offsets,
// __transaction_state, __share_group_state), written through storage::Log so
// the segment files are Kafka's and Kafka's tools decode them. What it does,
// once for every coordinator:
//   - open: adopts the topic if it exists (its own partition count wins over
//     the configured one, as in Kafka); create: on first use, compacted (or
//     cleanup.policy=delete with the configured retention.ms, by default -1),
//     uncompressed, with the configured segment size; again after an admin
//     deleted it (Kafka 4.4 allows DeleteTopics on internal topics);
//   - replay: every batch of every partition from the log start, in offset
//     order, to the coordinator's callbacks (for_each_record() decodes a
//     data batch's records and refuses what Skiff never writes);
//   - append: one batch (or a marker) on a partition, returning the
//     FlushPoints to make durable;
//   - flush: makes FlushPoints durable with the log's group commit
//     (concurrent callers share one fdatasync per partition); flush_async()
//     does it on the topic's flusher thread (flush_queue.h), so a coordinator
//     on a strand never blocks on an fsync and its concurrent writes share one.
// Nothing a coordinator writes is acknowledged before its flush succeeded.
//
// Threads: open() and replay() at startup before any write; every other
// method may be called from any thread. Writes to one partition are ordered
// by the log's lock. `mu_` is a leaf (held for pointer copies and creation).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/runtime/flush_queue.h"
#include "log/log_manager.h"
#include "log/record_batch.h"
#include "protocol/error_codes.h"

namespace skiff::coordinator {

// One record of a state topic: key and value bytes (value nullopt: a tombstone).
struct StateRecord {
  std::string key;
  std::optional<std::string> value;
};

struct StateTopicConfig {
  std::string name;           // e.g. "__consumer_offsets"
  int32_t partitions = 1;     // used when the topic is created
  int32_t segment_bytes = 0;  // segment.bytes (or internal.segment.bytes below 1 MiB)
  // "compact" (__consumer_offsets, __transaction_state), or "delete" with
  // retention.ms=-1 (__share_group_state: its owner prunes it, see
  // coordinator/share/share_state_machine.h) or `retention_ms`
  // (__remote_log_metadata: Kafka's remote.log.metadata.topic.retention.ms).
  std::string cleanup_policy = "compact";
  int64_t retention_ms = -1;  // with "delete"
};

class StateTopic {
 public:
  StateTopic(storage::LogManager& logs, StateTopicConfig config);
  ~StateTopic();
  StateTopic(const StateTopic&) = delete;
  StateTopic& operator=(const StateTopic&) = delete;

  // Adopts the topic if it exists (not creating it). Throws
  // std::runtime_error when one of its partitions is missing.
  void open();
  // Creates the topic unless it exists. Throws std::runtime_error.
  void ensure_created();
  bool exists() const;
  const std::string& name() const { return config_.name; }
  // The topic's partition count once open() found it, else the configured one.
  int32_t partitions() const { return partitions_; }

  // Every batch from each partition's log start, partition by partition:
  // `start(p)` before partition p's first batch. Throws std::runtime_error
  // on an unreadable log; what the callbacks throw propagates.
  void replay(const std::function<void(int32_t)>& start,
              const std::function<void(const storage::RecordBatchView&)>& batch) const;

  // The partition's log, creating the topic if needed. Throws std::runtime_error.
  std::shared_ptr<storage::Log> log(int32_t partition);
  // Runs `op` (an append) on the partition's log: its flush point, or
  // nothing (logged with `what`; `error` set when given) when it failed.
  std::optional<FlushPoints> append_with(int32_t partition, const std::string& what, ErrorCode* error,
                                         const std::function<storage::Result<storage::Appended>(storage::Log&)>& op);
  std::optional<FlushPoints> append(int32_t partition, std::vector<uint8_t> batch, ErrorCode* error = nullptr);
  // `records` as one uncompressed batch, stamped now (for an owner that
  // keeps no batch code of its own).
  std::optional<FlushPoints> append_records(int32_t partition, const std::vector<StateRecord>& records,
                                            ErrorCode* error = nullptr);
  // The topic's own value of a topic config (cleanup.policy, ...): nullopt
  // when the topic does not exist or leaves it to the broker default.
  std::optional<std::string> config_override(const std::string& key) const;

  // Makes everything up to `points` durable on the caller's thread. False on I/O error.
  bool flush(const FlushPoints& points);
  // The same on the flusher thread; `done(ok)` runs there.
  void flush_async(FlushPoints points, FlushQueue::Done done) { flusher_.submit(std::move(points), std::move(done)); }
  // Drains the flusher (every submitted flush completes); later flush_async
  // calls flush on the caller's thread.
  void stop() { flusher_.stop(); }

 private:
  void open_locked();  // caller holds mu_
  void ensure_created_locked();

  storage::LogManager& logs_;
  const StateTopicConfig config_;
  int32_t partitions_;                                // set by open(), before other threads use this
  mutable std::mutex mu_;                             // parts_
  std::vector<std::shared_ptr<storage::Log>> parts_;  // empty until the topic exists
  FlushQueue flusher_;
};

// The records of one data batch of a state topic: `fn(key, value)` per
// record (value nullopt = tombstone). Throws std::runtime_error naming
// `topic` on what Skiff never writes there: a compressed batch, a record
// without a key, malformed records.
void for_each_record(const storage::RecordBatchView& batch, const std::string& topic,
                     const std::function<void(std::span<const uint8_t>, std::optional<std::span<const uint8_t>>)>& fn);

}  // namespace skiff::coordinator
