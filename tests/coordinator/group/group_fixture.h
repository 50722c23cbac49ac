// Test support for the group coordinator: a coordinator over a temp log dir,
// and Pending<T>, which captures a callback's answer that may arrive later
// on another thread (a timer, another member's request).
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "coordinator/group/group_coordinator.h"
#include "log/log_manager.h"
#include "tests/support/eventually.h"
#include "tests/support/temp_dir.h"

namespace skiff::test {

using namespace group;
using skiff::ErrorCode;

template <class T>
class Pending {
 public:
  Pending() : s_(std::make_shared<State>()) {}
  std::function<void(T)> callback() {
    return [s = s_](T v) {
      {
        std::lock_guard lock(s->mu);
        ++s->answers;  // checked in get(): Catch2 assertions are not thread-safe
        s->value = std::move(v);
      }
      s->cv.notify_all();
    };
  }
  bool ready() const {
    std::lock_guard lock(s_->mu);
    return s_->value.has_value();
  }
  // The answer, waiting for it up to `timeout`.
  T get(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(s_->mu);
    REQUIRE(s_->cv.wait_for(lock, timeout, [&] { return s_->value.has_value(); }));
    REQUIRE(s_->answers == 1);  // answered exactly once
    return *s_->value;
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<T> value;
    int answers = 0;
  };
  std::shared_ptr<State> s_;
};

// A ConsumerProtocolSubscription v0 naming `topics`.
inline Bytes subscription(const std::vector<std::string>& topics) {
  Bytes b{0, 0};
  auto put = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put(topics.size(), 4);
  for (auto& t : topics) {
    put(t.size(), 2);
    b.insert(b.end(), t.begin(), t.end());
  }
  put(0xffffffff, 4);  // null user data
  return b;
}

inline JoinGroupParams join_params(const std::string& group, const std::string& member_id = "",
                                   std::vector<std::string> protocols = {"range"}, int32_t session_ms = 10000,
                                   int32_t rebalance_ms = 10000) {
  JoinGroupParams p;
  p.group_id = group;
  p.member_id = member_id;
  p.client_id = "client";
  p.client_host = "/127.0.0.1";
  p.session_timeout_ms = session_ms;
  p.rebalance_timeout_ms = rebalance_ms;
  p.protocol_type = "consumer";
  for (auto& name : protocols) p.protocols.push_back({name, subscription({"topic"})});
  return p;
}

class GroupFixture {
 public:
  explicit GroupFixture(GroupConfig config = test_config()) : config_(config) { start(); }
  ~GroupFixture() { stop(); }  // before dir_ goes
  static GroupConfig test_config() {
    GroupConfig c;
    c.min_session_timeout_ms = 10;
    c.offsets_topic_num_partitions = 5;  // creating Kafka's 50 takes ~1 s per test
    return c;
  }
  // The coordinator over a LogManager of the temp dir (its __consumer_offsets).
  void start() {
    if (!logs) logs = std::make_unique<storage::LogManager>(log_config());
    coordinator = std::make_unique<GroupCoordinator>(config_, *logs);
  }
  // Coordinator and logs closed (as a broker stop).
  void stop() {
    coordinator.reset();
    if (logs) logs->shutdown();
    logs.reset();
  }
  void restart() {
    stop();
    start();
  }
  storage::LogManagerConfig log_config() const {
    storage::LogManagerConfig lc;
    lc.log_dirs = {dir_ / "logs"};
    return lc;
  }
  const std::filesystem::path& dir() const { return dir_.path(); }
  GroupCoordinator& c() { return *coordinator; }

  JoinGroupResult join(JoinGroupParams p) {
    Pending<JoinGroupResult> r;
    coordinator->join_group(std::move(p), r.callback());
    return r.get();
  }
  Pending<JoinGroupResult> start_join(JoinGroupParams p) {
    Pending<JoinGroupResult> r;
    coordinator->join_group(std::move(p), r.callback());
    return r;
  }
  Pending<SyncGroupResult> start_sync(const std::string& group, int32_t generation, const std::string& member,
                                      std::vector<std::pair<std::string, Bytes>> assignments = {}) {
    Pending<SyncGroupResult> r;
    SyncGroupParams p;
    p.group_id = group;
    p.generation_id = generation;
    p.member_id = member;
    p.assignments = std::move(assignments);
    coordinator->sync_group(std::move(p), r.callback());
    return r;
  }
  ErrorCode heartbeat(const std::string& group, int32_t generation, const std::string& member,
                      std::optional<std::string> instance = std::nullopt) {
    return coordinator->heartbeat({group, generation, member, std::move(instance)});
  }
  std::string state(const std::string& group) { return coordinator->describe_group(group).state; }

  // A single member joined and synced: returns its (member id, generation).
  std::pair<std::string, int32_t> stable_single(const std::string& group, Bytes assignment = {1, 2, 3}) {
    auto j = join(join_params(group));
    REQUIRE(j.error == ErrorCode::kNone);
    auto s = start_sync(group, j.generation_id, j.member_id, {{j.member_id, assignment}}).get();
    REQUIRE(s.error == ErrorCode::kNone);
    return {j.member_id, j.generation_id};
  }

  std::unique_ptr<storage::LogManager> logs;
  std::unique_ptr<GroupCoordinator> coordinator;

 private:
  GroupConfig config_;
  TempDir dir_{"skiff-groups-test"};
};

}  // namespace skiff::test
