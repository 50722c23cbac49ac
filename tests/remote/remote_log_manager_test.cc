// RemoteLogManager's passes over real logs and the real metadata topic, with
// an in-memory object store (the S3 store is tested against real servers in
// tests/integration/test_remote_storage.py): copy with the metadata states
// before and after, a failed copy retried, a copy cut by a crash deleted,
// remote retention by bytes, time and DeleteRecords, the sweep of a deleted
// topic, and recovery of the highest remote offset after a restart.
#include "remote/manager/remote_log_manager.h"

#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <mutex>

#include "log/batch_builder.h"
#include "log/test_util.h"
#include "remote/memory_segment_store.h"
#include "remote/remote_test_util.h"

using namespace skiff;
using namespace skiff::remote;
using skiff::storage::test::TempDir;

namespace {

using MemoryStore = skiff::remote::test::MemorySegmentStore;

using skiff::remote::test::logs_config;

// A broker's worth of the three parts, reopened by a restart.
struct Node {
  explicit Node(const TempDir& d) : logs(logs_config(d)), metadata(logs, MetadataTopicConfig{1, -1, 0}) {
    metadata.start();
  }
  storage::LogManager logs;
  RemoteLogMetadataManager metadata;
};

RemoteLogManagerConfig rlm_config() {
  RemoteLogManagerConfig c;
  c.copier_threads = 1;
  c.expiration_threads = 1;
  return c;
}

// `segments` full segments of 3 batches each, then one in the active segment.
// The log's config with remote storage on (LogManager's topic validation
// refuses remote.storage.enable while the broker has no tiered storage).
void set_remote(storage::Log& log, const std::function<void(storage::LogConfig&)>& f = {}) {
  auto cfg = std::make_shared<storage::LogConfig>(*log.config());
  cfg->remote_storage_enable = true;
  if (f) f(*cfg);
  log.set_config(cfg);
}

std::shared_ptr<storage::Log> fill(storage::LogManager& logs, const std::string& topic, int segments) {
  REQUIRE(logs.create_topic(topic, 1, {{"internal.segment.bytes", "3000"}}));
  auto log = logs.get_log(topic, 0);
  set_remote(*log);
  for (int i = 0; i < segments * 3 + 1; ++i) {
    auto b = storage::make_test_batch(2, 400, 1000 + i);
    REQUIRE(log->append(b, 0, 2000).has_value());
  }
  REQUIRE(log->flush());  // copy candidates lie below the recovery point
  return log;
}

TopicIdPartition tp_of(storage::LogManager& logs, const std::string& topic) {
  return TopicIdPartition{logs.topic(topic)->topic_id, topic, 0};
}

}  // namespace

TEST_CASE("remote log manager: closed segments are copied once, recorded before and after", "[remote][rlm]") {
  TempDir d;
  Node n(d);
  MemoryStore store;
  RemoteLogManager rlm(n.logs, n.metadata, store, rlm_config());
  auto log = fill(n.logs, "t", 3);
  const auto closed = log->copy_candidates(0).size();
  REQUIRE(closed >= 2);

  CHECK(rlm.run_copy_once(5000) == static_cast<int>(closed));
  CHECK(store.count() == closed);
  auto segs = n.metadata.segments(tp_of(n.logs, "t"));
  REQUIRE(segs.size() == closed);
  for (const auto& s : segs) CHECK(s.state == SegmentState::kCopyFinished);
  CHECK(log->highest_offset_in_remote() == segs.back().end_offset);
  CHECK(segs.front().start_offset == 0);
  for (size_t i = 1; i < segs.size(); ++i) CHECK(segs[i].start_offset == segs[i - 1].end_offset + 1);

  CHECK(rlm.run_copy_once(6000) == 0);  // nothing new
  CHECK(store.count() == closed);
}

TEST_CASE("remote log manager: a failed copy leaves nothing and is retried", "[remote][rlm]") {
  TempDir d;
  Node n(d);
  MemoryStore store;
  store.fail_copies = 1;
  RemoteLogManager rlm(n.logs, n.metadata, store, rlm_config());
  auto log = fill(n.logs, "t", 2);
  CHECK(rlm.run_copy_once(5000) == 0);
  CHECK(log->highest_offset_in_remote() == -1);
  CHECK(store.count() == 0);
  CHECK(n.metadata.segments(tp_of(n.logs, "t")).empty());  // the attempt went DELETE_SEGMENT_FINISHED
  CHECK(rlm.stats().copy_errors.load() == 1);

  CHECK(rlm.run_copy_once(6000) >= 2);
  CHECK(log->highest_offset_in_remote() > 0);
}

TEST_CASE("remote log manager: a copy cut by a crash is deleted by expiration", "[remote][rlm]") {
  TempDir d;
  Node n(d);
  MemoryStore store;
  RemoteLogManager rlm(n.logs, n.metadata, store, rlm_config());
  auto log = fill(n.logs, "t", 2);
  RemoteLogSegmentMetadata cut;
  cut.id = RemoteLogSegmentId{tp_of(n.logs, "t"), Uuid::random()};
  cut.end_offset = 5;
  cut.segment_leader_epochs = {{0, 0}};
  REQUIRE(n.metadata.add_segment(cut));
  store.objects[cut.id.id] = {};  // its objects, half uploaded

  CHECK(rlm.run_expiration_once(5000) == 1);
  CHECK(store.count() == 0);
  CHECK(n.metadata.segments(cut.id.partition).empty());
  CHECK(log->highest_offset_in_remote() == -1);
}

TEST_CASE("remote log manager: remote retention by bytes and by time moves the log start", "[remote][rlm]") {
  TempDir d;
  Node n(d);
  MemoryStore store;
  RemoteLogManager rlm(n.logs, n.metadata, store, rlm_config());
  auto log = fill(n.logs, "t", 4);
  REQUIRE(rlm.run_copy_once(5000) >= 3);
  const auto tp = tp_of(n.logs, "t");
  const auto before = n.metadata.segments(tp);

  SECTION("retention.ms: every segment's records are older") {
    set_remote(*log, [](storage::LogConfig& c) { c.retention_ms = 1000; });
    CHECK(rlm.run_expiration_once(100000) == static_cast<int>(before.size()));
    CHECK(store.count() == 0);
    CHECK(log->log_start_offset().value == before.back().end_offset + 1);
  }
  SECTION("DeleteRecords below the second segment deletes the first") {
    REQUIRE(log->maybe_increment_log_start_offset(storage::Offset(before[1].start_offset)));
    CHECK(rlm.run_expiration_once(5000) == 1);
    CHECK(n.metadata.segments(tp).size() == before.size() - 1);
  }
  SECTION("nothing expired: nothing deleted") {
    CHECK(rlm.run_expiration_once(5000) == 0);
    CHECK(store.count() == before.size());
  }
}

TEST_CASE("remote log manager: a deleted topic's remote data is swept", "[remote][rlm]") {
  TempDir d;
  Node n(d);
  MemoryStore store;
  RemoteLogManager rlm(n.logs, n.metadata, store, rlm_config());
  fill(n.logs, "t", 2);
  REQUIRE(rlm.run_copy_once(5000) >= 2);
  const auto tp = tp_of(n.logs, "t");
  REQUIRE(n.logs.delete_topic("t"));
  rlm.run_expiration_once(6000);
  CHECK(store.count() == 0);
  // DELETE_PARTITION_FINISHED: the metadata forgets the partition (Kafka's cache).
  CHECK_FALSE(n.metadata.partition_delete_state(tp).has_value());
  CHECK(n.metadata.partitions().empty());
  CHECK(store.removes == 2 + 0);
}

TEST_CASE("remote log manager: a restart recovers the highest remote offset", "[remote][rlm]") {
  TempDir d;
  int64_t highest = -1;
  {
    Node n(d);
    MemoryStore store;
    RemoteLogManager rlm(n.logs, n.metadata, store, rlm_config());
    auto log = fill(n.logs, "t", 2);
    REQUIRE(rlm.run_copy_once(5000) >= 2);
    highest = log->highest_offset_in_remote();
    n.logs.shutdown();
  }
  Node n(d);
  MemoryStore store;
  RemoteLogManager rlm(n.logs, n.metadata, store, rlm_config());
  set_remote(*n.logs.get_log("t", 0));
  CHECK(n.logs.get_log("t", 0)->highest_offset_in_remote() == -1);
  rlm.recover();
  CHECK(n.logs.get_log("t", 0)->highest_offset_in_remote() == highest);
}
