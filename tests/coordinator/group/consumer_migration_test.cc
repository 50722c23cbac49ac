// KIP-848's online migration on the GroupCoordinator: a classic group whose
// member is still on the classic protocol is upgraded when a
// ConsumerGroupHeartbeat joins it; the classic member keeps JoinGroup /
// SyncGroup / Heartbeat, answered from the consumer group's target (with
// incremental revocation), survives a restart (ClassicMemberMetadata in its
// member record), and the group goes back to classic when the last
// consumer-protocol member leaves; group.consumer.migration.policy refuses
// as Kafka does.
#include <chrono>
#include <thread>

#include "protocol/consumer_protocol.h"
#include "tests/coordinator/group/consumer_group_support.h"

using namespace skiff;
using namespace skiff::test;

namespace {

// A ConsumerProtocolSubscription v1 of topic "foo" owning `owned` of it.
Bytes subscription_v1(const std::set<int32_t>& owned) {
  Bytes b{0, 1};
  auto put = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put(1, 4);
  put(3, 2);
  b.insert(b.end(), {'f', 'o', 'o'});
  put(0xffffffff, 4);  // null user data
  put(owned.empty() ? 0 : 1, 4);
  if (!owned.empty()) {
    put(3, 2);
    b.insert(b.end(), {'f', 'o', 'o'});
    put(owned.size(), 4);
    for (int32_t p : owned) put(static_cast<uint32_t>(p), 4);
  }
  return b;
}

JoinGroupParams classic_join(Members& m, const std::string& member_id, const std::set<int32_t>& owned = {},
                             int version = 1, int32_t rebalance_ms = 10000) {
  auto p = join_params("g", member_id, {"range"}, 10000, rebalance_ms);
  p.protocols[0].metadata = version == 0 ? subscription({"foo"}) : subscription_v1(owned);
  p.require_known_member_id = false;
  p.resolve = m.topics.resolver();
  return p;
}

std::set<int32_t> foo_partitions(const Bytes& assignment) {
  auto a = protocol::decode_assignment(assignment);
  REQUIRE(a);
  return a->contains("foo") ? a->at("foo") : std::set<int32_t>{};
}

// A Stable classic group "g" of one member owning all of foo: its member id.
std::string classic_group_of_one(GroupFixture& f, Members& m, int32_t rebalance_ms = 10000) {
  auto j = f.join(classic_join(m, "", {}, 0, rebalance_ms));
  REQUIRE(j.error == ErrorCode::kNone);
  REQUIRE(j.leader == j.member_id);
  auto s = f.start_sync("g", j.generation_id, j.member_id,
                        {{j.member_id, protocol::encode_assignment(0, {{"foo", {0, 1, 2, 3}}})}})
               .get();
  REQUIRE(s.error == ErrorCode::kNone);
  REQUIRE(f.state("g") == "Stable");
  return j.member_id;
}

GroupConfig with_policy(const std::string& policy) {
  auto c = GroupFixture::test_config();
  c.consumer_migration_policy = policy;
  return c;
}

}  // namespace

TEST_CASE("online upgrade: a consumer member joins a classic group whose member stays classic") {
  GroupFixture f;
  Members m(f.c());
  const auto a = classic_group_of_one(f, m);

  auto b = m.join("b");
  REQUIRE(b.error == ErrorCode::kNone);
  CHECK(b.member_epoch == 2);                     // the classic generation 1, bumped by b
  CHECK(b.assignment == consumer::Assignment{});  // all of foo is still a's
  auto d = f.c().describe_consumer_group("g");
  REQUIRE(d.error == ErrorCode::kNone);
  REQUIRE(d.members.size() == 2);
  for (const auto& dm : d.members) {
    CHECK(dm.classic == (dm.member_id == a));  // ConsumerGroupDescribe's MemberType
    CHECK(dm.member_epoch == (dm.classic ? 1 : 2));
  }
  CHECK(f.c().describe_group("g").found == false);  // no longer a classic group

  // The classic member learns of the rebalance from its heartbeat and rejoins
  // (cooperatively: it still owns all four).
  CHECK(f.heartbeat("g", 1, a) == ErrorCode::kRebalanceInProgress);
  auto j = f.join(classic_join(m, a, {0, 1, 2, 3}));
  REQUIRE(j.error == ErrorCode::kNone);
  CHECK(j.generation_id == 1);  // still revoking: keeps its epoch
  CHECK(j.protocol_name == "range");
  CHECK(j.leader.empty());  // the broker assigns: no leader
  auto s = f.start_sync("g", 1, a).get();
  REQUIRE(s.error == ErrorCode::kNone);
  const auto kept = foo_partitions(s.assignment);
  CHECK(kept.size() == 2);
  CHECK(m.beat("b", 2, consumer::Assignment{}).assignment == std::nullopt);  // nothing released yet

  CHECK(f.heartbeat("g", 1, a) == ErrorCode::kRebalanceInProgress);
  auto j2 = f.join(classic_join(m, a, kept));  // revoked the other two
  REQUIRE(j2.error == ErrorCode::kNone);
  CHECK(j2.generation_id == 2);
  auto s2 = f.start_sync("g", 2, a).get();
  REQUIRE(s2.error == ErrorCode::kNone);
  CHECK(foo_partitions(s2.assignment) == kept);
  CHECK(f.heartbeat("g", 2, a) == ErrorCode::kNone);

  auto b2 = m.beat("b", 2, consumer::Assignment{});
  REQUIRE(b2.assignment);
  REQUIRE(b2.assignment->contains(kFoo));
  for (int32_t p : b2.assignment->at(kFoo)) CHECK_FALSE(kept.contains(p));
  CHECK(b2.assignment->at(kFoo).size() == 2);
  CHECK(f.c().describe_consumer_group("g").state == "Stable");
}

TEST_CASE("online upgrade: an eager classic member revokes at once and its commits use its epoch") {
  GroupFixture f;
  Members m(f.c());
  const auto a = classic_group_of_one(f, m);
  REQUIRE(m.join("b").error == ErrorCode::kNone);
  auto j = f.join(classic_join(m, a, {}, 0));  // v0 metadata: owns nothing when it rejoins
  REQUIRE(j.error == ErrorCode::kNone);
  CHECK(j.generation_id == 2);
  auto s = f.start_sync("g", 2, a).get();
  REQUIRE(s.error == ErrorCode::kNone);
  CHECK(foo_partitions(s.assignment).size() == 2);
  CHECK(f.start_sync("g", 1, a).get().error == ErrorCode::kIllegalGeneration);

  OffsetCommitParams c{"g", 2, a, std::nullopt, {{{"foo", 0}, {5, -1, "", 0, -1}}}};
  CHECK(f.c().commit_offsets(c) == std::vector<ErrorCode>{ErrorCode::kNone});
  c.generation_id = 1;
  CHECK(f.c().commit_offsets(c) == std::vector<ErrorCode>{ErrorCode::kIllegalGeneration});
}

TEST_CASE("online downgrade: the last consumer member leaves and the classic member's group is classic again") {
  GroupFixture f;
  Members m(f.c());
  // A real topic: a restarted coordinator resolves the subscriptions from the broker's topics.
  const auto foo = f.logs->create_topic("foo", 4);
  REQUIRE(foo);
  m.topics.by_name["foo"] = {foo->topic_id, "foo", 4};
  const auto a = classic_group_of_one(f, m);
  REQUIRE(m.join("b").error == ErrorCode::kNone);
  REQUIRE(f.join(classic_join(m, a, {}, 0)).generation_id == 2);

  SECTION("restart first: the classic member's metadata is durable") {
    f.restart();
    Members again(f.c());
    again.topics.by_name["foo"] = {foo->topic_id, "foo", 4};
    auto d = f.c().describe_consumer_group("g");
    REQUIRE(d.members.size() == 2);
    CHECK(f.heartbeat("g", 2, a) == ErrorCode::kNone);  // still known as a classic member at epoch 2
    CHECK(foo_partitions(f.start_sync("g", 2, a).get().assignment).size() == 2);
    CHECK(f.join(classic_join(again, a, {}, 0)).generation_id == 2);  // nothing changed: no new epoch
    REQUIRE(again.leave("b", -1).error == ErrorCode::kNone);
  }
  SECTION("no restart") { REQUIRE(m.leave("b", -1).error == ErrorCode::kNone); }

  CHECK(f.c().describe_consumer_group("g").error == ErrorCode::kGroupIdNotFound);
  auto desc = f.c().describe_group("g");
  REQUIRE(desc.found);
  CHECK(desc.state == "PreparingRebalance");
  REQUIRE(desc.members.size() == 1);
  CHECK(f.heartbeat("g", 2, a) == ErrorCode::kRebalanceInProgress);
  auto j = f.join(classic_join(m, a, {}, 0));
  REQUIRE(j.error == ErrorCode::kNone);
  CHECK(j.generation_id == 3);
  CHECK(j.leader == a);
  auto s = f.start_sync("g", 3, a, {{a, protocol::encode_assignment(0, {{"foo", {0, 1, 2, 3}}})}}).get();
  CHECK(s.error == ErrorCode::kNone);
  CHECK(f.state("g") == "Stable");

  f.restart();  // the consumer group's tombstones hold: the group loads as classic
  CHECK(f.c().describe_consumer_group("g").error == ErrorCode::kGroupIdNotFound);
}

TEST_CASE("group.consumer.migration.policy refuses as Kafka does") {
  SECTION("disabled or downgrade: no upgrade") {
    for (const char* policy : {"disabled", "downgrade", "DISABLED"}) {
      GroupFixture f(with_policy(policy));
      Members m(f.c());
      classic_group_of_one(f, m);
      auto b = m.join("b");
      CHECK(b.error == ErrorCode::kGroupIdNotFound);
      CHECK(b.message == "Cannot upgrade classic group g to consumer group because online upgrade is disabled.");
      CHECK(f.state("g") == "Stable");  // untouched
    }
  }
  SECTION("upgrade: no downgrade, the classic member stays in a consumer group") {
    GroupFixture f(with_policy("upgrade"));
    Members m(f.c());
    const auto a = classic_group_of_one(f, m);
    REQUIRE(m.join("b").error == ErrorCode::kNone);
    REQUIRE(m.leave("b", -1).error == ErrorCode::kNone);
    auto d = f.c().describe_consumer_group("g");
    REQUIRE(d.error == ErrorCode::kNone);
    REQUIRE(d.members.size() == 1);
    CHECK(d.members[0].member_id == a);
  }
  SECTION("a classic group of another embedded protocol is not upgraded") {
    GroupFixture f;
    Members m(f.c());
    auto p = classic_join(m, "", {}, 0);
    p.protocol_type = "connect";
    auto j = f.join(p);
    REQUIRE(f.start_sync("g", j.generation_id, j.member_id, {{j.member_id, {}}}).get().error == ErrorCode::kNone);
    auto b = m.join("b");
    CHECK(b.error == ErrorCode::kGroupIdNotFound);
    CHECK(b.message ==
          "Cannot upgrade classic group g to consumer group because the group does not use the consumer embedded "
          "protocol.");
  }
  SECTION("a classic group larger than group.consumer.max.size is not upgraded") {
    auto config = GroupFixture::test_config();
    config.consumer_max_size = 1;
    GroupFixture f(config);
    Members m(f.c());
    auto first = f.join(classic_join(m, "", {}, 0));
    REQUIRE(first.error == ErrorCode::kNone);
    auto second = f.start_join(classic_join(m, "", {}, 0));
    auto rejoin = f.start_join(classic_join(m, first.member_id, {}, 0));
    REQUIRE(second.get().error == ErrorCode::kNone);
    REQUIRE(rejoin.get().error == ErrorCode::kNone);
    REQUIRE(f.c().describe_group("g").members.size() == 2);
    auto b = m.join("b");
    CHECK(b.error == ErrorCode::kGroupIdNotFound);
    CHECK(b.message ==
          "Cannot upgrade classic group g to consumer group because the group size exceeds the consumer group maximum "
          "size.");
  }
}

TEST_CASE("online migration: a classic static member rejoining with a new member id takes over its place") {
  GroupFixture f;
  Members m(f.c());
  auto p = classic_join(m, "", {}, 0);
  p.group_instance_id = "i1";
  auto j = f.join(p);
  REQUIRE(j.error == ErrorCode::kNone);
  REQUIRE(f.start_sync("g", j.generation_id, j.member_id,
                       {{j.member_id, protocol::encode_assignment(0, {{"foo", {0, 1, 2, 3}}})}})
              .get()
              .error == ErrorCode::kNone);
  REQUIRE(m.join("b").error == ErrorCode::kNone);

  auto p2 = classic_join(m, "", {}, 0);
  p2.group_instance_id = "i1";
  auto j2 = f.join(p2);
  REQUIRE(j2.error == ErrorCode::kNone);
  CHECK(j2.member_id != j.member_id);
  CHECK(j2.generation_id == 2);
  auto d = f.c().describe_consumer_group("g");
  REQUIRE(d.members.size() == 2);
  CHECK(d.group_epoch == 2);  // a replacement is not a new member
  CHECK(f.heartbeat("g", 1, j.member_id, "i1") == ErrorCode::kFencedInstanceId);
  CHECK(f.heartbeat("g", 2, j2.member_id, "i1") == ErrorCode::kNone);
  CHECK(foo_partitions(f.start_sync("g", 2, j2.member_id).get().assignment).size() == 2);
}

namespace {

// Heartbeats as the classic member `a` every 25 ms for up to 1 s until the
// answer is no longer `while_this`: that answer.
ErrorCode heartbeat_until_not(GroupFixture& f, const std::string& a, int32_t generation, ErrorCode while_this) {
  ErrorCode e = while_this;
  for (int i = 0; i < 40 && e == while_this; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    e = f.heartbeat("g", generation, a);
  }
  return e;
}

}  // namespace

TEST_CASE(
    "online migration: a classic member that heartbeats but never rejoins is removed after its rebalance timeout") {
  GroupFixture f;
  Members m(f.c());
  const auto a = classic_group_of_one(f, m, 150);
  REQUIRE(m.join("b").error == ErrorCode::kNone);
  // Told to rejoin; it keeps heartbeating (its session stays alive) but never rejoins.
  CHECK(heartbeat_until_not(f, a, 1, ErrorCode::kRebalanceInProgress) == ErrorCode::kUnknownMemberId);
  CHECK(f.c().describe_consumer_group("g").members.size() == 1);
  CHECK(m.beat("b", 2, consumer::Assignment{}).assignment == parts({0, 1, 2, 3}));  // a's partitions are free
}

TEST_CASE("online migration: a classic member that rejoins but never syncs is removed after its rebalance timeout") {
  GroupFixture f;
  Members m(f.c());
  const auto a = classic_group_of_one(f, m, 150);
  REQUIRE(m.join("b").error == ErrorCode::kNone);
  REQUIRE(f.heartbeat("g", 1, a) == ErrorCode::kRebalanceInProgress);
  auto j = f.join(classic_join(m, a, {0, 1, 2, 3}, 1, 150));
  REQUIRE(j.error == ErrorCode::kNone);
  CHECK(heartbeat_until_not(f, a, j.generation_id, ErrorCode::kRebalanceInProgress) == ErrorCode::kUnknownMemberId);

  // One that syncs in time stays (eager: it owns nothing when it rejoins, so
  // no revocation, whose own rebalance timeout would fence it).
  GroupFixture f2;
  Members n(f2.c());
  const auto c = classic_group_of_one(f2, n, 150);
  REQUIRE(n.join("d").error == ErrorCode::kNone);
  REQUIRE(f2.heartbeat("g", 1, c) == ErrorCode::kRebalanceInProgress);
  auto jc = f2.join(classic_join(n, c, {}, 0, 150));
  REQUIRE(f2.start_sync("g", jc.generation_id, c).get().error == ErrorCode::kNone);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(f2.heartbeat("g", jc.generation_id, c) != ErrorCode::kUnknownMemberId);
}

TEST_CASE("online downgrade: a classic static member replacing the last consumer-protocol member makes it classic") {
  GroupFixture f;
  Members m(f.c());
  const auto a = classic_group_of_one(f, m);
  auto s = m.join("s", "i2");  // a static consumer-protocol member: the group is upgraded
  REQUIRE(s.error == ErrorCode::kNone);
  REQUIRE(f.c().describe_consumer_group("g").members.size() == 2);

  auto p = classic_join(m, "", {}, 0);  // i2 restarts on the classic protocol
  p.group_instance_id = "i2";
  auto j = f.join(p);
  CHECK(j.error == ErrorCode::kNone);
  CHECK(f.c().describe_consumer_group("g").error == ErrorCode::kGroupIdNotFound);
  auto d = f.c().describe_group("g");
  REQUIRE(d.found);
  CHECK(d.members.size() == 2);
  for (const auto& dm : d.members) CHECK(dm.member_id != "s");
}
