// SharePartition: one share partition (share group × topic-partition) of
// KIP-932, Kafka's kafka.server.share.SharePartition. It keeps the in-flight
// records between the share-partition start offset (SPSO) and end offset
// (SPEO): a map of batches keyed by first offset, each with one state for the
// whole batch or, once a part of it is treated apart (a partial
// acknowledgement, a record-limit acquisition, a moved start offset), one
// state per offset. A state is AVAILABLE, ACQUIRED (by a member, under an
// acquisition lock that expires back to AVAILABLE), ACKNOWLEDGED or ARCHIVED,
// with a delivery count; a record released with delivery count >= the limit
// is ARCHIVED instead. With a dead-letter queue (KIP-1191, Ports.dead_letter
// and dlq_enabled), a REJECTed record or one at the delivery limit is first
// ARCHIVING (persisted as such): the port copies it to the DLQ, then it is
// ARCHIVED and persisted again. A partition loaded with ARCHIVING records
// sends them to the port again (Kafka's maybeResumeDlqArchiving).
//
// Pure logic: the clock, the timers, the persister writes and the wake-up of
// waiting share fetches are ports (Ports below), so tests drive it with fakes.
//
// Threads: not thread-safe. The owner (SharePartitionManager) serializes
// every call, and must also serialize the callbacks it hands to the ports
// (timer expiry, write completion) with them: a port may run its callback
// inline, so the owner's lock must be recursive or the port must defer.
// An acknowledgement's `done` runs once its persister write completed (or
// failed and was rolled back), from the write's completion.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/uuid.h"
#include "protocol/error_codes.h"
#include "share/dead_letter_queue.h"
#include "share/state_persister.h"

namespace skiff::share {

// Kafka's RecordState ids (also the persisted delivery_state).
enum class RecordState : int8_t { kAvailable = 0, kAcquired = 1, kAcknowledged = 2, kArchiving = 3, kArchived = 4 };
const char* record_state_name(RecordState s);

// ShareFetch v2's ShareAcquireMode.
enum class AcquireMode : int8_t { kBatchOptimized = 0, kRecordLimit = 1 };

enum class AutoOffsetReset : int8_t { kLatest, kEarliest, kByDuration };

// A share group's configuration as the share partitions read it: the group's
// own configs over the broker's defaults (Kafka's ShareGroupConfigProvider).
struct ShareGroupSettings {
  int32_t record_lock_duration_ms = 30000;                       // share.record.lock.duration.ms
  int32_t delivery_count_limit = 5;                              // share.delivery.count.limit
  int32_t partition_max_record_locks = 2000;                     // share.partition.max.record.locks
  AutoOffsetReset auto_offset_reset = AutoOffsetReset::kLatest;  // share.auto.offset.reset
  int64_t auto_offset_reset_duration_ms = 0;                     // by_duration:<duration>
  bool read_committed = false;                                   // share.isolation.level
  bool renew_acknowledge_enabled = true;                         // share.renew.acknowledge.enable
};

// The config port: the group coordinator helper exposes these getters and the
// integrator wires them. Any thread.
class ShareGroupConfigPort {
 public:
  virtual ~ShareGroupConfigPort() = default;
  virtual ShareGroupSettings settings(const std::string& group_id) const = 0;
};

// One record batch of the log as a fetch read it (its header only).
struct FetchedBatch {
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  int64_t producer_id = -1;
  bool is_transactional = false;
  bool is_control = false;
  bool is_abort_marker = false;  // a control batch whose marker is ABORT
};

// Fetch's AbortedTransaction: a transaction of producer_id aborted, whose
// first record is at first_offset (the log's transaction index).
struct AbortedTransaction {
  int64_t producer_id = -1;
  int64_t first_offset = 0;
};

struct AcquiredRecords {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int16_t delivery_count = 0;
  bool operator==(const AcquiredRecords&) const = default;
};

struct ShareAcquiredRecords {
  std::vector<AcquiredRecords> records;
  int32_t count = 0;  // records acquired
};

// One AcknowledgementBatch of ShareFetch/ShareAcknowledge: one type for the
// range, or one per offset. Types: 0 gap, 1 accept, 2 release, 3 reject, 4 renew.
struct AcknowledgementBatch {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  std::vector<int8_t> acknowledge_types;
};

struct ShareResult {
  ErrorCode code = ErrorCode::kNone;
  std::string message;
  bool ok() const { return code == ErrorCode::kNone; }
};

// The answer of a persister error as Kafka's SharePartition maps it.
ShareResult map_persister_error(ErrorCode code, const std::string& message);

class SharePartition {
 public:
  enum class State : int8_t { kEmpty, kInitializing, kActive, kFailed, kFenced };

  struct Ports {
    std::function<int64_t()> now_ms;
    // Runs `fn` after delay_ms, serialized with the partition's other calls.
    std::function<void(int64_t delay_ms, std::function<void()> fn)> schedule;
    // Persists `update`; `done` serialized with the partition's other calls.
    std::function<void(const PersistedState& update, std::function<void(ErrorCode, std::string)> done)> write;
    // Records may have become acquirable (wake the waiting share fetches).
    std::function<void()> on_acquirable;
    // `records` acquisition locks expired (metrics; may be empty).
    std::function<void(uint64_t records)> on_lock_timeout;
    // KIP-1191's DLQ: whether the group has one now, and the copy of
    // archived records to it; `done` serialized like write's. Unset: none.
    std::function<bool()> dlq_enabled;
    std::function<void(DeadLetterRecords, std::function<void()> done)> dead_letter;
  };

  // offset_for_timestamp: ListOffsets' meaning: -1 latest (the high
  // watermark), -2 earliest (the log start), else the first offset whose
  // timestamp is at or after it, -1 when none.
  using OffsetLookup = std::function<int64_t(int64_t timestamp)>;

  SharePartition(std::string group_id, Uuid topic_id, int32_t partition, int32_t leader_epoch,
                 const ShareGroupConfigPort* config, Ports ports);

  const std::string& group_id() const { return group_id_; }
  State state() const { return state_; }
  // EMPTY -> INITIALIZING; false when already past EMPTY.
  bool begin_initialize();
  // Applies the persister's read (INITIALIZING -> ACTIVE or FAILED).
  ShareResult complete_initialize(ErrorCode code, const std::string& message, const PersistedState& persisted,
                                  const OffsetLookup& offsets);
  void mark_fenced() { state_ = State::kFenced; }

  // The offset the next fetch of this partition reads from.
  int64_t next_fetch_offset();
  // Whether a fetch could acquire anything (not at the max record locks).
  bool can_acquire_records();

  // Acquires for member_id among `batches` (what a fetch at fetch_offset
  // read, in order). aborted: the fetch's aborted transactions (read_committed).
  ShareAcquiredRecords acquire(const std::string& member_id, AcquireMode mode, int32_t batch_size,
                               int32_t max_fetch_records, int64_t fetch_offset, std::span<const FetchedBatch> batches,
                               std::span<const AbortedTransaction> aborted, bool read_committed);

  // Applies the acknowledgements; done(result) after the persister write, or
  // at once on a validation error (nothing changed then).
  void acknowledge(const std::string& member_id, const std::vector<AcknowledgementBatch>& batches,
                   std::function<void(ShareResult)> done);

  // Releases every record member_id holds (its session closed / it left).
  void release_acquired_records(const std::string& member_id, std::function<void(ShareResult)> done);

  // The log start offset moved past the start offset (retention, DeleteRecords).
  void update_cache_and_offsets(int64_t log_start_offset);

  // Introspection (tests, DescribeShareGroupOffsets-like views).
  int64_t start_offset() const { return start_offset_; }
  int64_t end_offset() const { return end_offset_; }
  int32_t delivery_complete_count() const { return delivery_complete_count_; }
  int32_t state_epoch() const { return state_epoch_; }
  struct OffsetView {
    RecordState state;
    int32_t delivery_count;
    std::string member_id;
    bool transition_pending;
    bool locked;  // holds an acquisition lock
  };
  std::optional<OffsetView> offset_state(int64_t offset) const;
  size_t cached_batches() const { return cached_.size(); }
  // Kafka's SharePartitionMetrics gauges: InFlightMessageCount (end - start
  // + 1 while anything is cached) and InFlightBatchCount (cached batches).
  int32_t in_flight_record_count() const { return in_flight_records(); }
  // Records whose acquisition lock expired, since the partition was loaded.
  uint64_t lock_timeouts() const { return lock_timeouts_; }
  // Whether the batch starting at first_offset is tracked per offset.
  bool per_offset(int64_t first_offset) const;

 private:
  struct Rollback {
    RecordState state;
    int32_t delivery_count;
    std::string member_id;
    uint64_t lock_id;
    int64_t lock_deadline_ms;
    int32_t max_delivery_count;
  };
  struct InFlightState {
    RecordState state = RecordState::kAvailable;
    int32_t delivery_count = 0;
    std::string member_id;
    uint64_t lock_id = 0;  // 0: no acquisition lock
    int64_t lock_deadline_ms = 0;
    std::optional<Rollback> rollback;
    bool terminal_forced = false;  // archived outright: a rollback keeps it so
    bool try_update(RecordState next, int delta, int32_t max_delivery, const std::string& member, bool dlq = false);
    bool start_transition(RecordState next, int delta, int32_t max_delivery, const std::string& member,
                          bool dlq = false);
    void complete_transition(bool commit, int64_t now_ms);
    void archive();
  };
  struct InFlightBatch {
    int64_t first_offset;
    int64_t last_offset;
    std::optional<InFlightState> batch;        // whole-batch state, or
    std::map<int64_t, InFlightState> offsets;  // one per offset
    bool tracked() const { return !batch.has_value(); }
  };
  // A state change awaiting its write: where it is and the persisted range.
  struct PendingChange {
    int64_t batch_key;
    int64_t first_offset;
    int64_t last_offset;
    bool whole_batch;
    PersistedBatch persisted;
    const char* dlq_cause = nullptr;  // set when persisted is ARCHIVING
  };
  struct GapWindow {
    int64_t end_offset;
    int64_t gap_start_offset;
  };
  using Map = std::map<int64_t, InFlightBatch>;

  ShareGroupSettings settings() const;
  int32_t max_delivery_count() const { return settings().delivery_count_limit; }
  static bool terminal(RecordState s) { return s == RecordState::kAcknowledged || s == RecordState::kArchived; }
  bool gap_window_active() const { return gap_window_ && gap_window_->end_offset == end_offset_; }
  void maybe_update_gap_window(int64_t offset);
  int32_t in_flight_records() const;
  int32_t records_from_start(int64_t first, int64_t last) const;
  bool start_offset_within(int64_t first, int64_t last) const { return first < start_offset_ && last >= start_offset_; }

  void split(InFlightBatch& b);
  void split_record_limit(InFlightBatch& b, int64_t last_acquired, int32_t lock_ms);
  void lock(InFlightState& s, const std::string& member, int64_t first, int64_t last);
  void on_lock_timeout(const std::string& member, int64_t first, int64_t last, uint64_t lock_id);
  void persist_lock_timeouts(std::vector<PersistedBatch> writes);

  struct AcquireArgs {
    const std::string& member;
    bool rl;
    int32_t batch_size;
    int64_t first_base;       // the first fetched batch's base offset
    int64_t last_to_acquire;  // the last offset the acquisition may take
    std::span<const FetchedBatch> batches;
  };
  int32_t acquire_limit(int64_t fetch_offset, int32_t max_fetch_records, int64_t& last_to_acquire);
  ShareAcquiredRecords acquire_over(const AcquireArgs& a, const std::vector<int64_t>& keys, int64_t base,
                                    int32_t max_records);
  bool acquire_batch(const AcquireArgs& a, InFlightBatch& b, int32_t max_records, int32_t& acquired,
                     std::vector<AcquiredRecords>& result);
  ShareResult release_batch(const std::string& member, InFlightBatch& b, std::vector<PendingChange>& changes);
  ShareAcquiredRecords acquire_new(const std::string& member, std::span<const FetchedBatch> batches, bool record_limit,
                                   int64_t first, int64_t last, int32_t batch_size, int32_t max_records);
  int32_t acquire_subset(const std::string& member, bool record_limit, int64_t max_records, int64_t req_first,
                         int64_t req_last, InFlightBatch& b, std::vector<AcquiredRecords>& out);
  bool throttle(const InFlightBatch& b, int64_t req_first, int64_t req_last) const;
  void archive_stale(int64_t fetch_offset, int64_t base_offset);
  bool archive_range(int64_t first, int64_t end_exclusive, int64_t map_from, RecordState initial, bool count);
  std::vector<AcquiredRecords> filter_aborted(std::span<const FetchedBatch> batches,
                                              const std::vector<AcquiredRecords>& acquired,
                                              std::span<const AbortedTransaction> aborted);

  ShareResult sub_map_for_ack(const AcknowledgementBatch& ab, int64_t& from);
  ShareResult ack_batch(const std::string& member, const AcknowledgementBatch& ab, int64_t from,
                        std::vector<PendingChange>& changes);
  ShareResult ack_per_offset(const std::string& member, const AcknowledgementBatch& ab, InFlightBatch& b,
                             std::vector<PendingChange>& changes);
  ShareResult ack_whole(const std::string& member, const AcknowledgementBatch& ab, InFlightBatch& b,
                        std::vector<PendingChange>& changes);
  void for_each_changed(const PendingChange& c, const std::function<void(InFlightState&)>& fn);
  void rollback_or_write(ShareResult error, std::vector<PendingChange> changes, std::function<void(ShareResult)> done);
  void write_changes(std::vector<PersistedBatch> batches, std::function<void(ErrorCode, std::string)> done);

  bool dlq_enabled() const { return ports_.dlq_enabled && ports_.dlq_enabled(); }
  // ARCHIVING -> the DLQ port -> ARCHIVED (persisted), Kafka's initiateDLQAndArchive.
  void dead_letter(int64_t first, int64_t last, int16_t delivery_count, const char* cause);
  void archive_after_dead_letter(int64_t first, int64_t last, int16_t delivery_count);
  void resume_dead_letters();

  bool can_move_start_offset() const;
  bool maybe_update_cached_state_and_offsets();
  void notify(bool changed) {
    if (changed && ports_.on_acquirable) ports_.on_acquirable();
  }

  std::string group_id_;
  Uuid topic_id_;
  int32_t partition_;
  int32_t leader_epoch_;
  const ShareGroupConfigPort* config_;
  Ports ports_;
  State state_ = State::kEmpty;
  Map cached_;
  int64_t start_offset_ = 0;
  int64_t end_offset_ = 0;
  int32_t delivery_complete_count_ = 0;
  int32_t state_epoch_ = 0;
  bool find_next_fetch_offset_ = false;
  std::optional<GapWindow> gap_window_;
  uint64_t next_lock_id_ = 1;
  uint64_t lock_timeouts_ = 0;
};

}  // namespace skiff::share
