// OffsetIndex: sparse map from offset to file position within one segment,
// Kafka's `.index` file.
//
// Byte layout: N entries of 8 bytes, big-endian:
//   relativeOffset int32 (offset - segment base offset) | position int32
// An entry (o, p) says: the batch starting at byte p of the .log has last
// offset o (what Kafka writes, and what DumpLogSegments --verify-index-only
// checks). Entries are strictly increasing in both fields.
// Threads: see IndexFile (one writer under the Log lock, concurrent readers).
#pragma once

#include <cstdint>
#include <filesystem>

#include "log/index_file.h"
#include "log/types.h"

namespace skiff::storage {

struct OffsetPosition {
  Offset offset;
  uint32_t position;
};

class OffsetIndex {
 public:
  static constexpr size_t kEntrySize = 8;
  OffsetIndex(FdCache& cache, std::string path, Offset base_offset)
      : file_(cache, std::move(path), kEntrySize), base_(base_offset) {}
  // `*stem.stem + ".index"`, a segment's.
  OffsetIndex(FdCache& cache, SegmentStem stem, Offset base_offset)
      : file_(cache, stem, ".index", kEntrySize), base_(base_offset) {}

  IndexFile& file() { return file_; }
  const IndexFile& file() const { return file_; }
  Offset base_offset() const { return base_; }
  size_t entries() const { return file_.entries(); }
  OffsetPosition entry(size_t i) const;
  // entry() without mapping the file (IndexFile::peek): load-time reads.
  OffsetPosition peek(size_t i) const;

  // Largest entry with offset <= target, or {base, 0} if none.
  OffsetPosition lookup(Offset target) const;
  // Largest entry with position <= pos, or {base, 0} if none.
  OffsetPosition lookup_by_position(uint32_t pos) const;
  Result<void> append(Offset offset, uint32_t position);  // an I/O Error on failure
  // Drops entries with offset >= `offset`.
  void truncate_to(Offset offset);
  // Kafka-like sanity check of an opened file against the log size.
  bool sane(uint64_t log_size) const;

 private:
  IndexFile file_;
  Offset base_;
};

}  // namespace skiff::storage
