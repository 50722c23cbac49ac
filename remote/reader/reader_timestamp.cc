// RemoteLogReader::find_offset_by_timestamp: ListOffsets by timestamp over
// the remote segments (Kafka's RemoteLogManager.findOffsetByTimestamp and
// lookupTimestamp): the time index narrows the start, the batches decide.
#include <span>

#include "log/cleaner_batch.h"
#include "log/record_batch.h"
#include "remote/reader/remote_log_reader.h"
#include "remote/reader/segment_cursor.h"

namespace skiff::remote {

namespace {

constexpr size_t kMaxDecompressedBytes = 128u << 20;  // a batch's records, decompressed, at most

// The first record of `batch` with timestamp >= ts and offset >= start, if
// its records can be read; a batch that cannot be decompressed answers its
// first eligible offset with its max timestamp (the local log's rule).
std::optional<RemoteLogReader::TimestampAndOffset> first_in_batch(std::string& bytes, int64_t ts, int64_t start) {
  storage::RecordBatchView batch(std::span<uint8_t>(reinterpret_cast<uint8_t*>(bytes.data()), bytes.size()));
  const RemoteLogReader::TimestampAndOffset whole{batch.max_timestamp(), std::max(batch.base_offset(), start)};
  if (batch.timestamp_type() == storage::TimestampType::kLogAppendTime) return whole;
  std::vector<uint8_t> plain;
  storage::RecordBatchView view = batch;
  if (batch.compression() != storage::Compression::kNone) {
    plain = storage::uncompressed_copy(batch, kMaxDecompressedBytes);
    if (plain.empty()) return whole;
    view = storage::RecordBatchView(std::span<uint8_t>(plain));
  }
  storage::RecordIterator it(view);
  storage::RecordView rec;
  while (it.next(rec)) {
    if (rec.timestamp(view) >= ts && rec.offset(view) >= start)
      return RemoteLogReader::TimestampAndOffset{rec.timestamp(view), rec.offset(view)};
  }
  if (!it.ok()) return whole;
  return std::nullopt;  // the batch's match lies below `start`: the next batch
}

}  // namespace

RsmResult<std::optional<RemoteLogReader::TimestampAndOffset>> RemoteLogReader::lookup_timestamp(
    const RemoteLogSegmentMetadata& segment, int64_t ts, int64_t start_offset) {
  using Answer = std::optional<TimestampAndOffset>;
  auto times = index(segment, IndexType::kTimestamp);
  if (!times) return skiff::unexpected(times.error());
  Cursor cursor(*this, segment);
  auto pos = start_position(cursor, std::max(start_offset, (*times)->lookup_timestamp(ts)));
  if (!pos) return skiff::unexpected(pos.error());
  for (uint64_t at = *pos;;) {
    auto h = cursor.header(at);
    if (!h) return skiff::unexpected(h.error());
    if (h->state == HeaderRead::kEnd) return Answer{};
    if (h->state == HeaderRead::kJunk) return skiff::unexpected(corrupt_error(segment, "no record batch", at));
    const storage::BatchHeader& b = h->header;
    if (b.max_timestamp >= ts && b.last_offset() >= start_offset) {
      std::string bytes;
      auto n = cursor.read(at, b.size, bytes);
      if (!n) return skiff::unexpected(n.error());
      storage::RecordBatchView v(std::span<uint8_t>(reinterpret_cast<uint8_t*>(bytes.data()), bytes.size()));
      if (*n != b.size || !v.validate_header_and_crc())
        return skiff::unexpected(corrupt_error(segment, "a corrupt record batch", at));
      if (auto found = first_in_batch(bytes, ts, start_offset)) return found;
    }
    at += b.size;
  }
}

RsmResult<std::optional<RemoteLogReader::TimestampAndOffset>> RemoteLogReader::find_offset_by_timestamp(
    const TopicIdPartition& tp, int64_t ts, int64_t start_offset) {
  stats_.timestamp_lookups.fetch_add(1, std::memory_order_relaxed);
  if (stopping()) return skiff::unexpected(RemoteStorageError{false, "the remote log reader is shutting down"});
  for (const auto& segment : metadata_.segments(tp)) {
    if (segment.state != SegmentState::kCopyFinished || segment.max_timestamp_ms < ts ||
        segment.end_offset < start_offset)
      continue;
    auto found = lookup_timestamp(segment, ts, start_offset);
    if (!found || *found) return found;
  }
  return std::optional<TimestampAndOffset>{};
}

}  // namespace skiff::remote
