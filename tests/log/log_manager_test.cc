#include "log/log_manager.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "log/meta_properties.h"
#include "test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace {
LogManagerConfig mgr_config(const TempDir& d, int dirs = 2) {
  LogManagerConfig c;
  for (int i = 0; i < dirs; ++i) c.log_dirs.push_back(d / ("dir" + std::to_string(i)));
  c.node_id = 3;
  c.defaults.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  return c;
}
}  // namespace

TEST_CASE("log manager: create, look up, list, persist, delete, reuse a name", "[log][manager]") {
  TempDir d;
  Uuid id;
  std::string cluster;
  {
    LogManager m(mgr_config(d));
    cluster = m.cluster_id();
    CHECK(cluster.size() == 22);
    auto r = m.create_topic("orders", 4, {{"retention.ms", "1000"}});
    REQUIRE(r);
    id = r->topic_id;
    CHECK(outcome(m.create_topic("orders", 1)) == LogErrc::kTopicAlreadyExists);
    CHECK(outcome(m.create_topic("bad name", 1)) == LogErrc::kInvalidTopic);
    CHECK(outcome(m.create_topic("x", 0)) == LogErrc::kInvalidPartitions);
    CHECK(outcome(m.create_topic("y", 1, {{"segment.ms", "nope"}})) == LogErrc::kInvalidConfig);
    // Placement: balanced over the two dirs.
    int in0 = 0;
    for (int p = 0; p < 4; ++p) {
      auto log = m.get_log("orders", p);
      REQUIRE(log);
      if (log->dir().parent_path() == d / "dir0") ++in0;
      CHECK(fs::exists(log->dir() / "partition.metadata"));
    }
    CHECK(in0 == 2);
    CHECK(!m.get_log("orders", 4));
    auto b = make_test_batch(2, 10, 5);
    REQUIRE(m.get_log("orders", 1)->append(b).has_value());
    CHECK(m.topic_config("orders")->retention_ms == 1000);
    m.start();
    m.shutdown();
    CHECK(fs::exists(d / "dir0" / ".kafka_cleanshutdown"));
  }
  {
    LogManager m(mgr_config(d));
    CHECK(m.cluster_id() == cluster);
    auto t = m.topic("orders");
    REQUIRE(t);
    CHECK(t->topic_id == id);
    CHECK(t->partitions == 4);
    CHECK(t->overrides.at("retention.ms") == "1000");
    CHECK(m.topic_by_id(id)->name == "orders");
    CHECK(m.get_log("orders", 1)->log_end_offset().value == 2);
    CHECK(m.get_log("orders", 1)->load_stats().segments_recovered == 0);  // clean
    CHECK(!fs::exists(d / "dir0" / ".kafka_cleanshutdown"));
    REQUIRE(outcome(m.delete_topic("orders")) == LogErrc::kNone);
    CHECK_FALSE(m.topic_by_id(id));  // the id went with the topic
    CHECK(outcome(m.delete_topic("orders")) == LogErrc::kUnknownTopicOrPartition);
    CHECK(!fs::exists(d / "dir0" / "orders-0"));
    CHECK(!fs::exists(d / "dir1" / "orders-1"));
    auto r = m.create_topic("orders", 1);
    REQUIRE(r);
    CHECK(r->topic_id != id);
    CHECK(m.topic_by_id(r->topic_id)->name == "orders");
    CHECK_FALSE(m.topic_by_id(id));
    CHECK(m.get_log("orders", 0)->log_end_offset().value == 0);
    CHECK(m.list_topics().size() == 1);
  }
  {
    // Unclean: no shutdown() -> destructor still shuts down; simulate by
    // removing the marker after a clean run instead.
  }
}

TEST_CASE("log manager: partitions, live config, checkpoints", "[log][manager]") {
  TempDir d;
  LogManager m(mgr_config(d, 1));
  REQUIRE(outcome(m.create_topic("t", 1)) == LogErrc::kNone);
  REQUIRE(outcome(m.create_partitions("t", 3)) == LogErrc::kNone);
  CHECK(outcome(m.create_partitions("t", 2)) == LogErrc::kInvalidPartitions);
  CHECK(outcome(m.create_partitions("nope", 2)) == LogErrc::kUnknownTopicOrPartition);
  REQUIRE(m.get_log("t", 2));
  auto log = m.get_log("t", 0);
  auto bad = m.alter_topic_config("t", {{"max.message.bytes", "-3"}});
  REQUIRE(outcome(bad) == LogErrc::kInvalidConfig);
  CHECK_THAT(bad.error().message, Catch::Contains("max.message.bytes"));
  REQUIRE(outcome(m.alter_topic_config("t", {{"max.message.bytes", "100"}})) == LogErrc::kNone);
  auto b = make_test_batch(1, 500, 1);
  CHECK(outcome(log->append(b)) == LogErrc::kMessageTooLarge);  // live
  REQUIRE(outcome(m.alter_topic_config("t", {})) == LogErrc::kNone);
  REQUIRE(log->append(b).has_value());
  REQUIRE(outcome(log->flush()) == LogErrc::kNone);
  m.checkpoint_recovery_points();
  auto cp = read_offset_checkpoint(d / "dir0" / kRecoveryPointCheckpointFile);
  CHECK(cp.at(TopicPartition{"t", 0}) == 1);
  CHECK(cp.size() == 3);
  std::string text;
  std::ifstream in(d / "dir0" / kRecoveryPointCheckpointFile);
  std::getline(in, text);
  CHECK(text == "0");
  std::getline(in, text);
  CHECK(text == "3");
}

TEST_CASE("log manager: node id mismatch is refused", "[log][manager]") {
  TempDir d;
  { LogManager m(mgr_config(d, 1)); }
  auto m = read_meta_properties(d / "dir0");
  REQUIRE(m);
  CHECK(m->node_id == 3);
  CHECK(m->version == 1);
  auto c = mgr_config(d, 1);
  c.node_id = 4;
  CHECK_THROWS_WITH(LogManager(c), Catch::Contains("node"));
}

TEST_CASE("log manager: unclean restart recovers, scheduler runs retention", "[log][manager]") {
  TempDir d;
  auto c = mgr_config(d, 1);
  {
    LogManager m(c);
    REQUIRE(outcome(m.create_topic("r", 1, {{"internal.segment.bytes", "2000"}})) == LogErrc::kNone);
    for (int i = 0; i < 10; ++i) {
      auto b = make_test_batch(1, 500, 1000 + i);
      REQUIRE(m.get_log("r", 0)->append(b).has_value());
    }
    m.shutdown();
  }
  fs::remove(d / "dir0" / ".kafka_cleanshutdown");  // pretend it crashed after the last checkpoint
  c.retention_check_interval_ms = 20;
  LogManager m(c);
  auto log = m.get_log("r", 0);
  CHECK(log->log_end_offset().value == 10);
  CHECK(log->load_stats().segments_recovered >= 1);
  REQUIRE(outcome(m.alter_topic_config("r", {{"internal.segment.bytes", "2000"}, {"retention.ms", "1000"}})) ==
          LogErrc::kNone);
  m.start();
  for (int i = 0; i < 200 && log->segment_count() > 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(log->segment_count() == 1);  // timestamps ~1000 are ancient
  CHECK(log->log_start_offset().value == log->segment_base_offsets().front());
  m.shutdown();
}

// get_log()/topic() answer from a per-thread cache: every change made on
// another thread must show in this thread's next lookup.
TEST_CASE("log manager: lookups on a thread see other threads' creates, deletes and changes", "[log][manager]") {
  TempDir d;
  LogManager m(mgr_config(d, 1));
  REQUIRE(outcome(m.create_topic("t", 1)) == LogErrc::kNone);
  // The reader thread caches "t" and the absence of "u" first.
  std::shared_ptr<Log> first;
  std::mutex mu;
  std::condition_variable cv;
  int step = 0, done = -1;
  std::vector<std::string> failures;
  std::thread reader([&] {
    auto wait_for = [&](int s) {
      std::unique_lock lk(mu);
      cv.wait(lk, [&] { return step >= s; });
    };
    auto check = [&](bool ok, const char* what) {
      if (!ok) failures.emplace_back(what);
    };
    first = m.get_log("t", 0);
    check(first != nullptr, "t-0 exists");
    check(!m.topic("u"), "u absent");
    check(!m.get_log("t", 1), "t-1 absent");
    {
      std::lock_guard lk(mu);
      done = 0;
    }
    cv.notify_all();
    wait_for(1);  // u created, t grown to 2 partitions
    check(m.topic("u").has_value(), "u visible after create");
    check(m.get_log("u", 0) != nullptr, "u-0 visible after create");
    check(m.get_log("t", 1) != nullptr, "t-1 visible after create_partitions");
    check(m.topic("t")->partitions == 2, "t has 2 partitions");
    {
      std::lock_guard lk(mu);
      done = 1;
    }
    cv.notify_all();
    wait_for(2);  // t deleted and re-created
    auto again = m.get_log("t", 0);
    check(again != nullptr, "t-0 after re-create");
    check(again != first, "t-0 is the new log");
    check(!m.get_log("t", 1), "new t has one partition");
    {
      std::lock_guard lk(mu);
      done = 2;
    }
    cv.notify_all();
  });
  auto advance = [&](int s) {
    {
      std::unique_lock lk(mu);
      cv.wait(lk, [&] { return done >= s - 1; });
      step = s;
    }
    cv.notify_all();
  };
  {
    std::unique_lock lk(mu);
    cv.wait(lk, [&] { return done >= 0; });
  }
  REQUIRE(outcome(m.create_topic("u", 1)) == LogErrc::kNone);
  REQUIRE(outcome(m.create_partitions("t", 2)) == LogErrc::kNone);
  advance(1);
  {
    std::unique_lock lk(mu);
    cv.wait(lk, [&] { return done >= 1; });
  }
  REQUIRE(outcome(m.delete_topic("t")) == LogErrc::kNone);
  REQUIRE(outcome(m.create_topic("t", 1)) == LogErrc::kNone);
  advance(2);
  reader.join();
  for (const auto& f : failures) FAIL_CHECK(f);
  CHECK(failures.empty());
}
