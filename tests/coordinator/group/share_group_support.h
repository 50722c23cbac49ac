// Test support for KIP-932's share groups on the GroupCoordinator: a fake
// ShareStateInitializer (records every call; answers at once, or holds the
// answers back until release()), a coordinator with real topics in its
// LogManager, and a driver of share members' heartbeats.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/share_state_port.h"
#include "tests/coordinator/group/group_fixture.h"

namespace skiff::test {

class FakeShareState : public group::ShareStateInitializer {
 public:
  struct Init {
    std::string group;
    int32_t state_epoch = 0;
    std::vector<group::ShareStateStart> partitions;
  };

  void initialize(const std::string& group_id, int32_t state_epoch, std::vector<group::ShareStateStart> partitions,
                  ResultsCallback done) override {
    std::vector<group::ShareStateResult> results;
    {
      std::lock_guard lock(mu);
      inits.push_back({group_id, state_epoch, partitions});
      for (const auto& p : partitions) {
        results.push_back({p.partition, fail_init ? ErrorCode::kCoordinatorNotAvailable : ErrorCode::kNone, ""});
        if (!fail_init)
          summaries[p.partition] = {
              p.partition, ErrorCode::kNone, "", state_epoch, 0, p.start_offset < 0 ? 0 : p.start_offset, 0};
      }
      if (hold) {
        held.push_back([done, results] { done(results); });
        return;
      }
    }
    done(std::move(results));
  }
  void read_summary(const std::string& group_id, std::vector<group::SharePartitionId> partitions,
                    SummaryCallback done) override {
    std::vector<group::ShareStateSummary> out;
    {
      std::lock_guard lock(mu);
      reads.push_back(group_id);
      for (const auto& p : partitions) {
        auto it = summaries.find(p);
        if (it == summaries.end())
          out.push_back({p, ErrorCode::kUnknownTopicOrPartition, "no state", 0, -1, -1, -1});
        else
          out.push_back(it->second);
      }
    }
    done(std::move(out));
  }
  void remove(const std::string& group_id, std::vector<group::SharePartitionId> partitions,
              ResultsCallback done) override {
    std::vector<group::ShareStateResult> results;
    {
      std::lock_guard lock(mu);
      removes.push_back({group_id, 0, {}});
      for (const auto& p : partitions) {
        removes.back().partitions.push_back({p, -1});
        summaries.erase(p);
        results.push_back({p, ErrorCode::kNone, ""});
      }
    }
    done(std::move(results));
  }
  // Answers the initializations held back.
  void release() {
    std::vector<std::function<void()>> now;
    {
      std::lock_guard lock(mu);
      now.swap(held);
      hold = false;
    }
    for (auto& f : now) f();
  }

  std::mutex mu;
  std::vector<Init> inits;
  std::vector<Init> removes;  // state_epoch unused
  std::vector<std::string> reads;
  std::map<group::SharePartitionId, group::ShareStateSummary> summaries;
  bool fail_init = false;
  bool hold = false;
  std::vector<std::function<void()>> held;
};

inline GroupConfig share_config() {
  auto c = GroupFixture::test_config();
  c.share_assignment_interval_ms = 0;  // every heartbeat may compute the target
  return c;
}

// A coordinator with topics "foo" (4 partitions) and "bar" (2) and the fake port.
struct ShareFixture {
  explicit ShareFixture(GroupConfig config = share_config()) : f(config) {
    REQUIRE(f.logs->create_topic("foo", 4));
    REQUIRE(f.logs->create_topic("bar", 2));
    f.c().set_share_state(&port);
  }
  void restart() {
    f.restart();
    f.c().set_share_state(&port);
  }
  Uuid id(const std::string& topic) { return f.logs->topic(topic)->topic_id; }
  TopicResolver resolver() {
    auto* logs = f.logs.get();
    return [logs](const std::string& n) -> std::optional<group::consumer::TopicMetadata> {
      auto t = logs->topic(n);
      if (!t) return std::nullopt;
      return group::consumer::TopicMetadata{t->topic_id, n, t->partitions};
    };
  }
  ShareHeartbeatParams params(const std::string& member, int32_t epoch, std::string group = "s") {
    ShareHeartbeatParams p;
    p.group_id = std::move(group);
    p.member_id = member;
    p.member_epoch = epoch;
    p.client_id = "client-" + member;
    p.client_host = "/127.0.0.1";
    p.resolve = resolver();
    return p;
  }
  ShareHeartbeatResult join(const std::string& member, std::vector<std::string> topics = {"foo"},
                            std::string group = "s") {
    auto p = params(member, 0, std::move(group));
    p.subscribed_names = std::move(topics);
    auto r = f.c().share_heartbeat(p);
    if (r.assignment) held[member] = *r.assignment;
    return r;
  }
  ShareHeartbeatResult beat(const std::string& member, int32_t epoch, std::string group = "s") {
    return f.c().share_heartbeat(params(member, epoch, std::move(group)));
  }
  // Heartbeats until the member's epoch stops moving; its last answer with
  // the assignment it holds.
  ShareHeartbeatResult settle(const std::string& member, int32_t epoch, std::string group = "s") {
    ShareHeartbeatResult last;
    for (int i = 0; i < 5; ++i) {
      auto r = beat(member, epoch, group);
      REQUIRE(r.error == ErrorCode::kNone);
      if (r.assignment) held[member] = *r.assignment;
      last = r;
      if (r.member_epoch == epoch && i > 0) break;
      epoch = r.member_epoch;
    }
    last.assignment = held[member];
    return last;
  }

  FakeShareState port;
  GroupFixture f;
  std::map<std::string, group::consumer::Assignment> held;
};

}  // namespace skiff::test
