// Streams groups' member reconciliation (coordinator/group/streams/streams_member_reconciler.h):
// the transitions of Kafka 4.4's streams CurrentAssignmentBuilderTest, the
// in-place role changes (demotion, promotion, standby <-> warm-up), and a
// group model checked after every step: no task ever has two active owners,
// no process ever holds one task twice.
#include <catch2/catch.hpp>
#include <random>

#include "coordinator/group/streams/streams_member_reconciler.h"

namespace skiff::test {
namespace {

using namespace group::streams;

const char* const kSub = "s";

TaskEpochs at(int32_t epoch, const std::set<int32_t>& parts) {
  TaskEpochs out;
  for (int32_t p : parts) out[kSub][p] = epoch;
  return out;
}

TaskSet tasks(std::set<int32_t> parts) { return parts.empty() ? TaskSet{} : TaskSet{{kSub, std::move(parts)}}; }

MemberAssignmentState member(const std::string& process, MemberState state, int32_t epoch, TasksWithEpochs assigned,
                             TasksWithEpochs pending = {}) {
  return MemberAssignmentState{process, state, epoch, epoch - 1, std::move(assigned), std::move(pending)};
}

ReconcileResult step(const MemberAssignmentState& m, int32_t epoch, const TasksTuple& target, const TasksTuple* owned,
                     const TaskOwnership& owners) {
  return reconcile(m, ReconcileInput{epoch, &target, owned, &owners});
}

TEST_CASE("streams reconciler: STABLE moves to a new target epoch keeping its tasks and their epochs",
          "[kip1071][reconciler]") {
  TaskOwnership owners;
  const auto m = member("p1", MemberState::kStable, 10, {at(9, {0, 1}), {}, {}});
  owners.update({}, m);
  // Same epoch: nothing to do.
  CHECK(step(m, 10, {tasks({0, 1}), {}, {}}, nullptr, owners).member == m);
  const auto r = step(m, 11, {tasks({0, 1}), {}, {}}, nullptr, owners).member;
  CHECK(r.state == MemberState::kStable);
  CHECK(r.member_epoch == 11);
  CHECK(r.previous_member_epoch == 10);
  CHECK(r.assigned.active == at(9, {0, 1}));
}

TEST_CASE("streams reconciler: free new tasks are given at the target epoch", "[kip1071][reconciler]") {
  TaskOwnership owners;
  const auto m = member("p1", MemberState::kStable, 10, {at(10, {0}), {}, {}});
  owners.update({}, m);
  const auto r = step(m, 11, {tasks({0, 1}), tasks({2}), tasks({3})}, nullptr, owners).member;
  CHECK(r.state == MemberState::kStable);
  CHECK(r.member_epoch == 11);
  CHECK(r.assigned.active == TaskEpochs{{kSub, {{0, 10}, {1, 11}}}});
  CHECK(r.assigned.standby == tasks({2}));
  CHECK(r.assigned.warmup == tasks({3}));
}

TEST_CASE("streams reconciler: tasks to revoke keep the epoch until the member stops owning them",
          "[kip1071][reconciler]") {
  TaskOwnership owners;
  const auto m = member("p1", MemberState::kStable, 10, {at(10, {0, 1}), tasks({5}), {}});
  owners.update({}, m);
  const TasksTuple target{tasks({0, 2}), {}, {}};
  const auto r = step(m, 11, target, nullptr, owners).member;
  CHECK(r.state == MemberState::kUnrevokedTasks);
  CHECK(r.member_epoch == 10);
  CHECK(r.assigned.active == at(10, {0}));
  CHECK(r.pending_revocation.active == at(10, {1}));
  CHECK(r.pending_revocation.standby == tasks({5}));
  owners.update(m, r);

  // Without owned tasks, or still owning one of them: no progress.
  CHECK(step(r, 11, target, nullptr, owners).member == r);
  const TasksTuple still{tasks({0, 1}), {}, {}};
  CHECK(step(r, 11, target, &still, owners).member == r);
  const TasksTuple standby_kept{tasks({0}), tasks({5}), {}};
  CHECK(step(r, 11, target, &standby_kept, owners).member == r);

  // Revoked: the epoch moves and the new task is given.
  const TasksTuple released{tasks({0}), {}, {}};
  owners.update(r, MemberAssignmentState{"p1", MemberState::kStable, 10, 9, {at(10, {0}), {}, {}}, {}});
  const auto s = step(r, 11, target, &released, owners).member;
  CHECK(s.state == MemberState::kStable);
  CHECK(s.member_epoch == 11);
  CHECK(s.previous_member_epoch == 10);
  CHECK(s.assigned.active == TaskEpochs{{kSub, {{0, 10}, {2, 11}}}});
  CHECK(s.pending_revocation.empty());
}

TEST_CASE("streams reconciler: an active task moves only once its owner revoked it", "[kip1071][reconciler]") {
  TaskOwnership owners;
  auto a = member("p1", MemberState::kStable, 1, {at(1, {0, 1}), {}, {}});
  owners.update({}, a);
  // b joins on another process; target epoch 2 gives it task 1.
  MemberAssignmentState b0{"p2", MemberState::kStable, 0, -1, {}, {}};
  const TasksTuple ta{tasks({0}), {}, {}}, tb{tasks({1}), {}, {}};
  auto b = step(b0, 2, tb, nullptr, owners).member;
  CHECK(b.state == MemberState::kUnreleasedTasks);
  CHECK(b.member_epoch == 2);
  CHECK(b.assigned.empty());
  owners.update(b0, b);

  auto a2 = step(a, 2, ta, nullptr, owners).member;
  CHECK(a2.state == MemberState::kUnrevokedTasks);
  owners.update(a, a2);
  // Still unreleased while a holds it pending revocation.
  CHECK(step(b, 2, tb, nullptr, owners).member.assigned.empty());

  const TasksTuple a_owned{tasks({0}), {}, {}};
  auto a3 = step(a2, 2, ta, &a_owned, owners).member;
  CHECK(a3.state == MemberState::kStable);
  CHECK(a3.member_epoch == 2);
  owners.update(a2, a3);
  auto b2 = step(b, 2, tb, nullptr, owners).member;
  CHECK(b2.state == MemberState::kStable);
  CHECK(b2.assigned.active == at(2, {1}));
  // At the same epoch the previous epoch is not overwritten (a lost response
  // stays acceptable): Skiff keeps it, as its consumer reconciler does.
  CHECK(b2.previous_member_epoch == 0);
}

TEST_CASE("streams reconciler: a standby waits for another member of its process, not of others",
          "[kip1071][reconciler]") {
  TaskOwnership owners;
  const auto other_process = member("p2", MemberState::kStable, 1, {{}, tasks({0}), {}});
  const auto same_process = member("p1", MemberState::kStable, 1, {{}, tasks({1}), {}});
  owners.update({}, other_process);
  owners.update({}, same_process);
  MemberAssignmentState m0{"p1", MemberState::kStable, 0, -1, {}, {}};
  const auto r = step(m0, 2, {{}, tasks({0, 1}), {}}, nullptr, owners).member;
  CHECK(r.state == MemberState::kUnreleasedTasks);
  CHECK(r.assigned.standby == tasks({0}));
  // A warm-up cannot go where its active task runs.
  const auto active_here = member("p1", MemberState::kStable, 1, {at(1, {7}), {}, {}});
  owners.update({}, active_here);
  const auto w = step(m0, 2, {{}, {}, tasks({7})}, nullptr, owners).member;
  CHECK(w.state == MemberState::kUnreleasedTasks);
  CHECK(w.assigned.warmup.empty());
}

TEST_CASE("streams reconciler: a demoted active task is a standby at once and still revoked", "[kip1071][reconciler]") {
  TaskOwnership owners;
  const auto m = member("p1", MemberState::kStable, 3, {at(3, {0}), {}, {}});
  owners.update({}, m);
  const auto r = step(m, 4, {{}, tasks({0}), {}}, nullptr, owners).member;
  CHECK(r.state == MemberState::kUnrevokedTasks);
  CHECK(r.assigned.standby == tasks({0}));
  CHECK(r.assigned.active.empty());
  CHECK(r.pending_revocation.active == at(3, {0}));
  CHECK(r.member_epoch == 3);
}

TEST_CASE("streams reconciler: a standby promoted to active is kept until the active task is free",
          "[kip1071][reconciler]") {
  TaskOwnership owners;
  const auto owner = member("p2", MemberState::kStable, 3, {at(3, {0}), {}, {}});
  const auto m = member("p1", MemberState::kStable, 3, {{}, tasks({0}), {}});
  owners.update({}, owner);
  owners.update({}, m);
  const TasksTuple target{tasks({0}), {}, {}};
  const auto r = step(m, 4, target, nullptr, owners).member;
  CHECK(r.state == MemberState::kUnreleasedTasks);
  CHECK(r.assigned.standby == tasks({0}));  // kept, not revoked
  CHECK(r.pending_revocation.empty());
  owners.update(m, r);
  owners.remove(owner);
  const auto s = step(r, 4, target, nullptr, owners).member;
  CHECK(s.state == MemberState::kStable);
  CHECK(s.assigned.active == at(4, {0}));
  CHECK(s.assigned.standby.empty());  // superseded in the same step
}

TEST_CASE("streams reconciler: standby and warm-up swap roles in place", "[kip1071][reconciler]") {
  TaskOwnership owners;
  const auto m = member("p1", MemberState::kStable, 3, {{}, tasks({0}), tasks({1})});
  owners.update({}, m);
  const auto r = step(m, 4, {{}, tasks({1}), tasks({0})}, nullptr, owners).member;
  CHECK(r.state == MemberState::kStable);
  CHECK(r.assigned.standby == tasks({1}));
  CHECK(r.assigned.warmup == tasks({0}));
  CHECK(r.pending_revocation.empty());
}

TEST_CASE("streams reconciler: UNKNOWN is fenced unless the member owns nothing", "[kip1071][reconciler]") {
  TaskOwnership owners;
  const auto m = member("p1", MemberState::kUnknown, 3, {at(3, {0}), {}, {}});
  const TasksTuple target{tasks({0}), {}, {}};
  auto r = step(m, 4, target, nullptr, owners);
  REQUIRE(r.fenced);
  CHECK(*r.fenced ==
        "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.");
  const TasksTuple some{tasks({0}), {}, {}};
  CHECK(step(m, 4, target, &some, owners).fenced);
  const TasksTuple none;
  r = step(m, 4, target, &none, owners);
  CHECK_FALSE(r.fenced);
  CHECK(r.member.state == MemberState::kStable);
  CHECK(r.member.member_epoch == 4);
  CHECK(member_state_from(42) == MemberState::kUnknown);
  CHECK(member_state_name(MemberState::kUnrevokedTasks) == std::string("UNREVOKED_TASKS"));
}

// ---- A group model: members on processes, random targets; heartbeats that
// report owned tasks, or not; checked after every step.

struct ModelMember {
  MemberAssignmentState state;
  TasksTuple owned;  // what the client runs (it drops revoked tasks when told)
};

TasksTuple client_view(const MemberAssignmentState& s) {
  return TasksTuple{task_set(s.assigned.active), s.assigned.standby, s.assigned.warmup};
}

// No task has two active owners; within a process, one member at most
// holds a task (that member may hold it twice only while demoting it in
// place: active pending revocation and standby).
void check_group(const std::map<std::string, ModelMember>& members) {
  std::map<int32_t, int> active;
  std::map<std::pair<std::string, int32_t>, std::set<std::string>> holders;
  for (const auto& [id, m] : members)
    for (const TasksWithEpochs* t : {&m.state.assigned, &m.state.pending_revocation}) {
      for (const auto& [sub, parts] : t->active)
        for (const auto& [p, e] : parts) {
          CHECK(++active[p] == 1);
          holders[{m.state.process_id, p}].insert(id);
        }
      for (const TaskSet* roles : {&t->standby, &t->warmup})
        for (const auto& [sub, parts] : *roles)
          for (int32_t p : parts) holders[{m.state.process_id, p}].insert(id);
    }
  for (const auto& [key, who] : holders) {
    INFO("process " << key.first << " task " << key.second);
    CHECK(who.size() == 1);
  }
  for (const auto& [id, m] : members) {
    const auto& a = m.state.assigned;
    for (const auto& [sub, parts] : a.active)
      for (const auto& [p, e] : parts)
        CHECK_FALSE((contains_task(a.standby, sub, p) || contains_task(a.warmup, sub, p)));
    for (const auto& [sub, parts] : a.standby)
      for (int32_t p : parts) CHECK_FALSE(contains_task(a.warmup, sub, p));
  }
}

TEST_CASE("streams reconciler: a random group never runs a task twice and converges", "[kip1071][reconciler]") {
  std::mt19937 rng(1071);
  for (int round = 0; round < 40; ++round) {
    std::map<std::string, ModelMember> members;
    TaskOwnership owners;
    for (int i = 0; i < 4; ++i) members["m" + std::to_string(i)].state.process_id = "p" + std::to_string(i % 3);
    int32_t epoch = 0;
    std::map<std::string, TasksTuple> targets;
    for (int change = 0; change < 5; ++change) {
      ++epoch;
      // A random target: each of 6 tasks active on one member, a standby on
      // a member of another process, now and then a warm-up elsewhere.
      targets.clear();
      std::vector<std::string> ids;
      for (const auto& [id, m] : members) ids.push_back(id), targets[id];
      for (int32_t p = 0; p < 6; ++p) {
        const auto& a = ids[rng() % ids.size()];
        add_task(targets[a].active, kSub, p);
        for (const auto& b : ids)
          if (members[b].state.process_id != members[a].state.process_id) {
            add_task((rng() % 3 ? targets[b].standby : targets[b].warmup), kSub, p);
            break;
          }
      }
      for (int hb = 0; hb < 12; ++hb)
        for (auto& [id, m] : members) {
          const bool report = rng() % 4 != 0;
          const auto r = step(m.state, epoch, targets[id], report ? &m.owned : nullptr, owners);
          REQUIRE_FALSE(r.fenced);
          owners.update(m.state, r.member);
          m.state = r.member;
          m.owned = client_view(m.state);
          check_group(members);
        }
    }
    // With every heartbeat reporting, everyone reaches its target.
    for (int hb = 0; hb < 6; ++hb)
      for (auto& [id, m] : members) {
        const auto r = step(m.state, epoch, targets[id], &m.owned, owners);
        owners.update(m.state, r.member);
        m.state = r.member;
        m.owned = client_view(m.state);
      }
    for (const auto& [id, m] : members) {
      INFO("round " << round << " member " << id);
      CHECK(m.state.state == MemberState::kStable);
      CHECK(m.state.member_epoch == epoch);
      CHECK(same_tasks(targets[id], m.state.assigned));
    }
  }
}

}  // namespace
}  // namespace skiff::test
