// TxnMarkerWriterImpl: the coordinator's TxnMarkerWriter on a one-node
// broker. For every partition of a transaction it appends a COMMIT/ABORT
// control batch with storage::Log::append_marker (coordinator epoch 0: a
// single node never changes coordinator) and wakes the fetch purgatory for it
// (read_committed fetches waiting on the LSO). Partitions of
// `__consumer_offsets` go to the group coordinator's TxnOffsetMarkerSink
// (KIP-447), which appends the control batch to that partition itself (under
// its lock, so pending offsets and markers keep one order in the log and in
// memory), then applies it (no sink: nothing pending, success). A partition
// whose topic no longer exists is skipped, as Kafka's marker channel drops
// markers for deleted partitions.
//
// The markers are durable before `done`: a durable CompleteCommit /
// CompleteAbort with a marker lost at a power cut would leave the
// partition's transaction open under a finished one, and the producer's next
// COMMIT would take the aborted records in. Their fdatasyncs are group
// committed across transactions (a FlushQueue of logs).
//
// Threads: write_markers() may be called from any thread (the coordinator's
// strand); the appends run on this writer's own thread (they do I/O, the
// strand does not wait), the fdatasyncs on its flush queue's thread, and
// `done` is handed to `post` (the strand) after the last flush and the last
// sink completion.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <thread>

#include "coordinator/runtime/flush_queue.h"
#include "coordinator/txn/txn_gates.h"
#include "coordinator/txn/txn_ports.h"
#include "log/log_manager.h"

namespace skiff::txn {

inline constexpr const char* kOffsetsTopic = "__consumer_offsets";

// Told that a marker was appended to a partition, so that the fetches waiting
// on it wake (read_committed fetches wait on the LSO): KafkaApis gives one
// that wakes its fetch purgatory. Empty: nobody to tell. Any thread.
using MarkerAppended = std::function<void(const std::string& topic, int32_t partition)>;

// One COMMIT/ABORT control batch on `log` (storage::Log::append_marker, which
// checks the epochs), logged, and `appended` told. Shared by the
// coordinator's writer and the WriteTxnMarkers handler. Any thread.
ErrorCode append_log_marker(storage::Log& log, const MarkerAppended& appended, const TopicPartition& tp,
                            int64_t producer_id, int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                            int16_t transaction_version);

// The partition logs a batch of markers went to, for the flush queue.
struct MarkedLogs {
  std::map<const storage::Log*, std::shared_ptr<storage::Log>> logs;
  void merge(const MarkedLogs& o) { logs.insert(o.logs.begin(), o.logs.end()); }
};

class TxnMarkerWriterImpl : public TxnMarkerWriter {
 public:
  using Post = std::function<void(std::function<void()>)>;
  TxnMarkerWriterImpl(storage::LogManager& logs, MarkerAppended appended, TxnOffsetMarkerSink* offsets, Post post);
  ~TxnMarkerWriterImpl() override;
  void stop();

  void write_markers(int64_t producer_id, int16_t producer_epoch, bool commit,
                     const std::set<TopicPartition>& partitions, std::function<void(ErrorCode)> done) override;

 private:
  ErrorCode append_to_logs(int64_t producer_id, int16_t producer_epoch, bool commit,
                           const std::set<TopicPartition>& partitions, MarkedLogs& marked);

  storage::LogManager& logs_;
  MarkerAppended appended_;
  TxnOffsetMarkerSink* offsets_;
  Post post_;
  coordinator::BasicFlushQueue<MarkedLogs> flushes_;  // stopped after the writer thread
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace skiff::txn
