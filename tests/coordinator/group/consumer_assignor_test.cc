// The KIP-848 assignors (coordinator/group/assignor_*.h): every subscribed partition
// assigned exactly once to a subscriber, uniform's balance and stickiness
// (moves counted against the minimum), range's co-partitioning, and the
// edges (no members, no topics, more members than partitions,
// heterogeneous subscriptions).
#include <catch2/catch.hpp>
#include <random>

#include "coordinator/group/assignor_range.h"
#include "coordinator/group/assignor_uniform.h"
#include "tests/coordinator/group/consumer_test_support.h"

namespace skiff::test {
namespace {

AssignmentSpec spec_of(const std::map<Uuid, int32_t>& topics) {
  AssignmentSpec s;
  uint8_t i = 0;
  for (auto [id, n] : topics) s.topics[id] = TopicMetadata{id, "t" + std::to_string(i++), n};
  return s;
}

void add_member(AssignmentSpec& s, std::string id, std::set<Uuid> subs, Assignment current = {}) {
  s.members.push_back(AssignorMember{std::move(id), std::nullopt, std::move(subs), std::move(current), std::nullopt});
}

// Every partition of a subscribed topic is held by exactly one subscriber.
void check_complete(const AssignmentSpec& s, const TargetAssignment& a) {
  std::map<std::pair<Uuid, int32_t>, std::string> owner;
  REQUIRE(owners_of(a, owner));
  REQUIRE(a.size() == s.members.size());
  for (const auto& [t, meta] : s.topics) {
    bool subscribed = false;
    for (const auto& m : s.members) subscribed = subscribed || m.subscribed.contains(t);
    for (int32_t p = 0; p < meta.partitions; ++p) {
      auto it = owner.find({t, p});
      REQUIRE((it != owner.end()) == subscribed);
      if (it == owner.end()) continue;
      const auto& m =
          *std::find_if(s.members.begin(), s.members.end(), [&](auto& x) { return x.member_id == it->second; });
      REQUIRE(m.subscribed.contains(t));
    }
  }
}

// Uniform's balance: no partition could move from a member to another
// subscriber of its topic holding two fewer.
void check_balanced(const AssignmentSpec& s, const TargetAssignment& a) {
  for (const auto& x : s.members) {
    for (const auto& y : s.members) {
      if (partition_count(a.at(x.member_id)) <= partition_count(a.at(y.member_id)) + 1) continue;
      for (const auto& [t, ps] : a.at(x.member_id)) {
        INFO(x.member_id << " could give to " << y.member_id);
        REQUIRE((ps.empty() || !y.subscribed.contains(t)));
      }
    }
  }
}

// Partitions that changed owner among the members present before and after.
size_t moves(const TargetAssignment& before, const TargetAssignment& after) {
  std::map<std::pair<Uuid, int32_t>, std::string> b, a;
  REQUIRE(owners_of(before, b));
  REQUIRE(owners_of(after, a));
  size_t n = 0;
  for (const auto& [tp, m] : b) {
    auto it = a.find(tp);
    if (after.contains(m) && it != a.end() && it->second != m) ++n;
  }
  return n;
}

AssignmentSpec next_spec(const AssignmentSpec& s, const TargetAssignment& a) {
  AssignmentSpec n = s;
  for (auto& m : n.members) m.current = a.at(m.member_id);
  return n;
}

const Uuid kT1 = topic_id(1), kT2 = topic_id(2), kT3 = topic_id(3);

TEST_CASE("assignors: names, and nothing to assign", "[kip848][assignor]") {
  REQUIRE(make_assignor("uniform")->name() == "uniform");
  REQUIRE(make_assignor("range")->name() == "range");
  REQUIRE(make_assignor("cooperative-sticky") == nullptr);
  for (const char* name : {"uniform", "range"}) {
    auto as = make_assignor(name);
    REQUIRE(as->assign(spec_of({{kT1, 3}})).empty());
    auto s = spec_of({});
    add_member(s, "a", {kT1});
    auto a = as->assign(s);
    REQUIRE(a.size() == 1);
    REQUIRE(a.at("a").empty());
  }
}

TEST_CASE("assignors: more members than partitions", "[kip848][assignor]") {
  for (const char* name : {"uniform", "range"}) {
    auto s = spec_of({{kT1, 3}});
    for (auto id : {"a", "b", "c", "d", "e"}) add_member(s, id, {kT1});
    auto a = make_assignor(name)->assign(s);
    check_complete(s, a);
    std::vector<size_t> counts;
    for (auto& [_, as] : a) counts.push_back(partition_count(as));
    std::sort(counts.begin(), counts.end());
    REQUIRE(counts == std::vector<size_t>{0, 0, 1, 1, 1});
  }
}

TEST_CASE("uniform: homogeneous subscriptions are balanced within one", "[kip848][assignor]") {
  auto s = spec_of({{kT1, 7}, {kT2, 5}, {kT3, 1}});
  for (auto id : {"m1", "m2", "m3", "m4", "m5"}) add_member(s, id, {kT1, kT2, kT3});
  auto a = UniformAssignor().assign(s);
  check_complete(s, a);
  check_balanced(s, a);
  for (auto& [_, as] : a) REQUIRE((partition_count(as) == 2 || partition_count(as) == 3));
  REQUIRE(UniformAssignor().assign(s) == a);  // deterministic
}

// The fewest moves a homogeneous group needs to rebalance `counts` (old
// members) plus `joined` empty members: the ceil slots go to those holding most.
size_t min_moves(std::vector<size_t> counts, size_t joined) {
  size_t total = 0;
  for (size_t c : counts) total += c;
  const size_t n = counts.size() + joined;
  std::sort(counts.rbegin(), counts.rend());
  size_t need = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const size_t quota = total / n + (i < total % n ? 1 : 0);
    if (counts[i] > quota) need += counts[i] - quota;
  }
  return need;
}

TEST_CASE("uniform: joins and leaves move the minimum number of partitions", "[kip848][assignor]") {
  std::mt19937 rng(848);
  auto s = spec_of({{kT1, 13}, {kT2, 8}});
  auto a = UniformAssignor().assign(s);
  int next_id = 0;
  for (int step = 0; step < 200; ++step) {
    s = next_spec(s, a);
    const bool join = s.members.size() < 2 || (s.members.size() < 30 && rng() % 2 == 0);
    std::vector<size_t> counts;
    for (auto& m : s.members) counts.push_back(partition_count(m.current));
    if (join) {
      add_member(s, "m" + std::to_string(next_id++), {kT1, kT2});
    } else {
      s.members.erase(s.members.begin() + static_cast<long>(rng() % s.members.size()));
    }
    auto b = UniformAssignor().assign(s);
    check_complete(s, b);
    check_balanced(s, b);
    INFO("step " << step << (join ? " join" : " leave"));
    REQUIRE(moves(a, b) == (join ? min_moves(counts, 1) : 0));
    a = b;
  }
}

TEST_CASE("uniform: heterogeneous subscriptions", "[kip848][assignor]") {
  SECTION("a chain of overlapping subscriptions") {
    auto s = spec_of({{kT1, 6}, {kT2, 6}});
    add_member(s, "a", {kT1});
    add_member(s, "b", {kT1, kT2});
    add_member(s, "c", {kT2});
    auto a = UniformAssignor().assign(s);
    check_complete(s, a);
    check_balanced(s, a);
    for (auto& [_, as] : a) REQUIRE(partition_count(as) == 4);
  }
  SECTION("random subscriptions, members joining and leaving") {
    std::mt19937 rng(17);
    auto s = spec_of({{kT1, 5}, {kT2, 9}, {kT3, 2}});
    const std::vector<Uuid> topics{kT1, kT2, kT3};
    auto a = UniformAssignor().assign(s);
    for (int step = 0; step < 300; ++step) {
      s = next_spec(s, a);
      if (s.members.size() < 2 || (s.members.size() < 12 && rng() % 2 == 0)) {
        std::set<Uuid> subs;
        for (const auto& t : topics) {
          if (rng() % 2 == 0) subs.insert(t);
        }
        add_member(s, "m" + std::to_string(step), subs);
      } else {
        s.members.erase(s.members.begin() + static_cast<long>(rng() % s.members.size()));
      }
      a = UniformAssignor().assign(s);
      check_complete(s, a);
      check_balanced(s, a);
    }
  }
}

TEST_CASE("uniform: keeps what is still valid, drops what is not", "[kip848][assignor]") {
  auto s = spec_of({{kT1, 4}});
  add_member(s, "a", {kT1}, parts(kT1, {0, 1}));
  add_member(s, "b", {kT1}, Assignment{{kT1, {2, 3, 7}}, {kT2, {0}}});  // 7 and kT2 are gone
  auto a = UniformAssignor().assign(s);
  REQUIRE(a.at("a") == parts(kT1, {0, 1}));
  REQUIRE(a.at("b") == parts(kT1, {2, 3}));
}

TEST_CASE("range: co-partitions topics with the same subscribers", "[kip848][assignor]") {
  auto s = spec_of({{kT1, 4}, {kT2, 4}, {kT3, 3}});
  for (auto id : {"c", "a", "b"}) add_member(s, id, {kT1, kT2});
  add_member(s, "d", {kT3});
  auto a = RangeAssignor().assign(s);
  check_complete(s, a);
  REQUIRE(a.at("a") == Assignment{{kT1, {0, 1}}, {kT2, {0, 1}}});
  REQUIRE(a.at("b") == Assignment{{kT1, {2}}, {kT2, {2}}});
  REQUIRE(a.at("c") == Assignment{{kT1, {3}}, {kT2, {3}}});
  REQUIRE(a.at("d") == parts(kT3, {0, 1, 2}));
}

TEST_CASE("range: each topic split among its own subscribers", "[kip848][assignor]") {
  auto s = spec_of({{kT1, 5}, {kT2, 2}});
  add_member(s, "a", {kT1, kT2});
  add_member(s, "b", {kT1});
  auto a = RangeAssignor().assign(s);
  check_complete(s, a);
  REQUIRE(a.at("a") == Assignment{{kT1, {0, 1, 2}}, {kT2, {0, 1}}});
  REQUIRE(a.at("b") == parts(kT1, {3, 4}));
}

TEST_CASE("range: static members first, by instance id, so a restart keeps the range", "[kip848][assignor]") {
  auto s = spec_of({{kT1, 4}});
  add_member(s, "a", {kT1});
  add_member(s, "zzz", {kT1});
  s.members.back().instance_id = "i1";
  auto a = RangeAssignor().assign(s);
  REQUIRE(a.at("zzz") == parts(kT1, {0, 1}));
  REQUIRE(a.at("a") == parts(kT1, {2, 3}));
  s.members.back().member_id = "0new";  // the static member restarted
  a = RangeAssignor().assign(s);
  REQUIRE(a.at("0new") == parts(kT1, {0, 1}));
  REQUIRE(a.at("a") == parts(kT1, {2, 3}));
}

}  // namespace
}  // namespace skiff::test
