// RemoteIndex: a remote segment's offset, time or transaction index as
// fetched from the object store, decoded once and kept in the reader's
// index cache (Kafka's RemoteIndexCache keeps the files; we keep the
// entries). Decoding never fails and never trusts the bytes: entries are
// taken while they make sense and the rest is dropped, so a corrupt or
// short index only makes lookups start earlier in the segment (position 0
// at worst), which is always correct, only slower. The transaction index
// is the exception: an entry of an unknown version marks it corrupt (as
// Kafka's TransactionIndex throws), since dropping aborted transactions
// would serve aborted records to read_committed consumers.
//
// Byte layouts (Kafka's files, big-endian, no header):
//   .index      8-byte entries: relativeOffset int32 | position int32. The
//               batches from `position` on reach offset base + relativeOffset.
//               Both fields strictly increase; the first entry that does not
//               (Kafka's preallocated zero tail, garbage) ends the index.
//   .timeindex  12-byte entries: timestamp int64 | relativeOffset int32: the
//               largest timestamp up to that offset. Timestamps strictly
//               increase and offsets do not decrease; the first entry that
//               breaks this ends the index. An entry naming the wrong offset
//               inside the segment cannot be told from a right one (Kafka
//               trusts it too); the store checks each index's CRC-32C.
//   Offset and time entries past the segment's end offset end the index.
//   .txnindex   34-byte entries: version int16 (0) | producerId int64 |
//               firstOffset int64 | lastOffset int64 | lastStableOffset int64
//               (log/txn_index.h). A partial last entry is ignored (Kafka's
//               iterator stops there too).
// Threads: a decoded index is immutable; share it freely.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "log/txn_index.h"
#include "remote/storage/manifest.h"

namespace skiff::remote {

struct RemoteOffsetEntry {
  int64_t offset = 0;     // absolute
  uint32_t position = 0;  // in the segment's log
};

struct RemoteTimeEntry {
  int64_t timestamp = 0;
  int64_t offset = 0;  // absolute
};

class RemoteIndex {
 public:
  // `bytes` nullopt: the store has no such index for the segment (empty).
  // Offset and time entries must lie in [base_offset, end_offset] (the segment's).
  static std::shared_ptr<const RemoteIndex> decode(IndexType type, int64_t base_offset, int64_t end_offset,
                                                   std::optional<std::string_view> bytes);

  IndexType type() const { return type_; }
  // The entry with the largest offset <= `offset`, if any (offset index).
  std::optional<RemoteOffsetEntry> lookup_offset(int64_t offset) const;
  // The offset of the entry with the largest timestamp <= `timestamp`, or
  // the segment's base offset (time index; Kafka's TimeIndex.lookup).
  int64_t lookup_timestamp(int64_t timestamp) const;
  const std::vector<storage::AbortedTxn>& aborted() const { return txns_; }
  // Transaction index only: an entry of an unknown version was found.
  bool corrupt() const { return corrupt_; }
  // Entries dropped as not making sense (ignored bytes, not counting a zero tail).
  size_t dropped() const { return dropped_; }
  // What the cache charges for it: the decoded entries plus a fixed overhead.
  uint64_t cost_bytes() const;
  // True the first time only: a reader found an entry pointing where no
  // batch starts (so that is logged once per cached index, not per read).
  bool first_bad_position() const { return !bad_position_seen_.exchange(true, std::memory_order_relaxed); }

 private:
  void decode_offsets(std::string_view bytes, int64_t end_offset);
  void decode_times(std::string_view bytes, int64_t end_offset);
  void decode_txns(std::string_view bytes);

  IndexType type_ = IndexType::kOffset;
  int64_t base_ = 0;
  std::vector<RemoteOffsetEntry> offsets_;
  std::vector<RemoteTimeEntry> times_;
  std::vector<storage::AbortedTxn> txns_;
  bool corrupt_ = false;
  size_t dropped_ = 0;
  mutable std::atomic<bool> bad_position_seen_{false};
};

}  // namespace skiff::remote
