// The coordinators' one internal-topic runtime: StateTopic (creation,
// adoption, replay, appends, flushes, re-creation after a deletion) and its
// FlushQueue (group commit for writers that must not block).
#include "coordinator/runtime/state_topic.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "log/batch_builder.h"
#include "log/log_manager.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using coordinator::FlushPoints;
using coordinator::FlushQueue;
using coordinator::StateTopic;

namespace {

FlushPoints at(int32_t partition, int64_t end) {
  FlushPoints p;
  p.ends[partition] = end;
  return p;
}

std::vector<uint8_t> batch_of(const std::string& key, std::optional<std::string> value) {
  storage::BatchBuilder b;
  b.add(key, value ? std::optional<std::string_view>(*value) : std::nullopt, 1000);
  return b.build();
}

struct Logs {
  test::TempDir dir{"skiff-state-topic"};
  std::unique_ptr<storage::LogManager> logs;
  Logs() { reopen(); }
  void reopen() {
    if (logs) logs->shutdown();
    storage::LogManagerConfig c;
    c.log_dirs = {dir.path() / "logs"};
    logs = std::make_unique<storage::LogManager>(c);
  }
};

// Every (partition, key, value) replayed, in order.
std::vector<std::string> replayed(const StateTopic& t) {
  std::vector<std::string> out;
  int32_t partition = -1;
  t.replay([&](int32_t p) { partition = p; },
           [&](const storage::RecordBatchView& b) {
             coordinator::for_each_record(b, t.name(), [&](auto key, auto value) {
               std::string k(key.begin(), key.end());
               std::string v = value ? std::string(value->begin(), value->end()) : "<null>";
               out.push_back(std::to_string(partition) + ":" + k + "=" + v);
             });
           });
  return out;
}

}  // namespace

TEST_CASE("FlushQueue: concurrent writers share flushes, each completes once its end is durable",
          "[coordinator][runtime]") {
  std::mutex mu;
  int64_t durable = 0;
  int flushes = 0;
  FlushQueue q([&](const FlushPoints& p) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard lock(mu);
    ++flushes;
    durable = std::max(durable, p.ends.at(0));
    return true;
  });
  constexpr int kThreads = 4, kEach = 25;
  std::atomic<int> completed{0}, early{0};
  std::vector<std::thread> writers;
  writers.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t)
    writers.emplace_back([&, t] {
      for (int i = 1; i <= kEach; ++i) {
        const int64_t end = t * 1000 + i;
        q.submit(at(0, end), [&, end](bool ok) {
          std::lock_guard lock(mu);
          if (!ok || durable < end) ++early;
          ++completed;
        });
      }
    });
  for (auto& w : writers) w.join();
  q.stop();
  CHECK(completed == kThreads * kEach);
  CHECK(early == 0);
  CHECK(flushes < kThreads * kEach);  // 100 submissions over 5 ms flushes: shared
}

TEST_CASE("FlushQueue: completions run in submission order, a failed flush fails its whole batch",
          "[coordinator][runtime]") {
  bool fail = false;
  FlushQueue q([&](const FlushPoints&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return !fail;
  });
  std::vector<int> order;
  std::vector<bool> results;
  std::mutex mu;
  for (int i = 0; i < 20; ++i)
    q.submit(at(0, i), [&, i](bool ok) {
      std::lock_guard lock(mu);
      order.push_back(i);
      results.push_back(ok);
    });
  q.stop();
  std::vector<int> expected(20);
  for (int i = 0; i < 20; ++i) expected[i] = i;
  CHECK(order == expected);
  CHECK(std::count(results.begin(), results.end(), true) == 20);
  fail = true;
  bool got = true;
  q.submit(at(0, 1), [&](bool ok) { got = ok; });  // after stop(): runs on this thread
  CHECK_FALSE(got);
}

TEST_CASE("StateTopic: created compacted on first write, replayed in order, adopted with its own partition count",
          "[coordinator][runtime]") {
  Logs l;
  {
    StateTopic t(*l.logs, {"__state_test", 3, 1 << 20});
    t.open();
    CHECK_FALSE(t.exists());
    CHECK(replayed(t).empty());
    auto a = t.append(2, batch_of("k1", "v1"));
    REQUIRE(a);
    CHECK(a->ends.at(2) == 1);
    auto b = t.append(0, batch_of("k2", std::nullopt));
    REQUIRE(b);
    a->merge(*b);
    CHECK(t.flush(*a));
    bool durable = false;
    t.flush_async(*t.append(2, batch_of("k3", "v3")), [&](bool ok) { durable = ok; });
    t.stop();
    CHECK(durable);
    auto info = l.logs->topic("__state_test");
    REQUIRE(info);
    CHECK(info->partitions == 3);
    CHECK(l.logs->get_log("__state_test", 0)->config()->compact);
    CHECK(l.logs->get_log("__state_test", 2)->recovery_point().value >= 2);
  }
  l.reopen();
  StateTopic again(*l.logs, {"__state_test", 7, 1 << 20});
  again.open();
  CHECK(again.exists());
  CHECK(again.partitions() == 3);  // the topic's own count, not the configured 7
  CHECK(replayed(again) == std::vector<std::string>{"0:k2=<null>", "2:k1=v1", "2:k3=v3"});
}

TEST_CASE("StateTopic: after an admin deleted the topic, the next write creates it again, empty",
          "[coordinator][runtime]") {
  Logs l;
  StateTopic t(*l.logs, {"__state_test", 1, 1 << 20});
  REQUIRE(t.append(0, batch_of("k", "v")));
  REQUIRE(outcome(l.logs->delete_topic("__state_test")) == storage::LogErrc::kNone);
  CHECK_FALSE(t.exists());
  auto w = t.append(0, batch_of("k2", "v2"));
  REQUIRE(w);
  CHECK(w->ends.at(0) == 1);
  CHECK(t.flush(*w));
  CHECK(replayed(t) == std::vector<std::string>{"0:k2=v2"});
}

TEST_CASE("for_each_record refuses a record without a key, naming the topic", "[coordinator][runtime]") {
  // The log refuses such a record on a compacted topic already; replay does
  // not rely on it (a segment written by something else).
  storage::BatchBuilder b;
  b.add(std::nullopt, std::optional<std::string_view>("v"), 1000);
  auto bytes = b.build();
  storage::BatchIterator batches(bytes);
  storage::RecordBatchView batch;
  REQUIRE(batches.next(batch));
  CHECK_THROWS_WITH(coordinator::for_each_record(batch, "__state_test", [](auto, auto) {}),
                    Catch::Contains("__state_test: record without a key"));
}
