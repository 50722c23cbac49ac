// GroupCoordinator: sessions, LeaveGroup, static membership (KIP-345) and
// the pending-sync timeout.
#include "tests/coordinator/group/group_fixture.h"

using namespace skiff;
using namespace skiff::test;

TEST_CASE("session expiry: a silent member leaves, heartbeats keep one alive", "[groups][timeout]") {
  GroupFixture f;
  auto a = f.join(join_params("g", "", {"range"}, 300, 300));
  REQUIRE(f.start_sync("g", 1, a.member_id).get().error == ErrorCode::kNone);
  // Heartbeats every 50 ms keep the session for well past its timeout.
  for (int i = 0; i < 12; ++i) {
    CHECK(f.heartbeat("g", 1, a.member_id) == ErrorCode::kNone);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(f.state("g") == "Stable");
  // Then silence: removed, the group becomes Empty (generation 2, no members).
  REQUIRE(eventually([&] { return f.state("g") == "Empty"; }));
  CHECK(f.heartbeat("g", 1, a.member_id) == ErrorCode::kUnknownMemberId);
}

TEST_CASE("a killed member's partitions move after its session timeout", "[groups][timeout]") {
  GroupFixture f;
  auto a = f.start_join(join_params("g", "", {"range"}, 10000, 5000));
  auto ra = a.get();
  REQUIRE(f.start_sync("g", 1, ra.member_id).get().error == ErrorCode::kNone);
  auto b = f.start_join(join_params("g", "", {"range"}, 250, 5000));
  auto ra2 = f.join(join_params("g", ra.member_id, {"range"}, 10000, 5000));
  auto rb = b.get();
  REQUIRE(ra2.generation_id == 2);
  auto sb = f.start_sync("g", 2, rb.member_id);
  REQUIRE(f.start_sync("g", 2, ra.member_id).get().error == ErrorCode::kNone);
  REQUIRE(sb.get().error == ErrorCode::kNone);
  // b dies (no heartbeat); a keeps heartbeating and learns of the rebalance.
  bool rebalancing = eventually([&] { return f.heartbeat("g", 2, ra.member_id) == ErrorCode::kRebalanceInProgress; });
  REQUIRE(rebalancing);
  auto ra3 = f.join(join_params("g", ra.member_id, {"range"}, 10000, 5000));
  CHECK(ra3.generation_id == 3);
  CHECK(ra3.members.size() == 1);
}

TEST_CASE("LeaveGroup by member id and by instance id", "[groups][leave]") {
  GroupFixture f;
  auto [a, gen] = f.stable_single("g");
  auto r = f.c().leave_group("g", {{"nobody", std::nullopt}, {a, std::nullopt}});
  CHECK(r.error == ErrorCode::kNone);
  REQUIRE(r.members.size() == 2);
  CHECK(r.members[0] == ErrorCode::kUnknownMemberId);
  CHECK(r.members[1] == ErrorCode::kNone);
  CHECK(f.state("g") == "Empty");
  auto unknown_group = f.c().leave_group("none", {{"x", std::nullopt}});
  CHECK(unknown_group.members[0] == ErrorCode::kUnknownMemberId);

  auto p = join_params("g");
  p.group_instance_id = "instance-1";
  auto s = f.join(p);
  REQUIRE(s.error == ErrorCode::kNone);
  CHECK(s.member_id.rfind("instance-1-", 0) == 0);
  auto fenced = f.c().leave_group("g", {{"other-id", std::string("instance-1")}});
  CHECK(fenced.members[0] == ErrorCode::kFencedInstanceId);
  auto by_instance = f.c().leave_group("g", {{"", std::string("instance-1")}});
  CHECK(by_instance.members[0] == ErrorCode::kNone);
  CHECK(f.state("g") == "Empty");
}

TEST_CASE("KIP-345: a static member rejoining keeps its assignment without a rebalance", "[groups][static]") {
  GroupFixture f;
  auto p1 = join_params("g");
  p1.group_instance_id = "i1";
  auto p2 = join_params("g");
  p2.group_instance_id = "i2";
  auto j1 = f.start_join(p1);
  auto r1 = j1.get();
  auto j2 = f.start_join(p2);
  p1.member_id = r1.member_id;
  auto r1b = f.join(p1);
  auto r2 = j2.get();
  REQUIRE(r1b.generation_id == 2);
  auto s2 = f.start_sync("g", 2, r2.member_id);
  REQUIRE(f.start_sync("g", 2, r1.member_id, {{r1.member_id, {1}}, {r2.member_id, {2}}}).get().error ==
          ErrorCode::kNone);
  REQUIRE(s2.get().assignment == Bytes{2});

  // i2 restarts: a join without member id but with its instance id.
  p2.member_id.clear();
  auto again = f.join(p2);
  CHECK(again.error == ErrorCode::kNone);
  CHECK(again.member_id != r2.member_id);
  CHECK(again.generation_id == 2);  // no new generation
  CHECK(f.state("g") == "Stable");
  CHECK_FALSE(again.skip_assignment);
  auto s = f.start_sync("g", 2, again.member_id).get();
  CHECK(s.assignment == Bytes{2});  // its old assignment
  // The old incarnation is fenced.
  CHECK(f.heartbeat("g", 2, r2.member_id, std::string("i2")) == ErrorCode::kFencedInstanceId);
  CHECK(f.heartbeat("g", 2, again.member_id, std::string("i2")) == ErrorCode::kNone);
  CHECK(f.heartbeat("g", 2, r1.member_id, std::string("i1")) == ErrorCode::kNone);

  // The leader restarting gets the members back and skips the assignment.
  p1.member_id.clear();
  auto leader = f.join(p1);
  CHECK(leader.generation_id == 2);
  CHECK(leader.leader == leader.member_id);
  CHECK(leader.skip_assignment);
  CHECK(leader.members.size() == 2);
  CHECK(f.state("g") == "Stable");
}

TEST_CASE("a static member with changed protocols rejoins through a rebalance", "[groups][static]") {
  GroupFixture f;
  auto p = join_params("g");
  p.group_instance_id = "i1";
  auto r = f.join(p);
  REQUIRE(f.start_sync("g", 1, r.member_id).get().error == ErrorCode::kNone);
  auto changed = join_params("g", "", {"range", "roundrobin"});
  changed.group_instance_id = "i1";
  auto r2 = f.join(changed);
  CHECK(r2.generation_id == 2);
  CHECK(f.state("g") == "CompletingRebalance");
}

TEST_CASE("members that never send SyncGroup are removed after the rebalance timeout", "[groups][timeout]") {
  GroupFixture f;
  auto a = f.start_join(join_params("g", "", {"range"}, 10000, 200));
  auto ra = a.get();
  auto b = f.start_join(join_params("g", "", {"range"}, 10000, 200));
  f.join(join_params("g", ra.member_id, {"range"}, 10000, 200));
  auto rb = b.get();
  REQUIRE(rb.generation_id == 2);
  // Only b syncs; the leader a never does. After 200 ms a is removed.
  auto sb = f.start_sync("g", 2, rb.member_id);
  CHECK(sb.get(std::chrono::seconds(5)).error == ErrorCode::kRebalanceInProgress);
  CHECK(f.heartbeat("g", 2, ra.member_id) == ErrorCode::kUnknownMemberId);
}

TEST_CASE("a restarted static member that then goes silent still expires", "[groups][static][timeout]") {
  GroupFixture f;
  auto p = join_params("g", "", {"range"}, 300, 300);
  p.group_instance_id = "i1";
  auto r = f.join(p);
  REQUIRE(f.start_sync("g", 1, r.member_id).get().error == ErrorCode::kNone);
  auto again = f.join(p);  // the restart: a new member id, same generation
  REQUIRE(again.generation_id == 1);
  REQUIRE(again.member_id != r.member_id);
  REQUIRE(eventually([&] { return f.state("g") == "Empty"; }));
  CHECK(f.heartbeat("g", 1, again.member_id, std::string("i1")) == ErrorCode::kUnknownMemberId);
}
