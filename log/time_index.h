// TimeIndex: sparse map from timestamp to offset within one segment, Kafka's
// `.timeindex` file.
//
// Byte layout: N entries of 12 bytes, big-endian:
//   timestamp int64 | relativeOffset int32
// An entry (t, o) says: the largest timestamp seen up to and including the
// batch whose last offset is o is t. Timestamps strictly increase.
// Threads: see IndexFile (one writer under the Log lock, concurrent readers).
#pragma once

#include <cstdint>
#include <filesystem>

#include "log/index_file.h"
#include "log/types.h"

namespace skiff::storage {

struct TimestampOffset {
  int64_t timestamp;
  Offset offset;
};

class TimeIndex {
 public:
  static constexpr size_t kEntrySize = 12;
  TimeIndex(FdCache& cache, std::string path, Offset base_offset)
      : file_(cache, std::move(path), kEntrySize), base_(base_offset) {}
  // `*stem.stem + ".timeindex"`, a segment's.
  TimeIndex(FdCache& cache, SegmentStem stem, Offset base_offset)
      : file_(cache, stem, ".timeindex", kEntrySize), base_(base_offset) {}

  IndexFile& file() { return file_; }
  const IndexFile& file() const { return file_; }
  size_t entries() const { return file_.entries(); }
  // Full for rolling purposes: one slot stays free for the segment's final entry.
  bool full() const { return entries() + 1 >= file_.max_entries(); }
  TimestampOffset entry(size_t i) const;
  // entry() without mapping the file (IndexFile::peek): load-time reads.
  TimestampOffset peek(size_t i) const;
  // Last entry, or {-1, base} when empty.
  TimestampOffset last_entry() const;

  // Largest entry with timestamp <= target, or {-1, base} if none.
  TimestampOffset lookup(int64_t target) const;
  // Appends if timestamp > last entry's timestamp (and offset >= its
  // offset). `skip_full_check` lets the final entry of a segment in.
  Result<void> maybe_append(int64_t timestamp, Offset offset, bool skip_full_check = false);
  void truncate_to(Offset offset);
  bool sane(Offset max_offset) const;

 private:
  IndexFile file_;
  Offset base_;
};

}  // namespace skiff::storage
