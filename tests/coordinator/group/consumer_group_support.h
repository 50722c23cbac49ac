// Test support for KIP-848's consumer groups on the GroupCoordinator: a
// fake topic resolver ("foo", 4 partitions) and a driver of members'
// heartbeats.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "tests/coordinator/group/group_fixture.h"

namespace skiff::test {
namespace consumer = skiff::group::consumer;

inline const Uuid kFoo{{1, 2}};

// The broker's topics as the heartbeat sees them: a resolver by name, the
// names (for regexes; `listings` counts the calls) and a version that every
// change moves, as LogManager::topics_generation().
struct Topics {
  std::map<std::string, consumer::TopicMetadata> by_name{{"foo", {kFoo, "foo", 4}}};
  uint64_t version = 1;
  int listings = 0;
  TopicResolver resolver() {
    return [this](const std::string& n) -> std::optional<consumer::TopicMetadata> {
      auto it = by_name.find(n);
      if (it == by_name.end()) return std::nullopt;
      return it->second;
    };
  }
  TopicNamesLister lister() {
    return [this] {
      ++listings;
      std::vector<std::string> names;
      for (const auto& [n, t] : by_name) names.push_back(n);
      return names;
    };
  }
  void set(const std::string& name, const Uuid& id, int32_t partitions) {
    by_name[name] = {id, name, partitions};
    ++version;
  }
  void erase(const std::string& name) {
    by_name.erase(name);
    ++version;
  }
};

inline consumer::Assignment parts(std::set<int32_t> ps) {
  if (ps.empty()) return {};
  return {{kFoo, std::move(ps)}};
}

class Members {
 public:
  explicit Members(GroupCoordinator& c) : c_(c) {}
  ConsumerHeartbeatParams base(const std::string& member, int32_t epoch) {
    ConsumerHeartbeatParams p;
    p.group_id = "g";
    p.member_id = member;
    p.member_epoch = epoch;
    p.client_id = "client";
    p.client_host = "/127.0.0.1";
    p.resolve = topics.resolver();
    p.topics_version = topics.version;
    p.list_topics = topics.lister();
    return p;
  }
  ConsumerHeartbeatResult join(const std::string& member, std::optional<std::string> instance = std::nullopt,
                               int32_t rebalance_ms = 10000) {
    auto p = base(member, 0);
    p.rebalance_timeout_ms = rebalance_ms;
    p.subscribed_names = std::vector<std::string>{"foo"};
    p.owned = consumer::Assignment{};
    p.instance_id = std::move(instance);
    return c_.consumer_heartbeat(p);
  }
  ConsumerHeartbeatResult beat(const std::string& member, int32_t epoch, std::optional<consumer::Assignment> owned) {
    auto p = base(member, epoch);
    p.owned = std::move(owned);
    return c_.consumer_heartbeat(p);
  }
  ConsumerHeartbeatResult leave(const std::string& member, int32_t epoch = -1,
                                std::optional<std::string> instance = std::nullopt) {
    auto p = base(member, epoch);
    p.instance_id = std::move(instance);
    return c_.consumer_heartbeat(p);
  }
  Topics topics;

 private:
  GroupCoordinator& c_;
};

}  // namespace skiff::test
