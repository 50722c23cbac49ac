// S3SegmentStore: the broker's SegmentStore, the S3 storage manager
// (remote/storage/remote_storage.h) behind the port. Nothing of its own:
// every call is the storage manager's, with its errors as they are.
// Threads: as RemoteStorageManager (any thread, several at once).
#pragma once

#include "remote/manager/segment_store.h"
#include "remote/storage/remote_storage.h"

namespace skiff::remote {

class S3SegmentStore : public SegmentStore {
 public:
  explicit S3SegmentStore(RemoteStorageManager& rsm) : rsm_(rsm) {}

  RsmResult<std::optional<std::string>> copy(const RemoteLogSegmentMetadata& segment,
                                             const LogSegmentData& data) override {
    return rsm_.copy_log_segment_data(segment, data);
  }
  RsmResult<void> remove(const RemoteLogSegmentMetadata& segment) override {
    return rsm_.delete_log_segment_data(segment);
  }
  RsmResult<std::string> fetch_log_segment(const RemoteLogSegmentMetadata& segment, uint64_t start_position,
                                           std::optional<uint64_t> end_position) override {
    return rsm_.fetch_log_segment(segment, start_position, end_position);
  }
  RsmResult<std::optional<std::string>> fetch_index(const RemoteLogSegmentMetadata& segment, IndexType type) override {
    return rsm_.fetch_index(segment, type);
  }

 private:
  RemoteStorageManager& rsm_;
};

}  // namespace skiff::remote
