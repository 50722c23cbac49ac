// TxnStateStore: the transaction coordinator's durable state, Kafka's
// internal topic `__transaction_state` written through storage::Log, so the
// segment files are Kafka's and `kafka-dump-log --transaction-log-decoder`
// decodes them. Each TxnStateLog::append is one uncompressed batch with one
// TransactionLogKey/Value record (coordinator/txn/transaction_log.h; null value =
// tombstone); its completion runs once it is fsynced. The topic is the
// coordinators' one StateTopic (coordinator/runtime/state_topic.h): appends
// run on the coordinator's strand, their fsyncs on the topic's flusher
// thread, so concurrent transactions' state writes share one fdatasync (the
// group commit __consumer_offsets has) and the strand never waits on the
// disk. The topic has
// cleanup.policy=compact: the log cleaner (log/log_cleaner_manager.h) keeps
// the latest record per transactional id and drops tombstones after
// delete.retention.ms, so the log stays bounded by the live ids.
//
// One partition, not Kafka's 50 (transaction.state.log.num.partitions is
// accepted and ignored): partitions exist to spread coordinators over
// brokers; on a single node they would only turn startup into 50 replays and
// every state write into one of 50 fsync streams.
//
// Threads: open() and load() at startup, before any append; append() from the
// coordinator's strand only; stop() once, before the strand stops. `done` is
// handed to `post` (the strand), never run inside append().
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/runtime/state_topic.h"
#include "coordinator/txn/transaction_log.h"
#include "coordinator/txn/txn_ports.h"
#include "log/log_manager.h"

namespace skiff::txn {

inline constexpr const char* kTransactionStateTopic = "__transaction_state";

class TxnStateStore : public TxnStateLog {
 public:
  using Post = std::function<void(std::function<void()>)>;
  TxnStateStore(storage::LogManager& logs, int32_t segment_bytes, Post post);

  // Opens the topic if it exists. As in Kafka, it is created (compacted,
  // segment.bytes from transaction.state.log.segment.bytes) only when the
  // first transactional producer needs it: by the first state write.
  void open();
  // Every record from the log start, in offset order. Throws
  // protocol::DecodeError / std::runtime_error on a corrupt record: the
  // broker must not serve a coordinator built from half a state.
  std::vector<TxnLogRecord> load() const;

  void append(const std::string& transactional_id, std::vector<uint8_t> key, std::optional<std::vector<uint8_t>> value,
              std::function<void(ErrorCode)> done) override;
  void append_written(const std::string& transactional_id, std::vector<uint8_t> key,
                      std::optional<std::vector<uint8_t>> value, std::function<void(ErrorCode)> done) override;

  // Completes the appends whose fsync is under way (their completions are
  // posted); later appends fsync on the caller's thread.
  void stop() { topic_.stop(); }

 private:
  // Appends the record; on failure posts `done` with the error (moving it)
  // and returns nothing.
  std::optional<coordinator::FlushPoints> write(const std::vector<uint8_t>& key,
                                                const std::optional<std::vector<uint8_t>>& value,
                                                std::function<void(ErrorCode)>& done);

  coordinator::StateTopic topic_;
  Post post_;
};

}  // namespace skiff::txn
