// MemorySegmentStore: the tests' object store (remote/manager/segment_store.h)
// in memory. A copy reads the segment's files whole; fetches answer from
// those bytes as the S3 store does (end inclusive, not found for a segment
// never copied or removed). Failures are injected by count.
// Threads: every method under one mutex.
#pragma once

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "remote/manager/segment_store.h"

namespace skiff::remote::test {

class MemorySegmentStore : public SegmentStore {
 public:
  struct Object {
    std::string log;
    std::map<IndexType, std::string> indexes;
  };

  RsmResult<std::optional<std::string>> copy(const RemoteLogSegmentMetadata& s, const LogSegmentData& d) override {
    std::lock_guard lk(mu_);
    if (fail_copies > 0) {
      --fail_copies;
      return skiff::unexpected(RemoteStorageError{true, "injected failure"});
    }
    Object o;
    o.log = read_file(d.log);
    o.indexes[IndexType::kOffset] = read_file(d.offset_index);
    o.indexes[IndexType::kTimestamp] = read_file(d.time_index);
    if (d.txn_index) o.indexes[IndexType::kTransaction] = read_file(*d.txn_index);
    if (d.producer_snapshot) o.indexes[IndexType::kProducerSnapshot] = read_file(*d.producer_snapshot);
    o.indexes[IndexType::kLeaderEpoch] = d.leader_epoch_checkpoint;
    objects[s.id.id] = std::move(o);
    return std::optional<std::string>{};
  }
  RsmResult<void> remove(const RemoteLogSegmentMetadata& s) override {
    std::lock_guard lk(mu_);
    objects.erase(s.id.id);
    ++removes;
    return {};
  }
  RsmResult<std::string> fetch_log_segment(const RemoteLogSegmentMetadata& s, uint64_t start,
                                           std::optional<uint64_t> end) override {
    std::lock_guard lk(mu_);
    ++log_fetches;
    if (fail_fetches > 0) {
      --fail_fetches;
      return skiff::unexpected(RemoteStorageError{true, "injected failure"});
    }
    auto it = objects.find(s.id.id);
    if (it == objects.end()) return skiff::unexpected(RemoteStorageError{false, "no such segment", true});
    const std::string& log = it->second.log;
    if (start >= log.size()) return std::string();
    const uint64_t stop = end ? std::min<uint64_t>(*end + 1, log.size()) : log.size();
    return log.substr(start, stop > start ? stop - start : 0);
  }
  RsmResult<std::optional<std::string>> fetch_index(const RemoteLogSegmentMetadata& s, IndexType type) override {
    std::lock_guard lk(mu_);
    ++index_fetches;
    if (fail_fetches > 0) {
      --fail_fetches;
      return skiff::unexpected(RemoteStorageError{true, "injected failure"});
    }
    auto it = objects.find(s.id.id);
    if (it == objects.end()) return skiff::unexpected(RemoteStorageError{false, "no such segment", true});
    auto idx = it->second.indexes.find(type);
    if (idx == it->second.indexes.end()) return std::optional<std::string>{};
    return std::optional<std::string>{idx->second};
  }

  size_t count() {
    std::lock_guard lk(mu_);
    return objects.size();
  }

  int fail_copies = 0;   // the next copies that fail (retriable)
  int fail_fetches = 0;  // the next fetches (log or index) that fail (retriable)
  int removes = 0;
  int log_fetches = 0;
  int index_fetches = 0;
  std::map<Uuid, Object> objects;

 private:
  static std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  std::mutex mu_;
};

}  // namespace skiff::remote::test
