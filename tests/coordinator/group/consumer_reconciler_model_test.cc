// A model of a consumer-protocol group driven by the reconciler and the
// uniform assignor the way GroupMetadataManager.consumerGroupHeartbeat
// drives them: a membership or metadata change bumps the group epoch and
// recomputes the target at that epoch; a heartbeat checks the member epoch,
// reconciles, and swaps the member's partition ownership. Clients apply
// their responses as KIP-848 clients do (take the new partitions, revoke
// the others, maybe late), and sometimes lose a response. After every step:
// no partition is owned by two clients, nor by two members in the
// coordinator's view, and each client owns only what the coordinator counts
// as its own. When membership settles, prompt heartbeats converge every
// member to its target. Seeded, bounded, no threads, no clock.
#include <catch2/catch.hpp>
#include <random>

#include "coordinator/group/assignor_uniform.h"
#include "coordinator/group/consumer_member_reconciler.h"
#include "tests/coordinator/group/consumer_test_support.h"

namespace skiff::test {
namespace {

struct Client {
  int32_t epoch = 0;
  Assignment owned;
};

class GroupModel {
 public:
  explicit GroupModel(uint32_t seed) : rng_(seed) {
    for (uint8_t t = 1; t <= 3; ++t)
      topics_[topic_id(t)] = TopicMetadata{topic_id(t), "t", static_cast<int32_t>(2 + t)};
  }

  void random_step() {
    const auto r = rng_() % 100;
    if (members_.size() < 2 || (r < 10 && members_.size() < 8)) return join();
    expire_one_of_the_dead();
    if (r < 15) return leave(pick());
    if (r < 18) return kill(pick());
    if (r < 20) return grow();
    const std::string id = pick();
    if (!dead_.contains(id)) heartbeat(id, rng_() % 3 == 0, rng_() % 10 == 0, rng_() % 5 != 0);
  }

  // Prompt heartbeats until every member is at its target; false if not.
  bool converge() {
    while (!dead_.empty()) leave(*dead_.begin());  // their sessions expire
    for (int round = 0; round < 6; ++round) {
      for (auto& [id, _] : members_) heartbeat(id, true, false, true);
    }
    for (const auto& [id, m] : members_) {
      INFO(id << " " << member_state_name(m.state) << " epoch " << m.member_epoch << "/" << target_epoch_);
      CHECK(m.state == MemberState::kStable);
      if (m.state != MemberState::kStable || m.member_epoch != target_epoch_ || m.assigned != target_[id] ||
          clients_[id].owned != m.assigned) {
        return false;
      }
    }
    return true;
  }

 private:
  std::string pick() {
    auto it = members_.begin();
    std::advance(it, static_cast<long>(rng_() % members_.size()));
    return it->first;
  }

  void bump() {
    AssignmentSpec spec;
    spec.topics = topics_;
    for (const auto& [id, _] : members_)
      spec.members.push_back({id, std::nullopt, subs_[id], target_[id], std::nullopt});
    target_ = UniformAssignor().assign(spec);
    target_epoch_ = ++group_epoch_;
  }

  void join() {
    const std::string id = "m" + std::to_string(next_id_++);
    std::set<Uuid> subs;
    for (const auto& [t, _] : topics_) {
      if (rng_() % 3 != 0) subs.insert(t);
    }
    members_[id] = {};
    subs_[id] = subs;
    clients_[id] = {};
    bump();
    heartbeat(id, true, false, true);
  }

  // A leave (epoch -1) or a session expiry: the client has given up (or
  // lost) everything; the coordinator frees the partitions at once.
  void leave(const std::string& which) {
    const std::string id = which;  // a copy: callers pass ids held in dead_, erased first
    dead_.erase(id);
    owners_.remove(members_[id]);
    members_.erase(id);
    subs_.erase(id);
    clients_.erase(id);
    target_.erase(id);
    bump();
  }

  // kill -9: the process and what it owned are gone, but the coordinator
  // keeps counting the partitions as the member's (nobody else gets them)
  // until its session expires a few steps later.
  void kill(const std::string& id) {
    if (dead_.contains(id)) return;
    clients_.erase(id);
    dead_.insert(id);
  }

  void expire_one_of_the_dead() {
    if (dead_.empty() || rng_() % 4 != 0) return;
    leave(*dead_.begin());
  }

  void grow() {
    auto it = topics_.begin();
    std::advance(it, static_cast<long>(rng_() % topics_.size()));
    ++it->second.partitions;
    bump();
  }

  void heartbeat(const std::string& id, bool revoke_now, bool lose_response, bool send_owned) {
    Client& c = clients_[id];
    const MemberAssignmentState before = members_[id];
    if (check_member_epoch(before, c.epoch, &c.owned)) return fence(id);
    const Assignment owned = c.owned;
    auto r = reconcile(
        before, ReconcileInput{target_epoch_, &target_[id], &subs_[id], send_owned ? &owned : nullptr, &owners_});
    REQUIRE_FALSE(r.fenced);
    REQUIRE(owners_.update(before, r.member));
    members_[id] = r.member;
    ++seen[r.member.state];
    if (lose_response) return;
    c.epoch = r.member.member_epoch;
    for (const auto& [t, ps] : r.member.assigned) c.owned[t].insert(ps.begin(), ps.end());
    if (revoke_now) c.owned = r.member.assigned;  // else it revokes before a later heartbeat
  }

  // FENCED_MEMBER_EPOCH: the client abandons its partitions and rejoins at 0.
  void fence(const std::string& id) {
    ++seen_fences;
    owners_.remove(members_[id]);
    members_[id] = {};
    clients_[id] = {};
    bump();
  }

 public:
  // What the run went through, so the test cannot quietly stop covering it.
  std::map<MemberState, int> seen;
  int seen_fences = 0;

  void check_invariants() const {
    std::map<std::pair<Uuid, int32_t>, std::string> by_client;
    for (const auto& [id, c] : clients_) {
      const auto& m = members_.at(id);
      for (const auto& [t, ps] : c.owned) {
        for (int32_t p : ps) {
          INFO("client " << id << " partition " << p);
          REQUIRE(by_client.emplace(std::pair{t, p}, id).second);
          REQUIRE((contains(m.assigned, t, p) || contains(m.pending_revocation, t, p)));
          REQUIRE(owners_.epoch(t, p) == m.member_epoch);
        }
      }
    }
  }

 private:
  std::mt19937 rng_;
  std::map<Uuid, TopicMetadata> topics_;
  std::map<std::string, MemberAssignmentState> members_;
  std::map<std::string, std::set<Uuid>> subs_;
  std::map<std::string, Client> clients_;  // the live ones
  std::set<std::string> dead_;             // killed, session not expired yet
  TargetAssignment target_;
  PartitionOwnership owners_;
  int32_t group_epoch_ = 0, target_epoch_ = 0;
  int next_id_ = 0;
};

TEST_CASE("reconciler model: never two owners, and convergence to the target", "[kip848][reconciler]") {
  std::map<MemberState, int> seen;
  int fences = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    INFO("seed " << seed);
    GroupModel g(seed);
    for (int phase = 0; phase < 4; ++phase) {
      for (int i = 0; i < 150; ++i) {
        g.random_step();
        g.check_invariants();
      }
      REQUIRE(g.converge());
      g.check_invariants();
    }
    for (auto [state, n] : g.seen) seen[state] += n;
    fences += g.seen_fences;
  }
  CHECK(seen[MemberState::kUnrevokedPartitions] > 100);
  CHECK(seen[MemberState::kUnreleasedPartitions] > 100);
  CHECK(fences > 10);  // lost responses that left the client two epochs behind
}

}  // namespace
}  // namespace skiff::test
