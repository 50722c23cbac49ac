// CleanedTxnState: what the log cleaner knows of transactions while it walks
// a log in offset order (Kafka's CleanedTransactionMetadata). Fed with the
// aborted transactions of the range (.txnindex, Log::collect_aborted_txns)
// and then every batch in order, it answers:
//  - on_data_batch: true if the batch belongs to an aborted transaction (its
//    records are removed, and never mapped); a transactional batch that is
//    not aborted is committed (the range ends below the LSO, so every
//    transaction in it is complete) and marks its producer as seen;
//  - on_control_batch: true if the marker may be removed, which is when no
//    batch of its transaction was read since the transaction began (the
//    caller then still waits for delete.retention.ms, as for tombstones).
//    An ABORT marker that stays keeps its .txnindex entry: take_retained()
//    lists them in order, for the cleaned segment's .txnindex. A marker that
//    may go but that the caller keeps anyway (delete horizon not passed)
//    is reported with keep_marker(), so its entry stays too (Kafka drops
//    that entry; we keep entry and marker together). An empty control
//    batch (already cleaned) may always go; other control types stay.
// One instance per cleaning pass; one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "log/record_batch.h"
#include "log/txn_index.h"

namespace skiff::storage {

class CleanedTxnState {
 public:
  explicit CleanedTxnState(std::vector<AbortedTxn> aborted);

  bool on_data_batch(const RecordBatchView& b);
  bool on_control_batch(const RecordBatchView& b);
  // The caller keeps the marker on_control_batch just allowed to go.
  void keep_marker();
  // ABORT entries whose marker was kept since the last take.
  std::vector<AbortedTxn> take_retained();

 private:
  struct Ongoing {
    AbortedTxn txn;
    std::optional<int64_t> last_observed_batch;
  };
  void consume_up_to(int64_t offset);

  std::vector<AbortedTxn> aborted_;  // by first_offset
  size_t next_ = 0;
  std::map<int64_t, Ongoing> ongoing_aborted_;  // by producer id
  std::set<int64_t> ongoing_committed_;
  std::vector<AbortedTxn> retained_;
  std::optional<AbortedTxn> discardable_abort_;  // of the last control batch
};

}  // namespace skiff::storage
