// TxnCoordinator: Kafka's transaction coordinator as pure logic — one
// TxnMetadata per transactional id; InitProducerId (incl. KIP-360 recovery,
// epoch exhaustion, fencing a zombie), AddPartitionsToTxn (v0-3, and v4+
// batches with verify-only), AddOffsetsToTxn, EndTxn (v0-4, and TV2's v5 that
// bumps the epoch), the timed-out abort scan, transactional id expiration,
// Describe/ListTransactions views and replay of __transaction_state.
// Answers carry Kafka's error codes for the request's path; mapping
// PRODUCER_FENCED to INVALID_PRODUCER_EPOCH for old versions is
// fenced_error_for_version's, called by the handler.
//
// Every state change is written to TxnStateLog and applied only when durable;
// markers go through TxnMarkerWriter; both complete by callback. While either
// is in flight the id has a pending transition and other requests for it get
// CONCURRENT_TRANSACTIONS — except adding partitions (AddPartitionsToTxn,
// AddOffsetsToTxn, TV2's implicit add from Produce): that waits, parked, for
// the transition to complete (at most busy_wait_ms), since a client's next
// transaction routinely starts while the last one's markers are written, and
// a client's own retry backoff (20 ms and more) would cost far more.
//
// Threads: not synchronised and owns no thread. The owner serialises every
// call and every completion callback (one strand); callbacks to the caller
// run on that strand, possibly before the call returns.
// Errors: client input only ever yields error codes. std::logic_error means a
// broken invariant (Kafka's IllegalStateException, a bug); the owner catches
// it per call, logs it and answers UNKNOWN_SERVER_ERROR.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/txn/transaction_log.h"
#include "coordinator/txn/txn_metadata.h"
#include "coordinator/txn/txn_ports.h"

namespace skiff::txn {

struct ProducerIdAndEpoch {
  int64_t producer_id = kNoProducerId;
  int16_t epoch = kNoProducerEpoch;
};

struct TxnResult {  // InitProducerId and EndTxn (v5 returns the new id/epoch)
  ErrorCode error = ErrorCode::kNone;
  int64_t producer_id = kNoProducerId;
  int16_t epoch = kNoProducerEpoch;
};

// One transaction of a v4+ batched AddPartitionsToTxn.
struct AddPartitionsEntry {
  std::string transactional_id;
  int64_t producer_id = kNoProducerId;
  int16_t epoch = kNoProducerEpoch;
  bool verify_only = false;
  std::set<TopicPartition> partitions;
};
using PartitionErrors = std::map<TopicPartition, ErrorCode>;

struct TxnDescription {  // DescribeTransactions, per id
  ErrorCode error = ErrorCode::kNone;
  std::string transactional_id;
  std::string state;
  int32_t timeout_ms = 0;
  int64_t start_ms = -1;
  int64_t producer_id = kNoProducerId;
  int16_t epoch = kNoProducerEpoch;
  std::set<TopicPartition> partitions;
};

struct TxnListing {  // ListTransactions
  struct Entry {
    std::string transactional_id;
    int64_t producer_id;
    std::string state;
  };
  std::vector<std::string> unknown_state_filters;
  std::vector<Entry> states;
};

// PRODUCER_FENCED is new in InitProducerId/AddPartitionsToTxn/AddOffsetsToTxn/
// EndTxn v2 (v4 for InitProducerId); older clients get INVALID_PRODUCER_EPOCH.
ErrorCode fenced_error_for_version(ErrorCode e, int16_t version, int16_t first_version_with_fenced);

class TxnCoordinator {
 public:
  TxnCoordinator(TxnConfig config, TxnClock& clock, TxnStateLog& log, TxnProducerIdSource& ids,
                 TxnMarkerWriter& markers);

  void init_producer_id(const std::string& transactional_id, int32_t timeout_ms,
                        std::optional<ProducerIdAndEpoch> expected, std::function<void(TxnResult)> done);
  // client_tv: 2 when the partitions come from TV2's implicit add, else 0.
  void add_partitions(const std::string& transactional_id, int64_t producer_id, int16_t epoch,
                      const std::set<TopicPartition>& partitions, int16_t client_tv,
                      std::function<void(ErrorCode)> done);
  PartitionErrors verify_partitions(const std::string& transactional_id, int64_t producer_id, int16_t epoch,
                                    const std::set<TopicPartition>& partitions) const;
  void add_partitions_batch(const std::vector<AddPartitionsEntry>& entries,
                            std::function<void(std::map<std::string, PartitionErrors>)> done);
  void add_offsets(const std::string& transactional_id, int64_t producer_id, int16_t epoch, const std::string& group_id,
                   std::function<void(ErrorCode)> done);
  // client_tv: 2 for EndTxn v5+, else 0.
  void end_txn(const std::string& transactional_id, int64_t producer_id, int16_t epoch, bool commit, int16_t client_tv,
               std::function<void(TxnResult)> done);

  TxnDescription describe(const std::string& transactional_id) const;
  // `id_filter`: when set, only the ids it accepts (ListTransactions v2's pattern).
  TxnListing list(const std::set<int64_t>& producer_ids, const std::set<std::string>& states, int64_t min_duration_ms,
                  const std::function<bool(const std::string&)>& id_filter = nullptr) const;

  // Timers (the owner calls these every abort_timed_out_interval_ms /
  // remove_expired_interval_ms). Return how many ids they acted on.
  size_t abort_timed_out_transactions();
  size_t expire_transactional_ids();
  // Prepare* ids whose markers or Complete* write failed: write them again
  // (markers are idempotent for the partition). The abort timer calls it.
  size_t retry_pending_markers();
  // Parked additions: the earliest deadline, and answering
  // CONCURRENT_TRANSACTIONS to those past theirs (the owner's timer).
  std::optional<int64_t> next_parked_deadline() const;
  size_t expire_parked();

  // Startup: applies __transaction_state records in log order (last wins,
  // tombstones remove), then resumes the markers of PrepareCommit/PrepareAbort.
  void load(const std::vector<TxnLogRecord>& records);

  // __consumer_offsets partition of a group (Kafka: abs(String.hashCode) % n).
  TopicPartition offsets_partition_for(const std::string& group_id) const;

  const TxnMetadata* find(const std::string& transactional_id) const;
  const TxnConfig& config() const { return config_; }

 private:
  TxnMetadata& create(const std::string& id, int64_t producer_id, int32_t timeout_ms);
  std::optional<TxnTransit> prepare_init(TxnMetadata& m, int32_t timeout_ms, std::optional<ProducerIdAndEpoch> expected,
                                         ErrorCode& error);
  void end_internal(const std::string& id, int64_t producer_id, int16_t epoch, bool commit, bool from_client,
                    int16_t client_tv, std::function<void(TxnResult)> done);
  // EndTxn's decision, Kafka 4.4's endTransactionWithTV1 / endTransaction:
  // nullopt with `early` set when nothing is written.
  std::optional<TxnTransit> prepare_end_v1(TxnMetadata& m, int64_t producer_id, int16_t epoch, bool commit,
                                           bool from_client, TxnResult& early);
  std::optional<TxnTransit> prepare_end_v2(TxnMetadata& m, int64_t producer_id, int16_t epoch, bool commit,
                                           bool from_client, int16_t client_tv, TxnResult& early);
  std::optional<TxnTransit> prepare_completion(TxnMetadata& m, TxnState next, int16_t epoch, int16_t client_tv,
                                               bool no_partition_added, TxnResult& early);
  void on_prepare_written(const std::string& id, const TxnTransit& t, ErrorCode error, bool epoch_fence,
                          const std::function<void(TxnResult)>& done);
  void send_markers(const std::string& id, const TxnTransit& prepared);
  void on_markers_written(const std::string& id, const TxnTransit& prepared, ErrorCode error);
  void add_partitions_until(const std::string& id, int64_t producer_id, int16_t epoch,
                            const std::set<TopicPartition>& partitions, int16_t client_tv, int64_t deadline_ms,
                            std::function<void(ErrorCode)> done);
  // `resume(true)` once `id` has no transition in flight, or `resume(false)`
  // from expire_parked() after `deadline_ms`.
  void park(const std::string& id, int64_t deadline_ms, std::function<void(bool)> resume);
  void wake(const std::string& id);
  // Writes `t` (already prepared on `m`), completes it when durable, then
  // `then(error)`. `durable` false: completes it once written (Complete*,
  // whose loss at a crash is safe: TxnStateLog::append_written).
  void write(TxnMetadata& m, const TxnTransit& t, std::function<void(ErrorCode)> then, bool durable = true);

  TxnConfig config_;
  TxnClock& clock_;
  TxnStateLog& log_;
  TxnProducerIdSource& ids_;
  TxnMarkerWriter& markers_;
  std::map<std::string, std::unique_ptr<TxnMetadata>> txns_;
  std::set<std::string> markers_in_flight_;
  struct Parked {
    int64_t deadline_ms;
    std::function<void(bool)> resume;
  };
  std::map<std::string, std::vector<Parked>> parked_;
};

}  // namespace skiff::txn
