// GroupCoordinator: the join / sync state machine, KIP-394 member ids,
// protocol selection and the error paths of JoinGroup and SyncGroup.
#include "tests/coordinator/group/group_fixture.h"

using namespace skiff;
using namespace skiff::test;

TEST_CASE("a single member joins, syncs and becomes Stable", "[groups][join]") {
  GroupFixture f;
  auto j = f.join(join_params("g"));
  REQUIRE(j.error == ErrorCode::kNone);
  CHECK(j.generation_id == 1);
  CHECK(j.leader == j.member_id);
  CHECK(j.member_id.rfind("client-", 0) == 0);
  CHECK(j.protocol_type == "consumer");
  CHECK(j.protocol_name == "range");
  REQUIRE(j.members.size() == 1);
  CHECK(f.state("g") == "CompletingRebalance");
  auto s = f.start_sync("g", 1, j.member_id, {{j.member_id, {7, 7}}}).get();
  CHECK(s.error == ErrorCode::kNone);
  CHECK(s.assignment == Bytes{7, 7});
  CHECK(s.protocol_name == "range");
  CHECK(f.state("g") == "Stable");
  CHECK(f.heartbeat("g", 1, j.member_id) == ErrorCode::kNone);
  auto d = f.c().describe_group("g");
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].assignment == Bytes{7, 7});
  CHECK(d.protocol_name == "range");
}

TEST_CASE("KIP-394: a first join without member id gets MEMBER_ID_REQUIRED", "[groups][join]") {
  GroupFixture f;
  auto p = join_params("g");
  p.require_known_member_id = true;
  auto first = f.join(p);
  CHECK(first.error == ErrorCode::kMemberIdRequired);
  REQUIRE_FALSE(first.member_id.empty());
  CHECK(f.state("g") == "Empty");
  p.member_id = first.member_id;
  auto second = f.join(p);
  CHECK(second.error == ErrorCode::kNone);
  CHECK(second.member_id == first.member_id);
  CHECK(second.generation_id == 1);
}

TEST_CASE("a second member triggers a rebalance, joins wait for every member", "[groups][join]") {
  GroupFixture f;
  auto [a, gen1] = f.stable_single("g");
  auto b_join = f.start_join(join_params("g"));
  CHECK_FALSE(b_join.ready());  // waits for a to rejoin
  CHECK(f.state("g") == "PreparingRebalance");
  CHECK(f.heartbeat("g", gen1, a) == ErrorCode::kRebalanceInProgress);
  CHECK(f.start_sync("g", gen1, a).get().error == ErrorCode::kRebalanceInProgress);
  auto a_join = f.start_join(join_params("g", a));
  auto ra = a_join.get();
  auto rb = b_join.get();
  CHECK(ra.generation_id == 2);
  CHECK(rb.generation_id == 2);
  CHECK(ra.leader == a);
  CHECK(rb.leader == a);
  CHECK(ra.members.size() == 2);  // the leader gets the members
  CHECK(rb.members.empty());
  // The follower's sync waits for the leader's.
  auto sb = f.start_sync("g", 2, rb.member_id);
  CHECK_FALSE(sb.ready());
  auto sa = f.start_sync("g", 2, a, {{a, {1}}, {rb.member_id, {2}}});
  CHECK(sa.get().assignment == Bytes{1});
  CHECK(sb.get().assignment == Bytes{2});
  CHECK(f.state("g") == "Stable");
}

TEST_CASE("a rebalance completes without members that do not rejoin in time", "[groups][timeout]") {
  GroupFixture f;
  auto j = f.join(join_params("g", "", {"range"}, 10000, 200));
  REQUIRE(f.start_sync("g", 1, j.member_id).get().error == ErrorCode::kNone);
  auto b = f.start_join(join_params("g", "", {"range"}, 10000, 200));
  auto rb = b.get(std::chrono::seconds(5));  // after the 200 ms rebalance timeout
  CHECK(rb.error == ErrorCode::kNone);
  CHECK(rb.generation_id == 2);
  CHECK(rb.leader == rb.member_id);
  CHECK(rb.members.size() == 1);
  CHECK(f.heartbeat("g", 2, j.member_id) == ErrorCode::kUnknownMemberId);
}

TEST_CASE("the initial rebalance delay gathers the first members", "[groups][timeout]") {
  auto cfg = GroupFixture::test_config();
  cfg.initial_rebalance_delay_ms = 150;
  GroupFixture f(cfg);
  auto a = f.start_join(join_params("g"));
  auto b = f.start_join(join_params("g"));
  CHECK_FALSE(a.ready());
  auto ra = a.get(std::chrono::seconds(5));
  auto rb = b.get(std::chrono::seconds(5));
  CHECK(ra.generation_id == 1);
  CHECK(rb.generation_id == 1);
  CHECK(ra.leader == rb.leader);
}

TEST_CASE("the protocol is chosen by the members' votes among common ones", "[groups][join]") {
  GroupFixture f;
  auto a = f.start_join(join_params("g", "", {"roundrobin", "range"}));
  auto ra = a.get();
  REQUIRE(ra.protocol_name == "roundrobin");  // alone, its first choice
  auto b = f.start_join(join_params("g", "", {"range", "sticky"}));
  auto c = f.start_join(join_params("g", "", {"range", "roundrobin"}));
  auto ra2 = f.join(join_params("g", ra.member_id, {"roundrobin", "range"}));
  CHECK(ra2.protocol_name == "range");  // common: range only (b lacks roundrobin)
  CHECK(b.get().protocol_name == "range");
  CHECK(c.get().protocol_name == "range");
  // A protocol no member supports: INCONSISTENT_GROUP_PROTOCOL.
  CHECK(f.join(join_params("g", "", {"cooperative-sticky"})).error == ErrorCode::kInconsistentGroupProtocol);
  auto other_type = join_params("g");
  other_type.protocol_type = "connect";
  CHECK(f.join(other_type).error == ErrorCode::kInconsistentGroupProtocol);
}

TEST_CASE("JoinGroup and SyncGroup error paths", "[groups][errors]") {
  auto cfg = GroupFixture::test_config();
  cfg.min_session_timeout_ms = 100;
  cfg.max_session_timeout_ms = 1000;
  cfg.max_size = 1;
  GroupFixture f(cfg);
  CHECK(f.join(join_params("g", "", {"range"}, 50)).error == ErrorCode::kInvalidSessionTimeout);
  CHECK(f.join(join_params("g", "", {"range"}, 5000)).error == ErrorCode::kInvalidSessionTimeout);
  CHECK(f.join(join_params("", "", {"range"}, 500)).error == ErrorCode::kInvalidGroupId);
  CHECK(f.join(join_params("g", "nobody", {"range"}, 500)).error == ErrorCode::kUnknownMemberId);
  auto empty_protocols = join_params("g", "", {}, 500);
  CHECK(f.join(empty_protocols).error == ErrorCode::kInconsistentGroupProtocol);
  CHECK(f.c().list_groups().empty());  // failed joins leave no group behind
  auto a = f.join(join_params("g", "", {"range"}, 500, 500));
  REQUIRE(a.error == ErrorCode::kNone);
  CHECK(f.join(join_params("g", "", {"range"}, 500)).error == ErrorCode::kGroupMaxSizeReached);
  CHECK(f.start_sync("g", 7, a.member_id).get().error == ErrorCode::kIllegalGeneration);
  CHECK(f.start_sync("g", 1, "nobody").get().error == ErrorCode::kUnknownMemberId);
  CHECK(f.start_sync("nogroup", 1, a.member_id).get().error == ErrorCode::kUnknownMemberId);
  SyncGroupParams wrong;
  wrong.group_id = "g";
  wrong.generation_id = 1;
  wrong.member_id = a.member_id;
  wrong.protocol_name = "roundrobin";
  Pending<SyncGroupResult> w;
  f.c().sync_group(wrong, w.callback());
  CHECK(w.get().error == ErrorCode::kInconsistentGroupProtocol);
  CHECK(f.heartbeat("g", 0, a.member_id) == ErrorCode::kIllegalGeneration);
  CHECK(f.heartbeat("g", 1, a.member_id) == ErrorCode::kNone);  // CompletingRebalance
}

TEST_CASE("shutdown answers waiting joins and syncs with NOT_COORDINATOR", "[groups][shutdown]") {
  GroupFixture f;
  auto [a, gen] = f.stable_single("g");
  auto b = f.start_join(join_params("g"));
  f.c().shutdown();
  CHECK(b.get().error == ErrorCode::kNotCoordinator);
  CHECK(f.heartbeat("g", gen, a) == ErrorCode::kNotCoordinator);
  CHECK(f.join(join_params("g")).error == ErrorCode::kNotCoordinator);
}
