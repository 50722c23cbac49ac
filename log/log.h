// Log: one partition's log, an ordered set of LogSegments in
// `<log.dir>/<topic>-<partition>/`. Appends assign offsets, reads serve whole
// batches by file region, retention drops old segments, recovery repairs an
// unclean tail. Mirrors Kafka's UnifiedLog/LocalLog for a single replica.
//
// Threads:
//  - append(), retention, roll, start-offset moves and config changes take
//    this partition's append lock (mu_); partitions never share a lock.
//  - read(), offset/timestamp lookups and the accessors are lock-free with
//    respect to appends: they take a shared lock on the segment map only to
//    pick a segment (a shared_ptr copy), then read the file with pread.
//  - The end offset is published with release only after the bytes and the
//    index entries are written, so readers never see half a batch.
//  - flush_to() implements group commit: concurrent callers share one
//    fdatasync; it runs outside the append lock.
//
// Tiered storage (LogConfig::remote_storage_enable; docs/tiered-storage.md),
// as Kafka's UnifiedLog with remote storage: the log is [log_start_offset,
// log_end_offset), of which the segments on disk hold
// [local_log_start_offset, log_end_offset); below the local start the data is
// in remote storage only. A remote log manager (outside log/) uploads closed
// segments (copy_candidates), reports what is durable remotely
// (update_highest_offset_in_remote), and applies the total retention to
// remote data by moving the log start (maybe_increment_log_start_offset).
// Local retention (local.retention.*) deletes only uploaded segments and
// moves only the local start. Without remote storage both starts are equal
// and nothing of this changes the log's behaviour.
// Crash safety: no file is added. The log start (log-start-offset-checkpoint,
// LogManager) may lie below the first local segment and is kept so at load
// when remote storage is enabled; the local start is the first segment's
// base (or the log start if higher). highest_offset_in_remote starts at -1
// after every open: restoring it (from the remote log metadata) is the
// manager's job, and until it does local retention deletes nothing. Each
// local segment keeps its producer snapshot until it is deleted.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/wall_clock.h"
#include "log/control_batch.h"
#include "log/copy_candidate.h"
#include "log/file_slice.h"
#include "log/log_config.h"
#include "log/log_segment.h"
#include "log/producer_state.h"
#include "log/result.h"
#include "log/txn_index.h"
#include "log/types.h"

namespace skiff::storage {

// What an append wrote. Its refusals are Errors whose message is the
// client's; a kInvalidRecord naming records (Kafka's LogValidator: a keyless
// record on a compacted topic) lists them in Error::record_errors. Nothing
// of a refused append was written, except after kStorageError from the
// flush.messages fsync (written, not known durable).
struct Appended {
  Offset base_offset{-1};        // first offset assigned
  Offset last_offset{-1};        // last offset assigned
  int64_t log_append_time = -1;  // set when message.timestamp.type=LogAppendTime
  Offset log_start_offset{-1};
  int32_t record_count = 0;
  // An idempotent producer's retry of a batch already written: nothing was
  // appended; the offsets are the original batch's.
  bool duplicate = false;
};

// What a read returns: whole batches, and the ends of the one publish it
// read against (so the slice never passes log_end_offset).
struct ReadSlice {
  FileSlice slice;  // whole batches; empty at the end of the log
  Offset log_start_offset{0};
  Offset log_end_offset{0};      // also the high watermark on a single node
  Offset last_stable_offset{0};  // LSO when the read started (<= log_end_offset)
};

// A (timestamp, offset) answer of ListOffsets; offset -1 = none.
struct OffsetAndTimestamp {
  Offset offset{-1};
  int64_t timestamp = -1;
};

struct LogLoadParams {
  std::string topic;
  int32_t partition = 0;
  bool clean_shutdown = false;
  int64_t recovery_point = 0;         // from recovery-point-offset-checkpoint
  int64_t log_start_offset = 0;       // from log-start-offset-checkpoint
  std::shared_ptr<FdCache> fd_cache;  // where segment descriptors live; null: FdCache::default_instance()
  // The last writer died on this boot (a process crash, not a power cut or a
  // kernel crash): the page cache kept every write that returned, so only
  // the last segment can be torn, at its end, and recovery scans just its
  // tail (LogSegment::recover_tail) instead of every segment from the
  // recovery point.
  bool same_boot = false;
};

struct LogLoadStats {
  int segments = 0;
  int segments_recovered = 0;
  uint64_t bytes_truncated = 0;
  int indexes_rebuilt = 0;
  int segments_tail_recovered = 0;  // of segments_recovered: only the tail scanned (same boot)
  uint64_t bytes_scanned = 0;       // log bytes read and validated by recovery
  bool active_restored = false;     // the last segment taken from a clean close's record
};

class Log {
 public:
  // Opens (creating the directory if needed) and recovers the log.
  // `clean`: what the last clean close recorded (clean_log_state.h), used
  // when params.clean_shutdown and the directory still matches it.
  // Throws std::system_error / std::runtime_error on unusable data.
  static std::shared_ptr<Log> open(const std::filesystem::path& dir, const LogLoadParams& params,
                                   std::shared_ptr<const LogConfig> config, const CleanLogState* clean = nullptr);
  ~Log();

  // Validates, assigns offsets (rewriting baseOffset and partitionLeaderEpoch
  // in place in `records`, which may hold several batches), writes, indexes,
  // then publishes. With flush.messages reached, fsyncs before returning.
  Result<Appended> append(std::span<uint8_t> records, int32_t leader_epoch = 0);
  Result<Appended> append(std::span<uint8_t> records, int32_t leader_epoch, int64_t now_ms);
  // Produce of a transactional producer: as append, but a transactional batch
  // that would open a transaction must carry the guard begin_txn_verification
  // gave before the coordinator was asked (kNoVerification when the request
  // found the transaction open); else kInvalidTxnState, nothing written.
  VerificationGuard begin_txn_verification(int64_t producer_id);
  // False once a marker for the producer has cleared `guard`.
  bool txn_verification_valid(int64_t producer_id, VerificationGuard guard);
  Result<Appended> append_verified(std::span<uint8_t> records, int64_t now_ms, VerificationGuard guard);
  // The transaction coordinator's marker writer: appends a COMMIT or ABORT
  // control batch (control_batch.h) for the producer, after Kafka's checks
  // (ProducerStateManager::check_marker). Ends the producer's
  // ongoing transaction: the LSO moves, an abort is added to the .txnindex.
  // A marker for a producer with no data since its last marker (an empty
  // transaction) is written too, and changes neither.
  // `transaction_version`: the marker request's (WriteTxnMarkers v2+), 2
  // under KIP-890 where every transaction end bumps the epoch.
  Result<Appended> append_marker(int64_t producer_id, int16_t producer_epoch, bool commit, int32_t coordinator_epoch,
                                 int16_t transaction_version, int32_t leader_epoch, int64_t now_ms);

  // Whole batches from the batch containing `offset`, up to max_bytes (the
  // first batch is returned whole even if larger: KIP-74), never past the
  // end the result reports (an append still being published is left out).
  // Below the log start or past the end: kOffsetOutOfRange. At or above the
  // log start but below the local log start (tiered storage):
  // kOffsetMovedToTieredStorage, for a remote read. At the end: empty
  // slice. A segment that cannot be read: an I/O Error (kStorageError).
  Result<ReadSlice> read(Offset offset, size_t max_bytes) const;
  // The same, returning only batches below `max_offset` (read_committed:
  // pass last_stable_offset(); an offset at or past it reads empty).
  Result<ReadSlice> read(Offset offset, size_t max_bytes, Offset max_offset) const;

  // Last stable offset (Kafka's): the first offset of the oldest ongoing
  // transaction (never below the log start), else the high watermark (=
  // the log end here). Published with release after the append that moved it.
  Offset last_stable_offset() const { return Offset(lso_.load(std::memory_order_acquire)); }
  // Fetch read_committed: the aborted transactions overlapping
  // [from, upper_bound) (Kafka's collectAbortedTransactions; pass the offset
  // after the last batch returned, or the read bound). Any thread.
  std::vector<AbortedTxn> collect_aborted_txns(Offset from, Offset upper_bound) const {
    return txn_index_.collect(from.value, upper_bound.value);
  }
  // The .txnindex entries of one segment (tests, tools).
  std::vector<AbortedTxn> aborted_txns_of_segment(int64_t base) const { return txn_index_.entries(base); }

  // ListOffsets: first record with timestamp >= ts (none: offset -1).
  // Local segments only: with tiered storage, a `ts` older than the local
  // data answers the first local record (at or after the local start) with
  // a timestamp >= ts; Kafka searches remote storage first, so the caller
  // asks the remote log for such a `ts` and uses this only when it has none.
  OffsetAndTimestamp offset_for_timestamp(int64_t ts) const;
  // ListOffsets -3 (MAX_TIMESTAMP): the record with the largest timestamp,
  // of the local segments (as Kafka 4.4, also with tiered storage).
  OffsetAndTimestamp max_timestamp_offset() const;

  // ListOffsets -2 (EARLIEST). With tiered storage it may be below the local start.
  Offset log_start_offset() const { return Offset(log_start_.load(std::memory_order_acquire)); }
  // Kafka's localLogStartOffset (ListOffsets -4, EARLIEST_LOCAL): the first
  // offset on local disk, max(log start, first segment's base). Equals
  // log_start_offset() without tiered storage. Any thread.
  Offset local_log_start_offset() const { return Offset(local_start_.load(std::memory_order_acquire)); }
  Offset log_end_offset() const { return Offset(leo_.load(std::memory_order_acquire)); }
  Offset recovery_point() const { return Offset(recovery_point_.load(std::memory_order_acquire)); }
  // DeleteRecords: moves the log start forward (never back); deletes
  // segments that fall entirely below it. kOffsetOutOfRange if > end,
  // kUnknownTopicOrPartition once the log is closed or deleted.
  // Also the remote manager's remote retention: a new start below the local
  // start deletes nothing local; one above it moves the local start too.
  Result<void> maybe_increment_log_start_offset(Offset new_start);

  // --- tiered storage (log_remote.cc) ---
  // Kafka's highestOffsetInRemoteStorage: the last offset (inclusive) up to
  // which every segment is durably in remote storage; -1: nothing (also
  // after every open, until the manager restores it). Any thread.
  int64_t highest_offset_in_remote() const { return highest_remote_.load(std::memory_order_acquire); }
  // Raises it (never lowers it), after an upload's COPY_SEGMENT_FINISHED is
  // durable, or at start from the remote log metadata. Local retention then
  // may delete the segments it covers. kOffsetOutOfRange if `offset` is at
  // or past the log end (nothing there can have been uploaded). Any thread.
  Result<void> update_highest_offset_in_remote(int64_t offset);
  // Kafka's RemoteLogManager.candidateLogSegments: closed segments (never
  // the active one) whose records all lie below min(LSO, log end) and below
  // the recovery point (flushed: a power cut cannot take back what was
  // uploaded), from the one holding max(from_offset, log start) on, oldest
  // first. Pass highest_offset_in_remote() + 1. Any thread (a snapshot of
  // the segment map).
  std::vector<CopyCandidate> copy_candidates(int64_t from_offset) const;
  // Kafka's onlyLocalLogSegmentsSize: the bytes of the local segments after
  // the highest offset in remote storage (what remote retention.bytes adds
  // to the remote size). Any thread.
  uint64_t local_only_size_bytes() const;

  // Group-committed fdatasync of everything up to `offset` (exclusive). An
  // I/O Error (kStorageError, its errno) if it failed; the failure is logged.
  Result<void> flush_to(Offset offset);
  Result<void> flush() { return flush_to(log_end_offset()); }

  // Background work (scheduler thread): flush.ms and rolled-segment flushes,
  // retention. Return what they did.
  void maybe_flush(int64_t now_ms);
  // Whether maybe_flush would flush now: a few atomic loads, and the config
  // only for a log with unflushed records (the scheduler asks every log each
  // second).
  bool flush_due(int64_t now_ms) const;
  int delete_old_segments(int64_t now_ms);

  void set_config(std::shared_ptr<const LogConfig> config);
  std::shared_ptr<const LogConfig> config() const;

  // Forces a roll (tests, tools). An I/O Error (kStorageError, its errno,
  // logged) if the new segment could not be made; kUnknownTopicOrPartition
  // once the log is closed or deleted.
  Result<void> roll(int64_t now_ms);
  // Clean close: flush, final index entries, trim index files.
  void close();
  // After a close() whose every step succeeded: what the next start needs
  // to take the active segment as it is (clean_log_state.h); else nullopt.
  std::optional<CleanLogState> clean_state();
  // Deletes every file and the directory (topic deletion). The object must
  // not be appended to afterwards; outstanding FileSlices stay readable.
  void delete_all();
  // True once delete_all() ran: holders of the Log (a waiting fetch) answer
  // UNKNOWN_TOPIC_OR_PARTITION.
  bool deleted() const { return deleted_.load(std::memory_order_acquire); }

  const std::string& topic() const { return params_.topic; }
  int32_t partition() const { return params_.partition; }
  std::filesystem::path dir() const { return dir_; }
  size_t segment_count() const;
  uint64_t size_in_bytes() const;
  std::vector<int64_t> segment_base_offsets() const;
  const LogLoadStats& load_stats() const { return load_stats_; }
  size_t producer_batches_replayed() const { return producer_batches_replayed_; }
  // Whether load() found the directory's partition.metadata.
  bool partition_metadata_found() const { return partition_metadata_found_; }

  // --- log cleaner (log_cleaner.h; implemented in log_cleaning.cc) ---
  // Every segment but the active one, oldest first (immutable files).
  std::vector<std::shared_ptr<LogSegment>> inactive_segments() const;
  int64_t active_base_offset() const;
  // pid -> last offset of each producer's last batch. Takes the append lock.
  std::unordered_map<int64_t, int64_t> producer_last_offsets();
  // Swaps `cleaned` (`<base>.log.cleaned` in dir(), base = old.front()'s) in
  // for the consecutive inactive segments `old`: .cleaned -> .swap, old
  // segments unlinked, .swap -> .log, indexes rebuilt; `<base>.txnindex.cleaned`
  // (holding `aborts`) goes the same way and replaces the old segments'
  // .txnindex. An I/O Error: errno EAGAIN if `old` is no longer in the log
  // (the .cleaned files are then removed), ECANCELED if crash_at stopped it.
  Result<void> swap_in_cleaned(const std::vector<std::shared_ptr<LogSegment>>& old,
                               const std::filesystem::path& cleaned, std::vector<AbortedTxn> aborts,
                               const std::function<bool(int)>& crash_at);

  // Idempotent producers' state (DescribeProducers, tests). Takes the append lock.
  std::vector<std::pair<int64_t, ProducerEntry>> producer_states();
  // One producer's state here, if any (Produce's transaction check, as
  // Kafka's maybeStartTransactionVerification). Takes the append lock.
  std::optional<ProducerEntry> producer_state(int64_t producer_id);

 private:
  Log(const std::filesystem::path& dir, LogLoadParams params, std::shared_ptr<const LogConfig> config);
  void load(const CleanLogState* clean);
  // The offset maybe_flush flushes up to now (`rolled`: the base of a roll
  // not yet flushed, or -1): the end if log.flush.interval.ms has passed,
  // else `rolled` if not yet durable; -1 for none.
  int64_t flush_target(int64_t now_ms, int64_t rolled) const;
  // load's segments, from the listed bases (the last restored from `clean`
  // if given, else opened and checked); a first one for an empty log.
  // Returns the next offset.
  int64_t open_segments(const std::set<int64_t>& bases, const std::set<int64_t>& with_indexes,
                        const CleanLogState* clean, std::vector<std::shared_ptr<LogSegment>>& segs,
                        const LogConfig& cfg);
  // load()'s step for segs[i] (`last`: the active one); returns the log's
  // next offset when segs[i] is the last one left, else -1. May drop the
  // segments after a truncated one.
  int64_t load_segment(std::vector<std::shared_ptr<LogSegment>>& segs, size_t i, const LogConfig& cfg);
  std::shared_ptr<LogSegment> active() const;
  std::shared_ptr<LogSegment> floor_segment(int64_t offset) const;
  std::shared_ptr<LogSegment> segment_after(int64_t base) const;
  std::vector<std::shared_ptr<LogSegment>> snapshot() const;
  Result<ReadSlice> read_once(Offset offset, size_t max_bytes, int64_t max_offset, bool* raced) const;
  Result<Appended> append_impl(std::span<uint8_t> records, int32_t leader_epoch, int64_t now_ms,
                               const TxnMarker* marker, std::optional<VerificationGuard> guard = std::nullopt);
  // Under mu_: the idempotent producers' checks; an answer (a duplicate's
  // offsets, or an Error) ends the append, nullopt lets it go on.
  std::optional<Result<Appended>> check_producers_locked(std::vector<ProducerBatch>& batches,
                                                         const std::vector<size_t>& batch_index,
                                                         const std::vector<int64_t>& deltas, int64_t leo,
                                                         const TxnMarker* marker);
  // Under mu_: ends a transaction for a written marker batch (index, LSO).
  void end_txn_locked(const ProducerBatch& marker);
  void update_lso_locked();
  // Under mu_: the LSO for a log ending at `leo` (Kafka's: the first offset of
  // the oldest ongoing transaction, never below the log start, else `leo`).
  int64_t lso_for_locked(int64_t leo) const;
  // Under mu_: an append's end offset, LSO and active segment size, made
  // visible as one (publish_seq_).
  void publish_locked(int64_t leo, int64_t lso, LogSegment& active, uint64_t size);
  // What read_once reads against: the LSO, the end and `seg`'s size of one
  // publish_locked (so every byte under `limit` is an offset below `leo`,
  // and every offset below `leo` in `seg` is under `limit`).
  struct Ends {
    int64_t lso = 0;
    int64_t leo = 0;
    uint64_t limit = 0;
  };
  Ends ends(const LogSegment* seg) const;
  Result<void> roll_locked(int64_t now_ms);
  // `snapshots`: the snapshot files load() listed (null: list them).
  void rebuild_producer_state(const std::vector<int64_t>* snapshots = nullptr);
  // Removes `victims` (oldest first), moves the local start (and, with
  // `move_log_start`, the log start) to the first remaining segment, and
  // deletes their files and producer snapshots.
  void delete_segments_locked(const std::vector<std::shared_ptr<LogSegment>>& victims, bool move_log_start = true);
  // Under mu_: local_start_ = max(log start, first segment's base), that
  // base from the map, or given (before the segments below it leave the map).
  void update_local_start_locked();
  void set_local_start_locked(int64_t first_base);
  // delete_old_segments with tiering active (log_remote.cc): Kafka's
  // deletableSegments under local.retention.* and isSegmentEligibleForDeletion.
  int delete_local_segments_locked(const LogConfig& cfg, int64_t now_ms);
  // Under mu_: whether producer snapshots are pruned at a roll (not with tiered storage).
  bool prune_snapshots() const { return !config()->remote_storage_enable; }
  // copy_candidates' record for segs[i] (not the last).
  CopyCandidate copy_candidate(const std::vector<std::shared_ptr<LogSegment>>& segs, size_t i, int64_t log_start) const;
  // swap_in_cleaned's steps (log_cleaning.cc); the caller holds mu_ and segments_mu_.
  Result<void> swap_cleaned_files(const std::vector<std::shared_ptr<LogSegment>>& old,
                                  const std::filesystem::path& cleaned, const std::filesystem::path& txn_cleaned,
                                  int64_t next, const std::function<bool(int)>& crash_at);
  Result<void> install_cleaned(const std::vector<std::shared_ptr<LogSegment>>& old, const LogConfig& cfg,
                               std::vector<AbortedTxn> aborts);
  // rebuild_producer_state's read of the batch headers from `from` on.
  void scan_producer_batches(int64_t from, const ProducerStateManager::BatchVisitor& visit);

  // Text only: a std::filesystem::path also keeps an array of its
  // components (~250 bytes more a partition at 100,000 partitions).
  const std::string dir_;
  const LogLoadParams params_;
  const std::shared_ptr<FdCache> fd_cache_;
  LogLoadStats load_stats_;
  ProducerStateManager producers_;  // guarded by mu_
  TxnIndex txn_index_;              // writes under mu_, reads any thread
  size_t producer_batches_replayed_ = 0;
  bool partition_metadata_found_ = false;
  bool closed_clean_ = false;  // close() flushed, snapshotted and trimmed (under mu_)

  std::mutex mu_;                   // append lock: writers only
  std::mutex& config_lock() const;  // guards config_ (a pool's stripe, lock_stripes.h)
  std::shared_ptr<const LogConfig> config_;

  mutable std::shared_mutex segments_mu_;  // guards segments_ (map shape)
  std::map<int64_t, std::shared_ptr<LogSegment>> segments_;

  std::atomic<int64_t> leo_{0};
  std::atomic<int64_t> log_start_{0};
  std::atomic<int64_t> local_start_{0};      // written under mu_ (and in load)
  std::atomic<int64_t> highest_remote_{-1};  // any thread (a max)
  std::atomic<int64_t> lso_{0};
  // A sequence lock over leo_, lso_ and the active segment's size: odd while
  // publish_locked stores them; ends() retries until it reads one even value
  // on both sides of its loads.
  std::atomic<uint64_t> publish_seq_{0};
  std::atomic<int64_t> recovery_point_{0};
  std::atomic<int64_t> last_flush_ms_{0};
  std::atomic<int64_t> pending_roll_flush_{-1};
  std::atomic<bool> closed_{false};
  std::atomic<bool> deleted_{false};

  std::mutex flush_mu_;
  std::condition_variable flush_cv_;
  bool flush_in_progress_ = false;
};

}  // namespace skiff::storage
