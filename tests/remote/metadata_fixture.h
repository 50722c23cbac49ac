// The fixture of the RemoteLogMetadataManager tests: a LogManager in a temp
// directory with the manager on it (restartable), segments of a user
// partition, and a set of writes leaving one segment in each state.
// Header-only; for test binaries (Catch2). Threads: the test's.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "log/log_manager.h"
#include "remote/metadata/metadata_manager.h"
#include "tests/support/temp_dir.h"

namespace skiff::remote::rlmm_test {

struct Broker {
  skiff::test::TempDir dir{"skiff-rlmm"};
  std::unique_ptr<storage::LogManager> logs;
  std::unique_ptr<RemoteLogMetadataManager> rlmm;
  MetadataTopicConfig config{3, -1, 0, 1};

  Broker() { restart(); }
  ~Broker() { stop(); }
  void stop() {
    rlmm.reset();
    if (logs) logs->shutdown();
    logs.reset();
  }
  void restart() {
    stop();
    storage::LogManagerConfig c;
    c.log_dirs = {dir.path() / "logs"};
    logs = std::make_unique<storage::LogManager>(c);
    rlmm = std::make_unique<RemoteLogMetadataManager>(*logs, config);
    rlmm->start();
  }
  std::filesystem::path partition_dir(int32_t p) const {
    return dir.path() / "logs" / (std::string(kRemoteLogMetadataTopic) + "-" + std::to_string(p));
  }
};

inline TopicIdPartition user_tp(uint8_t n = 1, int32_t partition = 0) {
  return TopicIdPartition{Uuid{{n, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}, "orders", partition};
}

inline RemoteLogSegmentMetadata user_seg(const TopicIdPartition& p, uint8_t n, int64_t start, int64_t end,
                                         int32_t epoch = 0) {
  RemoteLogSegmentMetadata m;
  m.id = RemoteLogSegmentId{p, Uuid{{n, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}}};
  m.start_offset = start;
  m.end_offset = end;
  m.max_timestamp_ms = 1000 + end;
  m.broker_id = 1;
  m.event_timestamp_ms = 5;
  m.segment_leader_epochs = {{epoch, start}};
  m.segment_size_in_bytes = 4096;
  return m;
}

inline void ok(const storage::Result<void>& r) {
  INFO((r ? std::string() : r.error().message));
  REQUIRE(r.has_value());
}

inline std::vector<std::string> summary(const RemoteLogMetadataManager& m, const TopicIdPartition& p) {
  std::vector<std::string> out;
  for (const auto& s : m.segments(p))
    out.push_back(std::to_string(s.start_offset) + "-" + std::to_string(s.end_offset) + ":" +
                  std::string(state_name(s.state)) + (s.custom_metadata ? ":" + *s.custom_metadata : ""));
  return out;
}

// One segment per state and a marked partition.
inline void write_states(RemoteLogMetadataManager& m) {
  const auto a = user_seg(user_tp(), 1, 0, 99), b = user_seg(user_tp(), 2, 100, 199),
             c = user_seg(user_tp(), 3, 200, 299), d = user_seg(user_tp(), 4, 300, 399);
  for (const auto& s : {a, b, c, d}) ok(m.add_segment(s));
  ok(m.update_segment(a.id, SegmentState::kCopyFinished, 6));
  ok(m.update_segment(a.id, SegmentState::kDeleteStarted, 7));
  ok(m.update_segment(a.id, SegmentState::kDeleteFinished, 8));  // gone
  ok(m.update_segment(b.id, SegmentState::kCopyFinished, 6, "manifest-b"));
  ok(m.update_segment(c.id, SegmentState::kCopyFinished, 6));
  ok(m.update_segment(c.id, SegmentState::kDeleteStarted, 7));
  ok(m.put_partition_delete(user_tp(2), PartitionDeleteState::kMarked, 9));
}

inline const std::vector<std::string> kStates = {"100-199:COPY_SEGMENT_FINISHED:manifest-b",
                                                 "200-299:DELETE_SEGMENT_STARTED", "300-399:COPY_SEGMENT_STARTED"};

}  // namespace skiff::remote::rlmm_test
