// RemoteLogReader: reads a partition's records back from the object store
// for fetches below the local log start (Kafka's RemoteLogReader,
// RemoteLogManager.read and RemoteIndexCache, KIP-405), and answers
// ListOffsets by timestamp from the remote segments
// (RemoteLogManager.findOffsetByTimestamp). It finds segments through the
// remote log metadata only (COPY_SEGMENT_FINISHED segments; objects of an
// unfinished copy are never read) and reads through SegmentStore
// (remote/manager/segment_store.h), the S3 storage manager in the broker.
//
// A read: the segment holding fetch_offset (none: offset_out_of_range) ->
// its offset index (index cache) -> the position of the last entry <=
// fetch_offset -> the log from there, in chunks of chunk_bytes aligned to
// chunk_bytes (each one range GET, through the chunk cache) -> the batches
// whose last offset < fetch_offset are skipped -> whole batches up to
// max_bytes (the first whole even when larger if min_one_message, KIP-74).
// The data comes from one segment, as Kafka's; a fetch offset past the
// segment's last batch (compaction gaps) continues in the next segment.
// read_committed: the aborted transactions overlapping
// [first batch's base offset, next_offset) from the transaction indexes of
// this segment and the following ones, Kafka's collectAbortedTransactions
// (per index: entries with lastOffset >= start and firstOffset < upper
// bound; complete at the first entry with lastStableOffset >= upper bound;
// segments with txn_index_empty skipped). When the remote segments run out
// first, aborted_complete is false and the caller continues with the local
// log's collect_aborted_txns, as Kafka does with the local segments.
//
// Bytes read (Kafka's formats, big-endian): the log's record batches (v2
// header, log/record_batch.h: baseOffset int64 @0, batchLength int32 @8,
// magic int8 @16 (2), crc uint32 @17, lastOffsetDelta int32 @23,
// maxTimestamp int64 @35; size = 12 + batchLength), and the .index,
// .timeindex and .txnindex files (remote_index.h). Nothing is trusted: a
// batch header that does not make sense (length < 61, wrong magic,
// offsets outside the segment, past the segment's size) ends the data, a
// returned batch must pass its CRC-32C, an index entry pointing where no
// batch starts makes the read start at position 0. If the first batch is
// already bad the read fails with a non-retriable error naming the
// segment and position; it never crashes or returns garbage.
//
// Errors: the store's RemoteStorageError as it is (retriable: the broker
// answers KAFKA_STORAGE_ERROR and the client retries); a corrupt
// transaction index or first batch: non-retriable; after stop(): the
// non-retriable "the remote log reader is shutting down".
//
// Caches: the index cache (offset, time and transaction indexes, keyed by
// segment id and index type, LRU bounded by index_cache_bytes, charged by
// the decoded entries) and the chunk cache (segment data, keyed by segment
// id and chunk number, LRU bounded by chunk_cache_bytes). Segment ids are
// new for every copy, so cached bytes never go stale; a deleted segment's
// entries age out.
//
// Threads: start() and stop() from the owner. submit() from any thread
// queues a read for the pool (`threads` threads, at most `max_pending`
// reads waiting; Kafka's RemoteStorageThreadPool); each `done` runs once,
// on a pool thread (or on stop()'s caller for reads queued on a reader
// never started). read() and find_offset_by_timestamp() block on the
// store and may run on any thread, several at once; never on a network
// or handler thread. The caches take one mutex each, never held across a
// store call. Stats are atomics, read anywhere.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "remote/manager/segment_store.h"
#include "remote/metadata/metadata_manager.h"
#include "remote/reader/byte_lru.h"
#include "remote/reader/remote_index.h"

namespace skiff::remote {

struct RemoteReaderConfig {
  int threads = 10;                          // remote.log.reader.threads
  int max_pending = 100;                     // remote.log.reader.max.pending.tasks
  uint64_t index_cache_bytes = 1ull << 30;   // remote.log.index.file.cache.total.size.bytes
  uint64_t chunk_bytes = 4ull << 20;         // range GETs are whole chunks of this size, aligned
  uint64_t chunk_cache_bytes = 64ull << 20;  // the bounded cache of segment data (chunks), LRU
};

struct RemoteFetchRequest {
  TopicIdPartition tp;
  int64_t fetch_offset = 0;
  size_t max_bytes = 0;          // the partition's limit in this response
  bool min_one_message = false;  // the first batch is returned whole even over max_bytes (KIP-74)
  bool read_committed = false;   // collect the aborted transactions overlapping the data
};

struct AbortedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = -1;
  bool operator==(const AbortedTxn&) const = default;
};

struct RemoteFetchResult {
  std::optional<RemoteStorageError> error;  // the store failed (retriable or not)
  bool offset_out_of_range = false;         // no remote segment holds fetch_offset
  std::string records;                      // whole batches, in order, starting with the batch holding fetch_offset
  std::vector<AbortedTxn> aborted;          // read_committed: aborted txns overlapping [first base, next_offset)
  // false: the remote txn indexes ran out before the upper bound; the caller
  // adds the local log's collect_aborted_txns(fetch_offset, next_offset)
  // (which, for an offset below the local start, searches the local
  // segments from the first, as Kafka's collectAbortedTransactionInLocalSegments).
  bool aborted_complete = true;
  // The offset after the last record returned; fetch_offset when no records
  // were returned; -1 with an error or offset_out_of_range.
  int64_t next_offset = -1;
};

// Monotonic counters for /metrics (the two *_cache_bytes are gauges).
struct RemoteReaderStats {
  std::atomic<int64_t> reads{0};           // read() calls, pool or direct
  std::atomic<int64_t> read_errors{0};     // reads answered with an error
  std::atomic<int64_t> bytes_returned{0};  // record bytes handed to callers
  std::atomic<int64_t> bytes_fetched{0};   // segment bytes fetched from the store
  std::atomic<int64_t> chunk_hits{0};
  std::atomic<int64_t> chunk_misses{0};
  std::atomic<int64_t> index_hits{0};
  std::atomic<int64_t> index_misses{0};
  std::atomic<int64_t> index_cache_bytes{0};  // gauge
  std::atomic<int64_t> chunk_cache_bytes{0};  // gauge
  std::atomic<int64_t> rejected{0};           // submit() refused: the queue was full
  std::atomic<int64_t> timestamp_lookups{0};
};

class RemoteLogReader {
 public:
  RemoteLogReader(RemoteLogMetadataManager& metadata, SegmentStore& store, RemoteReaderConfig config);
  // Stops: reads still queued complete with the shutting-down error.
  ~RemoteLogReader();
  RemoteLogReader(const RemoteLogReader&) = delete;
  RemoteLogReader& operator=(const RemoteLogReader&) = delete;

  // Starts the pool's threads (once); reads submitted before wait for it.
  void start();
  // Refuses new reads, completes the queued ones with a non-retriable
  // "shutting down" error, waits for the running ones. Idempotent.
  void stop();
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }

  // Queues the read on the reader pool; `done` runs exactly once on a pool thread.
  // false (and `done` not called): the queue holds max_pending reads already,
  // or the reader is stopping.
  bool submit(RemoteFetchRequest request, std::function<void(RemoteFetchResult)> done);
  // The same read on the caller's thread (tests, tools; the pool uses it).
  RemoteFetchResult read(const RemoteFetchRequest& request);

  // ListOffsets by timestamp below the local log start (Kafka's
  // RemoteLogManager.findOffsetByTimestamp): the first record with
  // timestamp >= ts and offset >= start_offset among COPY_SEGMENT_FINISHED
  // remote segments whose max timestamp >= ts and whose end offset >=
  // start_offset (the log start), oldest first, via the remote time index
  // then the segment's batches; nullopt if none. A compressed batch answers
  // its first eligible offset with its max timestamp (as the local log's
  // LogSegment::find_offset_by_timestamp: the consumer starting there sees
  // the record); a LogAppendTime batch the same.
  struct TimestampAndOffset {
    int64_t timestamp;
    int64_t offset;
    bool operator==(const TimestampAndOffset&) const = default;
  };
  RsmResult<std::optional<TimestampAndOffset>> find_offset_by_timestamp(const TopicIdPartition& tp, int64_t ts,
                                                                        int64_t start_offset);

  // find_offset_by_timestamp on the reader pool (the same queue and bound as
  // submit()); `done` runs exactly once on a pool thread, unless false.
  bool submit_offset_for_timestamp(const TopicIdPartition& tp, int64_t ts, int64_t start_offset,
                                   std::function<void(RsmResult<std::optional<TimestampAndOffset>>)> done);

  const RemoteReaderStats& stats() const { return stats_; }
  const RemoteReaderConfig& config() const { return config_; }

 private:
  struct ChunkKey {
    Uuid segment;
    uint64_t chunk = 0;
    auto operator<=>(const ChunkKey&) const = default;
  };
  struct IndexKey {
    Uuid segment;
    IndexType type = IndexType::kOffset;
    auto operator<=>(const IndexKey&) const = default;
  };
  // A queued job: run(true) does the work and calls its `done`; run(false)
  // calls `done` with the shutting-down error instead.
  struct Task {
    std::function<void(bool)> run;
  };
  bool enqueue(Task task);
  class Cursor;  // reads a segment's bytes through the chunk cache (reader_read.cc)
  struct Found;  // where a read's first batch is

  // A segment's index through the index cache.
  RsmResult<std::shared_ptr<const RemoteIndex>> index(const RemoteLogSegmentMetadata& segment, IndexType type);
  // A chunk of a segment's log through the chunk cache (empty past the end).
  RsmResult<std::shared_ptr<const std::string>> chunk(const RemoteLogSegmentMetadata& segment, uint64_t number);
  // The next COPY_SEGMENT_FINISHED segment after `segment`, if any.
  std::optional<RemoteLogSegmentMetadata> next_segment(const RemoteLogSegmentMetadata& segment) const;
  // Where to start reading `segment` for `offset`: the offset index's
  // position when a batch starts there at or below `offset`, else 0.
  RsmResult<uint64_t> start_position(Cursor& cursor, int64_t offset);
  // The first batch of `segment` with last offset >= `offset`; nullopt when
  // the segment has none.
  RsmResult<std::optional<Found>> find_batch(Cursor& cursor, int64_t offset);
  RsmResult<void> read_segment(const RemoteFetchRequest& request, const RemoteLogSegmentMetadata& segment,
                               RemoteFetchResult& out, bool& found);
  // Copies whole batches from `found` on into out.records.
  RsmResult<void> copy_batches(const RemoteFetchRequest& request, Cursor& cursor, const Found& found,
                               RemoteFetchResult& out);
  RsmResult<void> collect_aborted(const RemoteLogSegmentMetadata& segment, int64_t start, int64_t upper,
                                  RemoteFetchResult& out);
  RsmResult<std::optional<TimestampAndOffset>> lookup_timestamp(const RemoteLogSegmentMetadata& segment, int64_t ts,
                                                                int64_t start_offset);
  void worker();
  void update_cache_gauges();

  RemoteLogMetadataManager& metadata_;
  SegmentStore& store_;
  const RemoteReaderConfig config_;
  RemoteReaderStats stats_;
  ByteLru<IndexKey, RemoteIndex> index_cache_;
  ByteLru<ChunkKey, std::string> chunk_cache_;

  std::mutex mu_;  // guards queue_, threads_, started_
  std::condition_variable cv_;
  std::deque<Task> queue_;
  std::vector<std::thread> threads_;
  bool started_ = false;
  std::atomic<bool> stopping_{false};
};

}  // namespace skiff::remote
