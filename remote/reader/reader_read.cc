// RemoteLogReader's read path: the cursor over a segment's chunks, the
// first batch, the whole batches up to max_bytes, the aborted transactions.
#include <limits>
#include <set>
#include <span>

#include "common/byte_order.h"
#include "log/record_batch.h"
#include "remote/manager/rlm_log.h"
#include "remote/reader/remote_log_reader.h"
#include "remote/reader/segment_cursor.h"

namespace skiff::remote {

namespace bl = storage::batch_layout;

RsmResult<size_t> RemoteLogReader::Cursor::read(uint64_t pos, size_t n, std::string& out) {
  const uint64_t size = reader_.config_.chunk_bytes;
  size_t got = 0;
  while (n > 0) {
    const uint64_t number = pos / size;
    if (!chunk_ || number != number_) {
      auto c = reader_.chunk(segment_, number);
      if (!c) return skiff::unexpected(c.error());
      chunk_ = std::move(*c);
      number_ = number;
    }
    const uint64_t off = pos - number * size;
    if (off >= chunk_->size()) break;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(n, chunk_->size() - off));
    out.append(chunk_->data() + off, take);
    got += take;
    pos += take;
    n -= take;
    if (chunk_->size() < size) break;  // a short chunk is the segment's last
  }
  return got;
}

RsmResult<HeaderRead> RemoteLogReader::Cursor::header(uint64_t pos) {
  scratch_.clear();
  auto n = read(pos, bl::kHeaderSize, scratch_);
  if (!n) return skiff::unexpected(n.error());
  HeaderRead r;
  if (*n == 0) return r;  // kEnd
  r.state = HeaderRead::kJunk;
  if (*n < bl::kHeaderSize) return r;
  const auto* p = reinterpret_cast<const uint8_t*>(scratch_.data());
  storage::BatchHeader& h = r.header;
  const int64_t size = storage::batch_size_from_prefix(p, bl::kHeaderSize);
  h.position = pos;
  h.base_offset = static_cast<int64_t>(load_be64(p + bl::kBaseOffset));
  h.last_offset_delta = static_cast<int32_t>(load_be32(p + bl::kLastOffsetDelta));
  h.max_timestamp = static_cast<int64_t>(load_be64(p + bl::kMaxTimestamp));
  h.magic = static_cast<int8_t>(p[bl::kMagic]);
  const int64_t seg_size = segment_.segment_size_in_bytes;
  if (size < static_cast<int64_t>(bl::kHeaderSize) || h.magic != bl::kCurrentMagic || h.last_offset_delta < 0) return r;
  if (seg_size > 0 && static_cast<uint64_t>(size) > static_cast<uint64_t>(seg_size) - std::min<uint64_t>(pos, seg_size))
    return r;
  if (h.base_offset < segment_.start_offset || h.base_offset > segment_.end_offset - h.last_offset_delta) return r;
  h.size = static_cast<uint32_t>(size);
  r.state = HeaderRead::kOk;
  return r;
}

RsmResult<uint64_t> RemoteLogReader::start_position(Cursor& cursor, int64_t offset) {
  auto idx = index(cursor.segment(), IndexType::kOffset);
  if (!idx) return skiff::unexpected(idx.error());
  const auto entry = (*idx)->lookup_offset(offset);
  if (!entry || entry->position == 0) return 0;
  auto h = cursor.header(entry->position);
  if (!h) return skiff::unexpected(h.error());
  if (h->state != HeaderRead::kOk || h->header.base_offset > entry->offset) {
    if ((*idx)->first_bad_position())
      rlm_log().warn(
          "the remote offset index of {} points to position {} for offset {}, where no batch of it starts: "
          "reading from the segment's start (logged once for this index)",
          describe_segment(cursor.segment()), entry->position, entry->offset);
    return 0;
  }
  return entry->position;
}

RsmResult<std::optional<RemoteLogReader::Found>> RemoteLogReader::find_batch(Cursor& cursor, int64_t offset) {
  auto start = start_position(cursor, offset);
  if (!start) return skiff::unexpected(start.error());
  uint64_t pos = *start;
  for (;;) {
    auto h = cursor.header(pos);
    if (!h) return skiff::unexpected(h.error());
    if (h->state == HeaderRead::kEnd) return std::optional<Found>{};
    if (h->state == HeaderRead::kJunk)
      return skiff::unexpected(corrupt_error(cursor.segment(), "no record batch", pos));
    if (h->header.last_offset() >= offset) return std::optional<Found>{Found{pos, h->header}};
    pos += h->header.size;
  }
}

namespace {

// Whether the batch just appended at out[at, at + size) is whole and passes its checks and CRC-32C.
bool batch_ok(std::string& out, size_t at, size_t size) {
  if (out.size() != at + size) return false;
  storage::RecordBatchView v(std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()) + at, size));
  return static_cast<bool>(v.validate_header_and_crc());
}

}  // namespace

RsmResult<void> RemoteLogReader::copy_batches(const RemoteFetchRequest& request, Cursor& cursor, const Found& found,
                                              RemoteFetchResult& out) {
  out.next_offset = request.fetch_offset;
  if (found.header.size > request.max_bytes && !request.min_one_message) return {};  // KIP-74: nothing, not a part
  uint64_t pos = found.position;
  storage::BatchHeader h = found.header;
  size_t total = 0;
  for (;;) {
    if (total > 0 && total + h.size > request.max_bytes) break;
    const size_t at = out.records.size();
    auto n = cursor.read(pos, h.size, out.records);
    if (!n && total == 0) return skiff::unexpected(n.error());
    if (!n) break;  // what was read is served; the next fetch retries the rest
    if (!batch_ok(out.records, at, h.size)) {
      out.records.resize(at);
      if (total == 0) return skiff::unexpected(corrupt_error(cursor.segment(), "a corrupt record batch", pos));
      break;
    }
    total += h.size;
    out.next_offset = h.last_offset() + 1;
    pos += h.size;
    if (total >= request.max_bytes) break;
    auto next = cursor.header(pos);
    if (!next || next->state != HeaderRead::kOk) break;
    h = next->header;
  }
  return {};
}

// Kafka's collectAbortedTransactions over the remote segments from `segment` on.
RsmResult<void> RemoteLogReader::collect_aborted(const RemoteLogSegmentMetadata& segment, int64_t start, int64_t upper,
                                                 RemoteFetchResult& out) {
  std::set<std::pair<int64_t, int64_t>> seen;
  std::optional<RemoteLogSegmentMetadata> current = segment;
  while (current) {
    if (!current->txn_index_empty) {
      auto idx = index(*current, IndexType::kTransaction);
      if (!idx) return skiff::unexpected(idx.error());
      if ((*idx)->corrupt())
        return skiff::unexpected(corrupt_error(*current, "an aborted transaction of an unknown version", 0));
      for (const auto& t : (*idx)->aborted()) {
        if (t.last_offset >= start && t.first_offset < upper && seen.emplace(t.producer_id, t.first_offset).second)
          out.aborted.push_back(AbortedTxn{t.producer_id, t.first_offset});
        if (t.last_stable_offset >= upper) {
          out.aborted_complete = true;
          return {};
        }
      }
    }
    current = next_segment(*current);
  }
  out.aborted_complete = false;
  return {};
}

RsmResult<void> RemoteLogReader::read_segment(const RemoteFetchRequest& request,
                                              const RemoteLogSegmentMetadata& segment, RemoteFetchResult& out,
                                              bool& found) {
  Cursor cursor(*this, segment);
  auto first = find_batch(cursor, request.fetch_offset);
  if (!first) return skiff::unexpected(first.error());
  found = first->has_value();
  if (!found) return {};
  if (auto r = copy_batches(request, cursor, **first, out); !r) return r;
  if (!request.read_committed || out.records.empty()) return {};
  return collect_aborted(segment, (*first)->header.base_offset, out.next_offset, out);
}

RemoteFetchResult RemoteLogReader::read(const RemoteFetchRequest& request) {
  stats_.reads.fetch_add(1, std::memory_order_relaxed);
  RemoteFetchResult out;
  auto fail = [&](RemoteStorageError e) {
    stats_.read_errors.fetch_add(1, std::memory_order_relaxed);
    RemoteFetchResult r;
    r.error = std::move(e);
    return r;
  };
  if (stopping()) return fail(RemoteStorageError{false, "the remote log reader is shutting down"});
  auto segment = metadata_.segment_for_offset(request.tp, request.fetch_offset);
  if (!segment) {
    out.offset_out_of_range = true;
    return out;
  }
  for (;;) {
    bool found = false;
    if (auto r = read_segment(request, *segment, out, found); !r) return fail(r.error());
    if (found) break;
    segment = next_segment(*segment);  // past the segment's last batch: the next one
    if (!segment) {
      out.next_offset = request.fetch_offset;
      break;
    }
  }
  stats_.bytes_returned.fetch_add(static_cast<int64_t>(out.records.size()), std::memory_order_relaxed);
  return out;
}

}  // namespace skiff::remote
