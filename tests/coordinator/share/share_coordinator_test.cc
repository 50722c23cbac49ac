// The share coordinator's host (coordinator/share/share_coordinator.h) over a
// real __share_group_state in a temp dir: answers, durability across a
// reopen, pruning, and acknowledged writes surviving kill -9.
#include "coordinator/share/share_coordinator.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <future>

#include "log/log_manager.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::sharecoord;

namespace {

struct Answer {
  ErrorCode error = ErrorCode::kUnknownServerError;
  std::string message;
  ShareState state;
  ShareSummary summary;
};

template <typename F>
Answer wait_for(F start) {
  auto p = std::make_shared<std::promise<Answer>>();
  auto f = p->get_future();
  start(p);
  REQUIRE(f.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  return f.get();
}

struct Fixture {
  test::TempDir dir{"skiff-share-coordinator"};
  std::unique_ptr<storage::LogManager> logs;
  std::unique_ptr<ShareCoordinator> coordinator;
  Uuid topic;
  ShareCoordinatorConfig config;

  Fixture() {
    config.num_partitions = 3;
    config.segment_bytes = 64 * 1024;
    config.core.updates_per_snapshot = 5;
    open_logs();
    auto created = logs->create_topic("orders", 3, {});
    REQUIRE(created);
    topic = created->topic_id;
    start();
  }
  ~Fixture() {
    if (coordinator) coordinator->stop();
    if (logs) logs->shutdown();
  }
  storage::LogManagerConfig log_config() const {
    storage::LogManagerConfig c;
    c.log_dirs = {dir.path() / "logs"};
    return c;
  }
  void open_logs() { logs = std::make_unique<storage::LogManager>(log_config()); }
  void start() {
    coordinator = std::make_unique<ShareCoordinator>(config, *logs);
    coordinator->start();
  }
  void reopen() {
    coordinator->stop();
    coordinator.reset();
    logs->shutdown();
    open_logs();
    start();
  }
  Key key(int32_t p, std::string group = "g") const { return {std::move(group), topic, p}; }

  Answer init(const Key& k, int32_t state_epoch, int64_t start) {
    return wait_for([&](auto p) {
      coordinator->initialize(k, state_epoch, start, [p](ErrorCode e, std::string m) { p->set_value({e, m, {}, {}}); });
    });
  }
  Answer write(const Key& k, int32_t state_epoch, int32_t leader, int64_t start, std::vector<StateBatch> b) {
    return wait_for([&](auto p) {
      coordinator->write(k, state_epoch, leader, start, -1, b, [p](ErrorCode e, std::string m) {
        p->set_value({e, m, {}, {}});
      });
    });
  }
  Answer read(const Key& k, int32_t leader) {
    return wait_for([&](auto p) {
      coordinator->read(k, leader, [p](ErrorCode e, std::string m, ShareState s) { p->set_value({e, m, s, {}}); });
    });
  }
  Answer summary(const Key& k) {
    return wait_for([&](auto p) {
      coordinator->read_summary(k, [p](ErrorCode e, std::string m, ShareSummary s) { p->set_value({e, m, {}, s}); });
    });
  }
  Answer remove(const Key& k) {
    return wait_for([&](auto p) {
      coordinator->remove(k, [p](ErrorCode e, std::string m) { p->set_value({e, m, {}, {}}); });
    });
  }
};

// Kills the child if the test stops before it did (a failed REQUIRE).
struct ChildGuard {
  pid_t pid;
  ~ChildGuard() {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

}  // namespace

TEST_CASE("share coordinator: initialize, write, read, summary, delete survive a reopen", "[share][coordinator]") {
  Fixture f;
  REQUIRE(f.init(f.key(0), 1, 0).error == ErrorCode::kNone);
  REQUIRE(f.init(f.key(1), 1, 0).error == ErrorCode::kNone);
  REQUIRE(f.read(f.key(0), 2).error == ErrorCode::kNone);
  for (int i = 0; i < 12; ++i) REQUIRE(f.write(f.key(0), 1, 2, i, {{i, i + 3, 2, 1}}).error == ErrorCode::kNone);
  CHECK(f.write(f.key(0), 0, 2, 0, {}).error == ErrorCode::kFencedStateEpoch);
  CHECK(f.read(f.key(0), 1).error == ErrorCode::kFencedLeaderEpoch);
  CHECK(f.init(f.key(5), 1, 0).error == ErrorCode::kUnknownTopicOrPartition);  // "orders" has 3 partitions
  REQUIRE(f.remove(f.key(1)).error == ErrorCode::kNone);
  const auto before = f.read(f.key(0), 2);
  REQUIRE(before.error == ErrorCode::kNone);
  CHECK(before.state.start_offset == 11);
  CHECK(before.state.batches == std::vector<StateBatch>{{11, 14, 2, 1}});

  f.reopen();
  const auto after = f.read(f.key(0), 2);
  REQUIRE(after.error == ErrorCode::kNone);
  CHECK(after.state == before.state);
  CHECK(f.read(f.key(0), 1).error == ErrorCode::kFencedLeaderEpoch);  // the leader epoch is durable too
  auto s = f.summary(f.key(0));
  CHECK(s.summary.start_offset == 11);
  CHECK(s.summary.leader_epoch == 2);
  CHECK(s.summary.state_epoch == 1);
  CHECK(f.read(f.key(1), 0).error == ErrorCode::kInvalidRequest);  // deleted
  CHECK(f.summary(f.key(1)).summary.start_offset == -1);
}

TEST_CASE("share coordinator: __share_group_state is cleanup.policy=delete and pruned", "[share][coordinator]") {
  Fixture f;
  REQUIRE(f.init(f.key(0), 0, 0).error == ErrorCode::kNone);
  for (int i = 0; i < 40; ++i) REQUIRE(f.write(f.key(0), 0, 0, i, {{i, i, 2, 1}}).error == ErrorCode::kNone);
  auto info = f.logs->topic(kShareGroupStateTopic);
  REQUIRE(info);
  CHECK(info->overrides.at("cleanup.policy") == "delete");
  CHECK(info->overrides.at("retention.ms") == "-1");
  CHECK(info->partitions == 3);

  const int32_t p = f.coordinator->partition_for(f.key(0));
  const auto before = f.read(f.key(0), 0);
  auto done = std::make_shared<std::promise<void>>();
  f.coordinator->run_periodic_jobs([done] { done->set_value(); });
  REQUIRE(done->get_future().wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  CHECK(f.logs->get_log(kShareGroupStateTopic, p)->log_start_offset().value > 30);
  f.reopen();
  CHECK(f.read(f.key(0), 0).state == before.state);
}

TEST_CASE("share coordinator: deleting a topic deletes its share-partitions' state", "[share][coordinator]") {
  Fixture f;
  REQUIRE(f.init(f.key(0), 0, 0).error == ErrorCode::kNone);
  REQUIRE(f.logs->delete_topic("orders"));
  auto done = std::make_shared<std::promise<void>>();
  f.coordinator->run_periodic_jobs([done] { done->set_value(); });
  REQUIRE(done->get_future().wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  f.reopen();
  // Gone (uninitialized), not kept (which would answer UNKNOWN_TOPIC_OR_PARTITION).
  CHECK(f.read(f.key(0), 0).error == ErrorCode::kInvalidRequest);
}

// A child acknowledges writes through a pipe and is killed by SIGKILL at a
// point of its work; every acknowledged write must be there after a restart.
TEST_CASE("share coordinator: acknowledged writes survive kill -9", "[share][coordinator][durability]") {
  Fixture f;
  REQUIRE(f.init(f.key(0), 0, 0).error == ErrorCode::kNone);
  f.coordinator->stop();
  f.coordinator.reset();
  f.logs->shutdown();
  f.logs.reset();
  int64_t acked_total = 0;
  for (int round = 0; round < 4; ++round) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const int64_t first = acked_total;
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the test
      close(fds[0]);
      storage::LogManager logs(f.log_config());
      ShareCoordinator c(f.config, logs);
      c.start();
      const Key k = f.key(0);
      for (int64_t i = first;; ++i) {  // one acknowledged write per offset, unbounded
        std::promise<ErrorCode> p;
        c.write(k, 0, 0, -1, -1, {{i, i, 2, 1}}, [&p](ErrorCode e, const std::string&) { p.set_value(e); });
        if (p.get_future().get() != ErrorCode::kNone) _exit(1);
        if (write(fds[1], &i, sizeof i) != sizeof i) _exit(1);
      }
    }
    ChildGuard guard{child};
    close(fds[1]);
    const int64_t kill_after = 20 + round * 15;
    int64_t last = -1;
    for (int64_t n = 0; n < kill_after; ++n) REQUIRE(read(fds[0], &last, sizeof last) == sizeof last);
    kill(child, SIGKILL);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    guard.pid = -1;
    CHECK(WIFSIGNALED(status));
    close(fds[0]);
    acked_total = last + 1;

    f.open_logs();
    f.start();
    auto r = f.read(f.key(0), 0);
    REQUIRE(r.error == ErrorCode::kNone);
    REQUIRE_FALSE(r.state.batches.empty());
    // Coalesced: one acknowledged range from 0, at least to the last acknowledged offset.
    CHECK(r.state.batches.front().first_offset == 0);
    CHECK(r.state.batches.front().last_offset >= last);
    acked_total = r.state.batches.back().last_offset + 1;
    f.coordinator->stop();
    f.coordinator.reset();
    f.logs->shutdown();
    f.logs.reset();
  }
}
