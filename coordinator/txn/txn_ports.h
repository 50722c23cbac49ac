// What TxnCoordinator needs from the rest of the broker, as interfaces so the
// core stays pure logic (tests drive it with fakes). Completions are
// callbacks, never a blocked thread; the owner delivers every completion on
// the coordinator's strand (see txn_coordinator.h).
//
// Threads: interfaces only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/txn/txn_metadata.h"
#include "protocol/error_codes.h"

namespace skiff::txn {

class TxnClock {
 public:
  virtual ~TxnClock() = default;
  virtual int64_t now_ms() = 0;
};

// __transaction_state: appends one record (bytes from transaction_log.h;
// value nullopt = tombstone); `done` runs once it is durable (kNone) or failed.
class TxnStateLog {
 public:
  virtual ~TxnStateLog() = default;
  virtual void append(const std::string& transactional_id, std::vector<uint8_t> key,
                      std::optional<std::vector<uint8_t>> value, std::function<void(ErrorCode)> done) = 0;
  // As append(), but `done` runs once the record is written, before it is
  // durable (the next durable append makes it so): for a record whose loss
  // at a crash is safe, CompleteCommit/CompleteAbort (the Prepare* before it
  // is durable, and from it the coordinator writes the markers again).
  virtual void append_written(const std::string& transactional_id, std::vector<uint8_t> key,
                              std::optional<std::vector<uint8_t>> value, std::function<void(ErrorCode)> done) {
    append(transactional_id, std::move(key), std::move(value), std::move(done));
  }
};

// New producer ids: the broker's durable allocator (coordinator/txn/producer_ids.*).
class TxnProducerIdSource {
 public:
  virtual ~TxnProducerIdSource() = default;
  struct Allocated {
    ErrorCode error = ErrorCode::kNone;
    int64_t producer_id = kNoProducerId;
  };
  virtual Allocated allocate() = 0;
};

// Writes a COMMIT or ABORT control batch for (producer id, epoch) to every
// partition; `done` runs once all are written (kNone) or one failed. The set
// may be empty (TV2's abort of a transaction with no partitions): done(kNone).
class TxnMarkerWriter {
 public:
  virtual ~TxnMarkerWriter() = default;
  virtual void write_markers(int64_t producer_id, int16_t producer_epoch, bool commit,
                             const std::set<TopicPartition>& partitions, std::function<void(ErrorCode)> done) = 0;
};

// Kafka's defaults (TransactionStateManagerConfig / TransactionLogConfig).
struct TxnConfig {
  int32_t max_timeout_ms = 900000;                     // transaction.max.timeout.ms
  int64_t abort_timed_out_interval_ms = 10000;         // transaction.abort.timed.out.transaction.cleanup.interval.ms
  int64_t transactional_id_expiration_ms = 604800000;  // transactional.id.expiration.ms
  int64_t remove_expired_interval_ms = 3600000;        // transaction.remove.expired.transaction.cleanup.interval.ms
  int32_t offsets_topic_partitions = 50;               // offsets.topic.num.partitions (AddOffsetsToTxn)
  // The finalized transaction.version, read at each use (UpdateFeatures may
  // change it): fence/timeout aborts, the state record version. Any thread.
  std::function<int16_t()> transaction_version = [] { return int16_t{2}; };
  int64_t busy_wait_ms = 100;  // add.partitions.to.txn.retry.backoff.max.ms
};

}  // namespace skiff::txn
