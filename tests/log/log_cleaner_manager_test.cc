// LogCleanerManager: picks the compacted log that needs cleaning, records the
// checkpoint in cleaner-offset-checkpoint, pauses, runs on its own threads.
#include "log/log_cleaner_manager.h"

#include <catch2/catch.hpp>
#include <thread>

#include "cleaner_test_util.h"

using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

void fill(Log& log) {
  for (int i = 0; i < 30; ++i) {
    BatchBuilder b;
    b.add("k" + std::to_string(i % 5), "v" + std::to_string(i), kT0 + i);
    REQUIRE(append_tmp(log, b.build()).has_value());
    if (i % 10 == 9) REQUIRE(outcome(log.roll(kT0)) == LogErrc::kNone);
  }
  make_durable(log);
}

struct Fixture {
  TempDir dir;
  std::shared_ptr<Log> compacted = open_log(dir / "c-0", compact_config());
  std::shared_ptr<Log> plain = open_log(dir / "p-0", config_with());
  std::vector<CleanableLog> list() { return {{{"c", 0}, compacted, dir.path()}, {{"p", 0}, plain, dir.path()}}; }
};

}  // namespace

TEST_CASE("The cleaner manager cleans compacted logs and checkpoints them", "[log][cleaner]") {
  Fixture f;
  fill(*f.compacted);
  fill(*f.plain);
  const auto plain_before = read_all_batches(*f.plain);
  LogCleanerManager m({}, {f.dir.path()}, [&] { return f.list(); });
  CleanerConfig cc;
  cc.dedupe_buffer_bytes = 1 << 20;
  Cleaner cleaner(cc);

  SECTION("one round") {
    REQUIRE(m.clean_filthiest(cleaner, kT0));
    CHECK(m.checkpoint({"c", 0}) == 30);
    CHECK(read_records(*f.compacted).size() == 5);
    CHECK(read_all_batches(*f.plain) == plain_before);
    CHECK(read_cleaner_checkpoint(f.dir.path()) == std::map<TopicPartition, int64_t>{{{"c", 0}, 30}});
    CHECK_FALSE(m.clean_filthiest(cleaner, kT0));  // nothing dirty left
    // A new manager (restart) starts from the checkpoint file.
    LogCleanerManager again({}, {f.dir.path()}, [&] { return f.list(); });
    CHECK(again.checkpoint({"c", 0}) == 30);
    CHECK_FALSE(again.clean_filthiest(cleaner, kT0));
  }
  SECTION("paused partitions are left alone until resumed") {
    m.abort_and_pause({"c", 0});
    CHECK_FALSE(m.clean_filthiest(cleaner, kT0));
    m.resume({"c", 0});
    CHECK(m.clean_filthiest(cleaner, kT0));
  }
  SECTION("cleaner threads") {
    LogCleanerManagerConfig mc;
    mc.threads = 2;
    mc.dedupe_buffer_bytes = 1 << 20;
    mc.backoff_ms = 10;
    LogCleanerManager threaded(mc, {f.dir.path()}, [&] { return f.list(); });
    threaded.start();
    for (int i = 0; i < 500 && threaded.checkpoint({"c", 0}) != 30; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    threaded.stop();
    CHECK(threaded.checkpoint({"c", 0}) == 30);
    CHECK(read_records(*f.compacted).size() == 5);
  }
}

#include "log/log_manager.h"

TEST_CASE("LogManager runs the cleaner on compacted topics, and deletes a topic mid-cleaning", "[log][cleaner]") {
  TempDir d;
  LogManagerConfig c;
  c.log_dirs.push_back(d / "dir0");
  c.defaults.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  c.cleaner_enable = true;
  c.cleaner.dedupe_buffer_bytes = 1 << 20;
  c.cleaner.backoff_ms = 10;
  LogManager m(c);
  REQUIRE(outcome(m.create_topic("table", 1, {{"cleanup.policy", "compact"}})) == LogErrc::kNone);
  REQUIRE(outcome(m.create_topic("events", 1)) == LogErrc::kNone);
  auto table = m.get_log("table", 0);
  auto events = m.get_log("events", 0);
  fill(*table);
  fill(*events);
  m.start();
  std::map<TopicPartition, int64_t> cp;
  for (int i = 0; i < 500 && cp[{"table", 0}] != 30; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    cp = read_cleaner_checkpoint(d / "dir0");
  }
  CHECK(cp == std::map<TopicPartition, int64_t>{{{"table", 0}, 30}});
  CHECK(read_records(*table).size() == 5);
  CHECK(read_records(*events).size() == 30);
  // Deleting while the cleaner may be at work: files go, the name is reusable.
  for (int i = 0; i < 20; ++i) {
    REQUIRE(outcome(m.create_topic("busy", 1, {{"cleanup.policy", "compact"}})) == LogErrc::kNone);
    fill(*m.get_log("busy", 0));
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 3));
    REQUIRE(outcome(m.delete_topic("busy")) == LogErrc::kNone);
    CHECK_FALSE(std::filesystem::exists(d / "dir0" / "busy-0"));
  }
  m.shutdown();
}
