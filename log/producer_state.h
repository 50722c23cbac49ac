// ProducerStateManager: one partition's producer state (Kafka's
// ProducerStateManager). Per producer id: the current epoch and the
// sequence/offset ranges of the last five batches it wrote, so a retried
// batch is recognised and answered with its original offsets, a gap in
// sequence numbers is refused, and a stale epoch is fenced. Transactions:
// each producer's ongoing transaction (the offset of its first transactional
// batch, until a COMMIT/ABORT marker) and the coordinator epoch of its last
// marker; the ongoing first offsets, ordered, give the first unstable offset
// and so the last stable offset (LSO) of the partition.
//
// Threads: every method runs under the owning Log's append lock (mu_), or
// during Log::load before the Log is shared. No locking of its own.
//
// Snapshots: `<dir>/<20-digit offset>.snapshot`, written at each segment roll
// (offset = the new segment's base) and at a clean close (offset = log end),
// Kafka's producer snapshot format, version 1 (so Kafka's tools read it):
//   version int16 (=1) | crc uint32 (CRC-32C of every byte after it)
//   | entry count int32 | entries, 46 bytes each, big-endian:
//     producer_id int64 | epoch int16 | last_sequence int32 | last_offset int64
//     | offset_delta int32 | timestamp int64 | coordinator_epoch int32
//     | current_txn_first_offset int64 (-1: no ongoing transaction)
// This is Kafka 4.4's ProducerSnapshot message (kafka-storage jar,
// message/ProducerSnapshot.json: Crc uint32, ProducerEntries with these eight
// fields in this order), hand-coded here: log/ must not depend on the
// protocol/ runtime that gen_codec.py's output needs, and the layout is
// fixed-size. As in Kafka a snapshot keeps only each producer's last batch. Snapshots are
// written without fsync (a torn one fails its CRC and the previous one, or a
// scan of the log, is used instead). Only the two newest are kept, except
// with tiered storage (Log passes prune=false): then, as Kafka keeps them,
// each segment's snapshot (at its base offset, the previous segment's end)
// stays until that segment is deleted (delete_snapshots_below), because the
// remote log manager uploads the snapshot at a segment's next base with it.
// Startup: the newest valid snapshot at or below the log end is loaded and
// only the batches after it are read (headers only), so a clean restart reads
// no log data at all.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "log/result.h"
#include "log/types.h"

namespace skiff::storage {

inline constexpr int kProducerBatchesToRetain = 5;  // Kafka's NUM_BATCHES_TO_RETAIN

// One batch of an idempotent producer, as the state keeps it.
struct ProducerBatch {
  int64_t producer_id = -1;
  int16_t epoch = -1;
  int32_t first_seq = -1;
  int32_t last_seq = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t timestamp = -1;
  bool transactional = false;
  // Produce of a transactional producer (Log::append_verified): a batch that
  // opens a transaction here must carry the guard its verification got.
  bool needs_verification = false;
  uint64_t guard = 0;
  // Control batches (recovery replay): a COMMIT/ABORT marker at first_offset.
  bool control = false;
  bool commit = false;
  int32_t coordinator_epoch = -1;
};

// A transaction ended by a marker (Kafka's CompletedTxn): first data offset
// to the marker's offset.
struct CompletedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;  // the marker
  bool aborted = false;
};

struct ProducerEntry {
  int16_t epoch = -1;
  std::deque<ProducerBatch> batches;  // oldest first, at most kProducerBatchesToRetain
  int64_t last_timestamp = -1;
  int32_t coordinator_epoch = -1;
  int64_t current_txn_first_offset = -1;  // -1: no ongoing transaction
  int32_t last_seq() const { return batches.empty() ? -1 : batches.back().last_seq; }
};

// The outcome of checking one batch before it is appended.
// Kafka's VerificationGuard (KIP-890 part 1): Produce asks the transaction
// coordinator whether a partition is in the producer's transaction before
// appending the batch that opens the transaction here; a marker written in
// between (the transaction ended: a timeout abort, a fence) invalidates that
// answer, so the late batch is refused instead of opening a transaction no
// coordinator knows of (a hanging transaction). 0 is Kafka's SENTINEL: the
// request saw the transaction open and asked no coordinator.
using VerificationGuard = uint64_t;
inline constexpr VerificationGuard kNoVerification = 0;

struct ProducerCheck {
  LogErrc error = LogErrc::kNone;  // kOutOfOrderSequence / kInvalidProducerEpoch
  std::string message;
  std::optional<ProducerBatch> duplicate;  // a retry of this earlier batch
};

class ProducerStateManager {
 public:
  // `dir` is the owning Log's, which outlives this.
  explicit ProducerStateManager(const std::string& dir) : dir_(dir) {}
  explicit ProducerStateManager(const std::string&& dir) = delete;

  // Checks a batch against the state plus the batches staged so far by this
  // append (pass them in `staged`; several batches of one producer may
  // arrive together): duplicate, epoch, sequence, then (Kafka's
  // ProducerAppendInfo) a non-transactional batch while the producer's
  // transaction is open is kInvalidTxnState.
  // A batch that needs verification and would open a transaction is
  // kInvalidTxnState unless its guard is the producer's current one.
  ProducerCheck check(const ProducerBatch& b, const std::vector<ProducerBatch>& staged) const;
  // Verification guards (in memory only, as Kafka's): begin returns the
  // producer's current guard, or a new one; a marker clears it.
  VerificationGuard begin_verification(int64_t producer_id);
  void clear_verification(int64_t producer_id) { verifications_.erase(producer_id); }
  bool verification_valid(int64_t producer_id, VerificationGuard guard) const {
    auto it = verifications_.find(producer_id);
    return it != verifications_.end() && it->second == guard;
  }
  // Records a written data batch (a transactional one opens the producer's
  // transaction at its first offset if none is open).
  void update(const ProducerBatch& b);
  // Checks a marker as Kafka 4.4's checkProducerEpoch/checkCoordinatorEpoch:
  // kInvalidProducerEpoch if its epoch is below the producer's (transaction
  // version >= 2: not above it, except a retried marker at the same epoch
  // when no transaction is open), kTransactionCoordinatorFenced if its
  // coordinator epoch is below the last marker's.
  ProducerCheck check_marker(int64_t producer_id, int16_t epoch, int32_t coordinator_epoch,
                             int16_t transaction_version) const;
  // Records a marker written at `offset`. Returns the transaction it ended,
  // or nullopt for an empty transaction (no data since the last marker):
  // Kafka neither indexes those nor lets them move the LSO.
  std::optional<CompletedTxn> complete_txn(int64_t producer_id, int16_t epoch, int32_t coordinator_epoch,
                                           int64_t offset, bool commit, int64_t timestamp);
  // Offset of the oldest ongoing transaction's first batch, if any.
  std::optional<int64_t> first_unstable_offset() const;
  // Kafka's lastStableOffset(completedTxn): the first offset of the oldest
  // transaction still ongoing (after `t` ended), else t.last_offset + 1.
  int64_t last_stable_offset_after(const CompletedTxn& t) const;
  const std::map<int64_t, int64_t>& ongoing() const { return ongoing_; }  // first offset -> producer id

  std::optional<ProducerEntry> entry(int64_t producer_id) const;
  const std::unordered_map<int64_t, ProducerEntry>& producers() const { return producers_; }

  // Writes `<offset>.snapshot` (all producers), then (`prune`) deletes all
  // but the two newest. An I/O Error on failure.
  Result<void> take_snapshot(int64_t offset, bool prune = true);
  // Deletes the snapshots at offsets below `offset` (the first local
  // segment's base once older segments are deleted), but never the two newest.
  void delete_snapshots_below(int64_t offset);
  // Rebuilds the state for a log ending at `log_end`: loads the newest valid
  // snapshot <= log_end (deleting newer ones, left by a truncation) and calls
  // `scan(from, visit)` to replay the batches from the snapshot's offset.
  // Returns how many batches were replayed. `listed`: the snapshot offsets
  // (ascending) when the caller has listed the directory already.
  // Control batches given to `visit` complete transactions; each completed
  // one is passed to `on_completed` with Kafka's lastStableOffset for it.
  using BatchVisitor = std::function<void(const ProducerBatch&)>;
  using CompletedVisitor = std::function<void(const CompletedTxn&, int64_t last_stable_offset)>;
  size_t load(int64_t log_start, int64_t log_end,
              const std::function<void(int64_t from, const BatchVisitor& visit)>& scan,
              const CompletedVisitor& on_completed = nullptr, const std::vector<int64_t>* listed = nullptr);
  // Forgets producers whose last write is below the log start (DeleteRecords,
  // retention), except those with an ongoing transaction: it holds the LSO at
  // the log start until its marker (Kafka 4.4 keeps producer state until
  // producer.id expiration, so its firstUnstableOffset = max(first, start)).
  void remove_before(int64_t log_start);
  // Deletes every snapshot file (topic deletion).
  void delete_snapshots();

  static std::filesystem::path snapshot_path(const std::filesystem::path& dir, int64_t offset);
  static std::vector<int64_t> list_snapshots(const std::filesystem::path& dir);  // ascending

 private:
  bool read_snapshot(int64_t offset);
  ProducerCheck check_sequence(const ProducerBatch& b, const std::vector<ProducerBatch>& staged, bool* txn_open) const;
  void clear();

  const std::string& dir_;  // the Log's
  std::unordered_map<int64_t, ProducerEntry> producers_;
  std::map<int64_t, int64_t> ongoing_;  // ongoing transactions: first offset -> producer id
  std::unordered_map<int64_t, VerificationGuard> verifications_;
  VerificationGuard last_guard_ = kNoVerification;
};

// Sequence numbers wrap at INT32_MAX back to 0, as Kafka's do.
inline int32_t add_sequence(int32_t seq, int32_t delta) {
  int64_t s = static_cast<int64_t>(seq) + delta;
  return static_cast<int32_t>(s > INT32_MAX ? s - INT32_MAX - 1 : s);
}

}  // namespace skiff::storage
