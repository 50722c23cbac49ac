// Moving a partition between log dirs (log/replica_dir_mover.h): online,
// with appends going on during the copy; cancelled; and killed after each
// step of the protocol (the files left exactly as the step left them, the
// clean-shutdown markers removed, the manager reopened as after a crash).
// Every acknowledged batch must be there exactly once, in order, in exactly
// one dir, and no future dir may be served.
#include "log/replica_dir_mover.h"

#include <catch2/catch.hpp>
#include <thread>

#include "log/log_manager.h"
#include "test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kT0 = 1'700'000'000'000;
const TopicPartition kTp{"moving", 0};

LogManagerConfig two_dirs(const TempDir& d) {
  LogManagerConfig c;
  for (int i = 0; i < 2; ++i) c.log_dirs.push_back(d / ("dir" + std::to_string(i)));
  c.defaults.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  c.defaults.message_timestamp_before_max_ms = LogConfig::kMaxLong;
  c.defaults.segment_bytes = 4096;  // many segments, so inactive and active ones are copied
  return c;
}

// Appends batch `i` (its base timestamp names it), retrying while the
// partition is between two logs (the source refuses once closed). False on
// any other outcome. Any thread (no Catch2 assertion here).
bool try_append(LogManager& m, int64_t i) {
  for (;;) {
    auto log = m.get_log(kTp.topic, kTp.partition);
    if (!log) return false;
    auto b = make_test_batch(3, 100, kT0 + i, static_cast<uint64_t>(i));
    auto r = log->append(b);
    if (r.has_value()) return true;
    if (outcome(r) != LogErrc::kUnknownTopicOrPartition) return false;
    std::this_thread::yield();
  }
}

void append_one(LogManager& m, int64_t i) { REQUIRE(try_append(m, i)); }

// The names (base timestamp - kT0) of the batches the partition serves, checking offsets are dense.
std::vector<int64_t> served(LogManager& m) {
  auto log = m.get_log(kTp.topic, kTp.partition);
  REQUIRE(log);
  std::vector<int64_t> names;
  int64_t next = log->log_start_offset().value;
  for (auto& bytes : read_all_batches(*log)) {
    RecordBatchView v(bytes);
    CHECK(v.base_offset() == next);
    next = v.next_offset();
    names.push_back(v.base_timestamp() - kT0);
  }
  CHECK(next == log->log_end_offset().value);
  return names;
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

size_t dir_of(LogManager& m) {
  auto parent = m.get_log(kTp.topic, kTp.partition)->dir().parent_path();
  return parent == m.log_dirs()[0] ? 0 : 1;
}

// Partition directories named like the partition, or any move leftover.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) v.push_back(e.path().filename().string());
  return v;
}

}  // namespace

TEST_CASE("replica dir mover: moves a partition online, appends during the copy", "[log][move]") {
  TempDir d;
  LogManager m(two_dirs(d));
  REQUIRE(outcome(m.create_topic(kTp.topic, 1)) == LogErrc::kNone);
  for (int i = 0; i < 100; ++i) append_one(m, i);
  const size_t src = dir_of(m), dest = 1 - src;
  auto& mover = m.replica_mover();
  mover.set_manual();
  int64_t next = 100;
  std::vector<FutureReplica> seen_futures;
  mover.set_between_passes([&] {
    seen_futures = mover.futures();
    for (int k = 0; k < 30; ++k) append_one(m, next++);  // written after the bulk copy: caught up at the end
  });
  REQUIRE(mover.request(kTp, dest) == LogErrc::kNone);
  std::atomic<bool> done{false}, writer_ok{true};
  std::thread writer([&] {  // and appends racing the close and the swap
    for (int64_t i = 1'000'000; !done && writer_ok; ++i) writer_ok = try_append(m, i);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  mover.run_pending();
  done = true;
  writer.join();
  CHECK(writer_ok);
  REQUIRE(seen_futures.size() == 1);
  CHECK(seen_futures[0].dir_index == dest);
  CHECK(seen_futures[0].size_bytes > 0);
  CHECK(mover.futures().empty());
  CHECK(dir_of(m) == dest);
  // Every acknowledged batch once, in the order each writer wrote them.
  std::vector<int64_t> mine, racing;
  for (int64_t n : served(m)) (n < 1'000'000 ? mine : racing).push_back(n);
  CHECK(mine == iota(next));  // 100 before, 30 after each bulk pass
  REQUIRE(!racing.empty());
  for (size_t i = 0; i < racing.size(); ++i) CHECK(racing[i] == 1'000'000 + static_cast<int64_t>(i));
  CHECK(entries(m.log_dirs()[src]).empty());  // source and its -delete dir gone
  CHECK(entries(m.log_dirs()[dest]) == std::vector<std::string>{"moving-0"});
  append_one(m, 5'000'000);  // the moved log takes appends
  const auto count = served(m).size();
  m.shutdown();
  LogManager again(two_dirs(d));
  CHECK(dir_of(again) == dest);
  CHECK(served(again).size() == count);
}

TEST_CASE("replica dir mover: requests", "[log][move]") {
  TempDir d;
  LogManager m(two_dirs(d));
  REQUIRE(outcome(m.create_topic(kTp.topic, 1)) == LogErrc::kNone);
  auto& mover = m.replica_mover();
  mover.set_manual();
  CHECK(mover.request({"nope", 0}, 0) == LogErrc::kUnknownTopicOrPartition);
  CHECK(mover.request({kTp.topic, 1}, 0) == LogErrc::kUnknownTopicOrPartition);
  CHECK(mover.request(kTp, dir_of(m)) == LogErrc::kNone);  // already there: nothing to do
  mover.run_pending();
  CHECK(entries(m.log_dirs()[1 - dir_of(m)]).empty());
}

TEST_CASE("replica dir mover: a move cancelled by a request back to the source", "[log][move]") {
  TempDir d;
  LogManager m(two_dirs(d));
  REQUIRE(outcome(m.create_topic(kTp.topic, 1)) == LogErrc::kNone);
  for (int i = 0; i < 50; ++i) append_one(m, i);
  const size_t src = dir_of(m);
  auto& mover = m.replica_mover();
  mover.set_manual();
  mover.set_between_passes([&] { CHECK(mover.request(kTp, src) == LogErrc::kNone); });
  REQUIRE(mover.request(kTp, 1 - src) == LogErrc::kNone);
  mover.run_pending();
  CHECK(dir_of(m) == src);
  CHECK(entries(m.log_dirs()[1 - src]).empty());  // the future dir was removed
  append_one(m, 50);
  CHECK(served(m) == iota(51));
}

TEST_CASE("replica dir mover: a kill after each step loses nothing and serves no future dir", "[log][move][crash]") {
  for (int step = 1; step <= 6; ++step) {
    DYNAMIC_SECTION("killed after step " << step) {
      TempDir d;
      size_t src = 0;
      {
        LogManager m(two_dirs(d));
        REQUIRE(outcome(m.create_topic(kTp.topic, 1)) == LogErrc::kNone);
        for (int i = 0; i < 80; ++i) append_one(m, i);
        src = dir_of(m);
        auto& mover = m.replica_mover();
        mover.set_manual();
        mover.set_crash_at([step](int s) { return s == step; });
        REQUIRE(mover.request(kTp, 1 - src) == LogErrc::kNone);
        mover.run_pending();
      }  // the destructor's clean close writes no move file; the markers go below
      for (const auto& dir : two_dirs(d).log_dirs) fs::remove(dir / ".kafka_cleanshutdown");
      LogManager m(two_dirs(d));
      CHECK(dir_of(m) == (step <= 3 ? src : 1 - src));
      CHECK(served(m) == iota(80));
      for (const auto& dir : m.log_dirs()) {
        for (const auto& name : entries(dir)) CHECK(name == "moving-0");
        CHECK(!fs::exists(dir / "moving-0" / ".skiff-move-target"));
      }
      CHECK(entries(m.log_dirs()[0]).size() + entries(m.log_dirs()[1]).size() == 1);
      // And the partition still moves afterwards.
      const size_t here = dir_of(m);
      m.replica_mover().set_manual();
      REQUIRE(m.replica_mover().request(kTp, 1 - here) == LogErrc::kNone);
      m.replica_mover().run_pending();
      CHECK(dir_of(m) == 1 - here);
      append_one(m, 80);
      CHECK(served(m) == iota(81));
    }
  }
}

TEST_CASE("replica dir mover: the copy keeps to its rate (replica.alter.log.dirs.io.max.bytes.per.second)",
          "[log][move]") {
  TempDir d;
  LogManager m(two_dirs(d));
  REQUIRE(outcome(m.create_topic(kTp.topic, 1)) == LogErrc::kNone);
  for (int i = 0; i < 300; ++i) append_one(m, i);  // ~100 KB
  auto& mover = m.replica_mover();
  mover.set_manual();
  mover.set_rate(100'000);
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(mover.request(kTp, 1 - dir_of(m)) == LogErrc::kNone);
  mover.run_pending();
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(800));
  CHECK(served(m) == iota(300));
}
