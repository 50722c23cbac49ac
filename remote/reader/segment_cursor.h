// RemoteLogReader's private parts shared by its sources: the cursor that
// reads a remote segment's log bytes through the chunk cache, and the
// checked batch headers it gives (the v2 header layout of
// log/record_batch.h). Not part of the reader's interface.
// Threads: a cursor belongs to one read, on one thread.
#pragma once

#include <memory>
#include <string>

#include "log/chunk_reader.h"
#include "remote/reader/remote_log_reader.h"

namespace skiff::remote {

// The header of the batch at a position: kEnd when the segment ends there,
// kJunk when the bytes are not a batch that can belong to the segment
// (partial header, length < 61, magic not 2, offsets outside the segment,
// longer than what is left of the segment).
struct HeaderRead {
  enum State { kOk, kEnd, kJunk } state = kEnd;
  storage::BatchHeader header;
};

class RemoteLogReader::Cursor {
 public:
  Cursor(RemoteLogReader& reader, const RemoteLogSegmentMetadata& segment) : reader_(reader), segment_(segment) {}

  const RemoteLogSegmentMetadata& segment() const { return segment_; }
  // Appends bytes [pos, pos + n) of the segment's log to `out`; fewer when
  // the segment ends first. Returns how many were appended.
  RsmResult<size_t> read(uint64_t pos, size_t n, std::string& out);
  RsmResult<HeaderRead> header(uint64_t pos);

 private:
  RemoteLogReader& reader_;
  const RemoteLogSegmentMetadata& segment_;
  std::shared_ptr<const std::string> chunk_;  // the chunk last used
  uint64_t number_ = 0;
  std::string scratch_;  // header bytes
};

struct RemoteLogReader::Found {
  uint64_t position = 0;
  storage::BatchHeader header;
};

// "orders-3 segment <id> (offsets 100..199)", for messages and log lines.
std::string describe_segment(const RemoteLogSegmentMetadata& segment);
RemoteStorageError corrupt_error(const RemoteLogSegmentMetadata& segment, std::string_view what, uint64_t position);

}  // namespace skiff::remote
