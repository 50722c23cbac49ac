// SegmentStore: what the remote log manager and the remote log reader ask
// of the object store (the copy, fetches and delete of Kafka's
// RemoteStorageManager), as an interface so that their logic is tested
// without a server. The broker's one
// implementation is the S3 storage manager (remote/storage/), bound by
// S3SegmentStore (s3_segment_store.h); the tests' is an in-memory map.
// Threads: implementations are called from the manager's pool threads,
// several at once.
#pragma once

#include <optional>
#include <string>

#include "remote/metadata/segment_metadata.h"
#include "remote/storage/remote_storage.h"

namespace skiff::remote {

class SegmentStore {
 public:
  virtual ~SegmentStore() = default;
  // Uploads the segment's files under the metadata's segment id; returns the
  // store's custom metadata (kept in the metadata topic), if any.
  virtual RsmResult<std::optional<std::string>> copy(const RemoteLogSegmentMetadata& segment,
                                                     const LogSegmentData& data) = 0;
  // Deletes whatever of the segment is stored; a segment already gone is success.
  virtual RsmResult<void> remove(const RemoteLogSegmentMetadata& segment) = 0;
  // Bytes [start_position, end_position] of the segment's log (end inclusive,
  // as Kafka's; nullopt or past the end: to the end).
  virtual RsmResult<std::string> fetch_log_segment(const RemoteLogSegmentMetadata& segment, uint64_t start_position,
                                                   std::optional<uint64_t> end_position) = 0;
  // One of the segment's indexes, checked; nullopt: that index was not
  // uploaded (no transaction index, no producer snapshot).
  virtual RsmResult<std::optional<std::string>> fetch_index(const RemoteLogSegmentMetadata& segment,
                                                            IndexType type) = 0;
};

}  // namespace skiff::remote
