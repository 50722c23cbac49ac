// Log cleaner core (Kafka's LogCleaner.Cleaner + the choice of what to clean
// from LogCleanerManager), for logs with cleanup.policy containing "compact".
//
// What one Cleaner::clean_once does (Kafka's Cleaner.doClean):
//  1. Maps key -> latest offset over the dirty range [first_dirty,
//     first_uncleanable), into a bounded OffsetMap (log.cleaner.dedupe.buffer.size).
//     When the map fills, mapping stops at that record: the pass cleans up to
//     there (end_offset) and the next pass continues (clean() loops).
//  2. Rewrites every inactive segment below end_offset, from the log start,
//     group by group (consecutive segments whose total size fits segment.bytes,
//     whose indexes fit segment.index.bytes and whose offsets fit an int32
//     delta), each group into ONE new segment: small cleaned segments merge.
//     A record is kept unless a later record of its key is mapped; a tombstone
//     (null value) is kept until its batch's delete horizon (KIP-534, as Kafka
//     3.0+): the pass that first cleans a batch keeping a tombstone rewrites
//     it with attribute bit 6 and baseTimestamp = now + delete.retention.ms
//     (record timestamps preserved: cleaner_batch.h); a pass at or past that
//     time removes its tombstones. As in Kafka 4.4 (LogCleanerManager), passes
//     run only when there is dirty data to clean (dirty ratio or
//     max.compaction.lag.ms): an expired horizon alone does not start one, but
//     every pass rewrites the log from its start, so the next one removes
//     them. The new segment's mtime is the group's last segment's (Kafka's;
//     the mtime no longer decides anything for magic-2 data).
//     Batch rewriting: cleaner_batch.h.
//  3. Swaps each group in with the .cleaned/.swap protocol (Log::swap_in_cleaned,
//     recovery in cleaner_recovery.h).
// The caller persists end_offset in `cleaner-offset-checkpoint` (read/write below).
//
// Never cleaned: the active segment, segments whose largest timestamp is within
// min.compaction.lag.ms of now. Chosen for cleaning (needs_cleaning): dirty ratio
// dirty/(clean+dirty) >= min.cleanable.dirty.ratio, or the first batch of a dirty
// segment older than max.compaction.lag.ms.
//
// Transactions (Kafka's CleanedTransactionMetadata, cleaner_txn.h): nothing
// at or past the last stable offset is cleaned (first_uncleanable <= LSO).
// Records of aborted transactions (.txnindex) are never mapped and are
// removed; committed transactional records are compacted by key like others.
// A marker may go once no batch of its transaction was read in the pass (its
// records were all removed before): that pass stamps its batch with a delete
// horizon as for tombstones, and a pass at or past the horizon removes it
// (Kafka's Cleaner.checkBatchRetention). An ABORT marker that stays keeps its
// .txnindex entry, written as `<base>.txnindex` of the cleaned segment with the swap.
//
// Threads: a Cleaner is used by one thread at a time (it owns its OffsetMap and
// buffers). It reads only inactive segments (immutable) without the log's
// locks; Log::swap_in_cleaned takes the append lock and the segment map's
// exclusive lock for the swap itself, and gives up (EAGAIN) if retention or
// DeleteRecords removed a segment of the group meanwhile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "log/checkpoint_file.h"
#include "log/offset_map.h"
#include "log/result.h"

namespace skiff::storage {

class CleanedTxnState;
class Throttler;
class Log;
class LogSegment;
struct LogConfig;

inline constexpr char kCleanerOffsetCheckpointFile[] = "cleaner-offset-checkpoint";

struct CleanerConfig {
  size_t dedupe_buffer_bytes = 128u << 20;  // log.cleaner.dedupe.buffer.size (one thread's share)
  double dedupe_load_factor = 0.9;          // log.cleaner.io.buffer.load.factor
  size_t io_buffer_bytes = 512u << 10;      // log.cleaner.io.buffer.size
  // log.cleaner.io.max.bytes.per.second, shared by all cleaner threads
  // (null: unlimited). Bytes read to map and read + written to rewrite count.
  std::shared_ptr<Throttler> throttler;
  // Test seam for crash tests: called at each step of the swap protocol
  // (1 .cleaned written, 2 renamed .swap, 3 first old segment unlinked, 4 all
  // unlinked, 5 .swap renamed .log). Returning true stops there as a kill -9
  // would: nothing more is written or renamed.
  std::function<bool(int step)> crash_at;
};

// What the cleaner may clean in one log (Kafka's LogToClean).
struct CleaningPoint {
  int64_t first_dirty = 0;
  int64_t first_uncleanable = 0;
  uint64_t clean_bytes = 0;
  uint64_t dirty_bytes = 0;
  bool max_lag_exceeded = false;
  double dirty_ratio() const {
    uint64_t total = clean_bytes + dirty_bytes;
    return total == 0 ? 0.0 : static_cast<double>(dirty_bytes) / static_cast<double>(total);
  }
};

// `checkpoint`: the log's entry in cleaner-offset-checkpoint (-1 if none).
CleaningPoint cleaning_point(Log& log, int64_t checkpoint, int64_t now_ms);
bool needs_cleaning(const CleaningPoint& p, const LogConfig& cfg);

struct CleanResult {
  // An I/O Error; errno EAGAIN: the log changed under the pass, retry later;
  // ECANCELED: stopped by the AbortCheck.
  Result<void> status;
  int64_t end_offset = 0;  // new checkpoint
  int passes = 0;
  int64_t records_read = 0;
  int64_t records_kept = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  int groups = 0;
};

class Cleaner {
 public:
  explicit Cleaner(CleanerConfig cfg);
  // `aborted` (optional) is checked between groups: true stops the pass
  // with ECANCELED (groups already swapped stay; the checkpoint is not moved).
  using AbortCheck = std::function<bool()>;
  // One pass (see above); end_offset <= first_uncleanable.
  CleanResult clean_once(Log& log, int64_t first_dirty, int64_t first_uncleanable, int64_t now_ms,
                         const AbortCheck& aborted = {});
  // Passes until end_offset reaches p.first_uncleanable (several when the map fills).
  CleanResult clean(Log& log, const CleaningPoint& p, int64_t now_ms, const AbortCheck& aborted = {});

 private:
  int64_t build_map(Log& log, const std::vector<std::shared_ptr<LogSegment>>& segs, int64_t first_dirty,
                    int64_t first_uncleanable, CleanResult& res);
  Result<void> map_segment(const LogSegment& s, int64_t first_dirty, int64_t first_uncleanable, CleanedTxnState& txn,
                           CleanResult& res, int64_t& stop);
  Result<void> clean_group(Log& log, const std::vector<std::shared_ptr<LogSegment>>& group, int64_t now_ms,
                           CleanedTxnState& txn, CleanResult& res);

  CleanerConfig cfg_;
  std::unique_ptr<OffsetMap> map_;  // allocated on the first pass: an idle cleaner costs no memory
  int64_t map_end_ = 0;             // records at or past it are not mapped this pass
};

// Groups consecutive segments for rewriting (Kafka's groupSegmentsBySize).
// `next_base`: the base offset after the last segment (bounds its offsets).
std::vector<std::vector<std::shared_ptr<LogSegment>>> group_segments_by_size(
    const std::vector<std::shared_ptr<LogSegment>>& segs, int64_t next_base, int64_t max_bytes, int64_t max_index_bytes,
    int64_t index_interval_bytes);

// A segment's .log last-modified time in ms (kept across cleaning, as Kafka).
int64_t segment_mtime_ms(const LogSegment& s);
// Sets a file's mtime (ms). An I/O Error on failure.
Result<void> set_mtime_ms(const std::filesystem::path& p, int64_t ms);

// cleaner-offset-checkpoint in a log dir (checkpoint_file.h format).
std::map<TopicPartition, int64_t> read_cleaner_checkpoint(const std::filesystem::path& log_dir);
Result<void> write_cleaner_checkpoint(const std::filesystem::path& log_dir,
                                      const std::map<TopicPartition, int64_t>& offsets);

}  // namespace skiff::storage
