// Streams groups' sticky task assignor (coordinator/group/streams/sticky_task_assignor.h):
// the cases of Kafka 4.4's StickyTaskAssignorTest (inputs and the properties
// it asserts), plus the invariants every assignment keeps (each active task
// exactly once, no process holding one task twice, balance).
#include "coordinator/group/streams/sticky_task_assignor.h"

#include <catch2/catch.hpp>
#include <random>

namespace skiff::test {
namespace {

using namespace group::streams;

AssignorMember on(const std::string& process, TaskSet active = {}, TaskSet standby = {}) {
  AssignorMember m;
  m.process_id = process;
  m.active = std::move(active);
  m.standby = std::move(standby);
  return m;
}

TopologyTasks one_subtopology(int32_t tasks, bool stateful, const std::string& id = "test-subtopology") {
  return TopologyTasks{{id, SubtopologyTasks{tasks, stateful}}};
}

size_t active_count(const GroupAssignment& a, const std::string& m) { return task_count(a.at(m).active); }
size_t standby_count(const GroupAssignment& a, const std::string& m) { return task_count(a.at(m).standby); }

// Every active task exactly once; no process holds a task twice in any role.
void check_invariants(const AssignorGroup& g, const TopologyTasks& topology, const GroupAssignment& a) {
  std::map<std::pair<std::string, int32_t>, int> actives;
  std::map<std::string, std::set<std::pair<std::string, int32_t>>> per_process;
  for (const auto& [member, tasks] : a) {
    const auto& process = g.members.at(member).process_id;
    for (const TaskSet* roles : {&tasks.active, &tasks.standby})
      for (const auto& [sub, parts] : *roles)
        for (int32_t p : parts) {
          INFO(member << " " << sub << "_" << p);
          CHECK(per_process[process].insert({sub, p}).second);
          if (roles == &tasks.active) ++actives[{sub, p}];
        }
    CHECK(tasks.warmup.empty());
  }
  size_t expected = 0;
  for (const auto& [sub, t] : topology) expected += static_cast<size_t>(t.tasks);
  CHECK(actives.size() == expected);
  for (const auto& [task, n] : actives) CHECK(n == 1);
}

TEST_CASE("sticky assignor: one active task per process when tasks equal processes", "[kip1071][assignor]") {
  AssignorGroup g;
  g.members = {{"member1", on("process1")}, {"member2", on("process2")}, {"member3", on("process3")}};
  const auto topo = one_subtopology(3, false);
  const auto a = sticky_assign(g, topo);
  REQUIRE(a.size() == 3);
  for (const auto& m : {"member1", "member2", "member3"}) CHECK(active_count(a, m) == 1);
  check_invariants(g, topo, a);
}

TEST_CASE("sticky assignor: subtopologies spread evenly over members, with and without standbys",
          "[kip1071][assignor]") {
  AssignorGroup g;
  for (const auto& p : {"process1", "process2", "process3"})
    for (const auto& n : {"_1", "_2"}) g.members[std::string("member") + p[7] + n] = on(p);
  TopologyTasks topo{{"test-subtopology1", {3, false}}, {"test-subtopology2", {3, false}}};
  auto a = sticky_assign(g, topo);
  for (const auto& [m, t] : a) CHECK(task_count(t.active) == 1);
  check_invariants(g, topo, a);

  topo = {{"test-subtopology1", {3, true}}, {"test-subtopology2", {3, true}}};
  g.num_standby_replicas = 1;
  a = sticky_assign(g, topo);
  for (const auto& [m, t] : a) {
    CHECK(task_count(t.active) == 1);
    CHECK(task_count(t.standby) == 1);
  }
  check_invariants(g, topo, a);
}

TEST_CASE("sticky assignor: an active task stays on its previous process", "[kip1071][assignor]") {
  AssignorGroup g;
  g.members = {{"member1", on("process1", {{"test-subtopology", {0}}})},
               {"member2", on("process2", {{"test-subtopology", {1}}})}};
  auto a = sticky_assign(g, one_subtopology(3, false));
  CHECK(contains_task(a.at("member1").active, "test-subtopology", 0));
  CHECK(contains_task(a.at("member2").active, "test-subtopology", 1));
  CHECK(active_count(a, "member1") + active_count(a, "member2") == 3);

  // Flip: member3 now runs on process1 with task 2.
  g.members = {{"member2", on("process2", {{"test-subtopology", {1}}})},
               {"member3", on("process1", {{"test-subtopology", {2}}})}};
  a = sticky_assign(g, one_subtopology(3, false));
  CHECK(contains_task(a.at("member2").active, "test-subtopology", 1));
  CHECK(contains_task(a.at("member3").active, "test-subtopology", 2));
}

TEST_CASE("sticky assignor: a new process takes one task without moving the others", "[kip1071][assignor]") {
  AssignorGroup g;
  g.members = {{"member1", on("process1", {{"test-subtopology", {0, 2}}})},
               {"member2", on("process2", {{"test-subtopology", {1}}})},
               {"member3", on("process3")}};
  const auto a = sticky_assign(g, one_subtopology(3, false));
  CHECK(contains_task(a.at("member2").active, "test-subtopology", 1));
  CHECK(active_count(a, "member1") == 1);
  CHECK(active_count(a, "member3") == 1);
  const bool kept0 = contains_task(a.at("member1").active, "test-subtopology", 0);
  CHECK((kept0 || contains_task(a.at("member1").active, "test-subtopology", 2)));
}

TEST_CASE("sticky assignor: a process with two members takes twice the tasks", "[kip1071][assignor]") {
  AssignorGroup g;
  g.members = {{"member1", on("process1")}, {"member2_1", on("process2")}, {"member2_2", on("process2")}};
  auto a = sticky_assign(g, one_subtopology(3, false));
  for (const auto& m : {"member1", "member2_1", "member2_2"}) CHECK(active_count(a, m) == 1);
  a = sticky_assign(g, one_subtopology(6, false));
  for (const auto& m : {"member1", "member2_1", "member2_2"}) CHECK(active_count(a, m) == 2);
}

TEST_CASE("sticky assignor: unequal subtopologies still balance", "[kip1071][assignor]") {
  AssignorGroup g;
  g.members = {{"member1", on("process1", {{"test-subtopology1", {0, 1, 2, 3, 4, 5}}, {"test-subtopology2", {0}}})},
               {"member2", on("process2")}};
  const TopologyTasks topo{{"test-subtopology1", {6, false}}, {"test-subtopology2", {1, false}}};
  const auto a = sticky_assign(g, topo);
  CHECK(active_count(a, "member1") == 4);
  CHECK(active_count(a, "member2") == 3);
  check_invariants(g, topo, a);
}

TEST_CASE("sticky assignor: stickiness holds with more members than tasks", "[kip1071][assignor]") {
  AssignorGroup g;
  g.members = {{"member1", on("process1", {{"test-subtopology", {0}}})},
               {"member2", on("process2", {{"test-subtopology", {2}}})},
               {"member3", on("process3", {{"test-subtopology", {1}}})},
               {"member4", on("process4")},
               {"member5", on("process5")}};
  auto a = sticky_assign(g, one_subtopology(3, false));
  CHECK(a.at("member1").active == TaskSet{{"test-subtopology", {0}}});
  CHECK(a.at("member2").active == TaskSet{{"test-subtopology", {2}}});
  CHECK(a.at("member3").active == TaskSet{{"test-subtopology", {1}}});
  CHECK(a.at("member4").active.empty());
  CHECK(a.at("member5").active.empty());

  g.members = {{"member1", on("process1")},
               {"member2", on("process2", {{"test-subtopology", {0}}})},
               {"member3", on("process3")},
               {"member4", on("process4", {{"test-subtopology", {2}}})},
               {"member5", on("process5", {{"test-subtopology", {1}}})}};
  a = sticky_assign(g, one_subtopology(3, false));
  CHECK(a.at("member2").active == TaskSet{{"test-subtopology", {0}}});
  CHECK(a.at("member4").active == TaskSet{{"test-subtopology", {2}}});
  CHECK(a.at("member5").active == TaskSet{{"test-subtopology", {1}}});
  CHECK(a.at("member1").active.empty());
  CHECK(a.at("member3").active.empty());
}

TEST_CASE("sticky assignor: an active task goes to its previous standby", "[kip1071][assignor]") {
  AssignorGroup g;
  g.members = {{"member1", on("process1", {}, {{"test-subtopology", {2}}})},
               {"member2", on("process2", {}, {{"test-subtopology", {1}}})},
               {"member3", on("process3", {}, {{"test-subtopology", {0}}})}};
  const auto a = sticky_assign(g, one_subtopology(3, false));
  CHECK(a.at("member1").active == TaskSet{{"test-subtopology", {2}}});
  CHECK(a.at("member2").active == TaskSet{{"test-subtopology", {1}}});
  CHECK(a.at("member3").active == TaskSet{{"test-subtopology", {0}}});
}

TEST_CASE("sticky assignor: the most caught-up member gets the task of a departed owner", "[kip1071][assignor]") {
  // Two candidates hold no standby but report local state: the larger offset
  // sum wins; a current standby outranks both.
  AssignorGroup g;
  g.members = {{"member1", on("process1")}, {"member2", on("process2")}, {"member3", on("process3")}};
  g.members["member1"].task_offsets["s"][0] = 10;
  g.members["member2"].task_offsets["s"][0] = 500;
  auto a = sticky_assign(g, one_subtopology(3, true, "s"));
  CHECK(contains_task(a.at("member2").active, "s", 0));
  g.members["member3"].standby = {{"s", {0}}};
  a = sticky_assign(g, one_subtopology(3, true, "s"));
  CHECK(contains_task(a.at("member3").active, "s", 0));
}

TEST_CASE("sticky assignor: standbys never share a process with their active task", "[kip1071][assignor]") {
  AssignorGroup g;
  g.num_standby_replicas = 1;
  g.members = {{"member1_1", on("process1")}, {"member1_2", on("process1")}, {"member2", on("process2")}};
  const auto topo = one_subtopology(4, true);
  const auto a = sticky_assign(g, topo);
  check_invariants(g, topo, a);
  size_t standbys = 0;
  for (const auto& [m, t] : a) standbys += task_count(t.standby);
  CHECK(standbys == 4);
}

TEST_CASE("sticky assignor: stateless subtopologies get no standbys", "[kip1071][assignor]") {
  AssignorGroup g;
  g.num_standby_replicas = 2;
  g.members = {{"member1", on("process1")}, {"member2", on("process2")}, {"member3", on("process3")}};
  const TopologyTasks topo{{"stateless", {3, false}}, {"stateful", {2, true}}};
  const auto a = sticky_assign(g, topo);
  size_t standbys = 0;
  for (const auto& [m, t] : a) {
    CHECK_FALSE(t.standby.contains("stateless"));
    standbys += task_count(t.standby);
  }
  CHECK(standbys == 4);  // two replicas of each stateful task
  check_invariants(g, topo, a);
}

TEST_CASE("sticky assignor: replicas beyond the processes are left out", "[kip1071][assignor]") {
  AssignorGroup g;
  g.num_standby_replicas = 2;
  g.members = {{"member1", on("process1")}, {"member2", on("process2")}};
  const auto topo = one_subtopology(2, true);
  const auto a = sticky_assign(g, topo);
  // Two processes: each task has its active and one standby, never a second.
  CHECK(standby_count(a, "member1") + standby_count(a, "member2") == 2);
  check_invariants(g, topo, a);
  // One process: no standby at all.
  g.members = {{"member1", on("process1")}};
  CHECK(sticky_assign(g, topo).at("member1").standby.empty());
}

TEST_CASE("sticky assignor: standbys stay on their previous holders", "[kip1071][assignor]") {
  AssignorGroup g;
  g.num_standby_replicas = 1;
  g.members = {{"member1", on("process1", {{"s", {0}}}, {{"s", {1}}})},
               {"member2", on("process2", {{"s", {1}}}, {{"s", {2}}})},
               {"member3", on("process3", {{"s", {2}}}, {{"s", {0}}})}};
  const auto a = sticky_assign(g, one_subtopology(3, true, "s"));
  CHECK(a.at("member1").active == TaskSet{{"s", {0}}});
  CHECK(a.at("member1").standby == TaskSet{{"s", {1}}});
  CHECK(a.at("member2").standby == TaskSet{{"s", {2}}});
  CHECK(a.at("member3").standby == TaskSet{{"s", {0}}});
}

TEST_CASE("sticky assignor: no members, no tasks, and an empty topology", "[kip1071][assignor]") {
  AssignorGroup g;
  CHECK(sticky_assign(g, {}).empty());
  CHECK_THROWS_AS(sticky_assign(g, one_subtopology(1, false)), TaskAssignorError);
  g.members = {{"member1", on("process1")}};
  const auto a = sticky_assign(g, {});
  REQUIRE(a.size() == 1);
  CHECK(a.at("member1").empty());
}

TEST_CASE("sticky assignor: random groups keep the invariants and the quota", "[kip1071][assignor]") {
  std::mt19937 rng(71);
  for (int round = 0; round < 200; ++round) {
    AssignorGroup g;
    g.num_standby_replicas = static_cast<int32_t>(rng() % 3);
    const int processes = 1 + static_cast<int>(rng() % 5);
    const int members = processes + static_cast<int>(rng() % 4);
    for (int i = 0; i < members; ++i) g.members["m" + std::to_string(i)] = on("p" + std::to_string(i % processes));
    TopologyTasks topo;
    for (int s = 0; s < 1 + static_cast<int>(rng() % 3); ++s)
      topo[std::to_string(s)] = SubtopologyTasks{1 + static_cast<int32_t>(rng() % 12), rng() % 2 == 0};
    // Previous assignment: the last one, with a member dropped now and then.
    auto a = sticky_assign(g, topo);
    for (auto& [m, t] : a) {
      g.members[m].active = t.active;
      g.members[m].standby = t.standby;
    }
    if (rng() % 2 && g.members.size() > 1) g.members.erase(g.members.begin());
    a = sticky_assign(g, topo);
    INFO("round " << round << ": " << g.members.size() << " members, " << processes << " processes");
    std::string shape;
    for (const auto& [m, t] : a)
      shape += m + "@" + g.members.at(m).process_id + "=" + std::to_string(task_count(t.active)) + "/" +
               std::to_string(task_count(t.standby)) + " ";
    for (const auto& [sub, t] : topo) shape += "sub" + sub + ":" + std::to_string(t.tasks) + (t.stateful ? "s " : " ");
    shape += "standbys=" + std::to_string(g.num_standby_replicas);
    INFO(shape);
    check_invariants(g, topo, a);
    // No member above its quota, ceil(active tasks / members). (Kafka does
    // not promise members within one of each other: a process keeps its
    // previous tasks while under quota, so two members of one process may
    // both sit at the quota while a third has fewer.)
    size_t total = 0;
    for (const auto& [sub, t] : topo) total += static_cast<size_t>(t.tasks);
    const size_t quota = (total + a.size() - 1) / a.size();
    for (const auto& [m, t] : a) CHECK(task_count(t.active) <= quota);
  }
}

TEST_CASE("sticky assignor: a configured topology's tasks, stateful where it has changelogs", "[kip1071][assignor]") {
  std::map<std::string, ConfiguredSubtopology> subs;
  subs["0"].number_of_tasks = 4;
  subs["1"].number_of_tasks = 2;
  subs["1"].state_changelog_topics["app-store-changelog"] = ConfiguredInternalTopic{"app-store-changelog", 2, {}, {}};
  const auto t = topology_tasks(subs);
  CHECK(t.at("0").tasks == 4);
  CHECK_FALSE(t.at("0").stateful);
  CHECK(t.at("1").tasks == 2);
  CHECK(t.at("1").stateful);
}

}  // namespace
}  // namespace skiff::test
