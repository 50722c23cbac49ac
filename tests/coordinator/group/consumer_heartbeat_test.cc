// KIP-848's ConsumerGroupHeartbeat on the GroupCoordinator: join, the
// incremental hand-over of partitions between members, leave, static
// membership, session and rebalance timeouts, Kafka's errors, and the group
// type seen by the classic and admin APIs.
#include <thread>

#include "tests/coordinator/group/consumer_group_support.h"

using namespace skiff;
using namespace skiff::test;

namespace {

GroupConfig fast_config() {
  auto c = GroupFixture::test_config();
  c.consumer_session_timeout_ms = 300;
  return c;
}

}  // namespace

TEST_CASE("consumer heartbeat: a second member gets partitions only once the first revoked them") {
  GroupFixture f;
  Members m(f.c());
  auto a = m.join("a");
  REQUIRE(a.error == ErrorCode::kNone);
  CHECK(a.member_epoch == 1);
  CHECK(a.heartbeat_interval_ms == 5000);
  CHECK(a.assignment == parts({0, 1, 2, 3}));

  auto b = m.join("b");
  REQUIRE(b.error == ErrorCode::kNone);
  CHECK(b.member_epoch == 2);
  CHECK(b.assignment == consumer::Assignment{});  // its target is still a's

  auto a2 = m.beat("a", 1, parts({0, 1, 2, 3}));
  REQUIRE(a2.error == ErrorCode::kNone);
  CHECK(a2.member_epoch == 1);  // keeps its epoch until it revoked
  REQUIRE(a2.assignment);
  CHECK(consumer::partition_count(*a2.assignment) == 2);

  auto a3 = m.beat("a", 1, a2.assignment);
  CHECK(a3.member_epoch == 2);
  CHECK(!a3.assignment);  // unchanged

  auto b2 = m.beat("b", 2, consumer::Assignment{});
  REQUIRE(b2.assignment);
  CHECK(consumer::partition_count(*b2.assignment) == 2);
  for (int32_t p : b2.assignment->at(kFoo)) CHECK_FALSE(a2.assignment->at(kFoo).contains(p));

  auto d = f.c().describe_consumer_group("g");
  CHECK(d.state == "Stable");
  CHECK(d.group_epoch == 2);
  CHECK(d.members.size() == 2);
}

TEST_CASE("consumer heartbeat: a member that leaves frees its partitions at once") {
  GroupFixture f;
  Members m(f.c());
  m.join("a");
  m.join("b");
  auto a = m.beat("a", 1, parts({0, 1, 2, 3}));
  m.beat("a", 1, a.assignment);
  auto left = m.leave("a");
  CHECK(left.error == ErrorCode::kNone);
  CHECK(left.member_epoch == -1);
  auto b = m.beat("b", 2, consumer::Assignment{});
  CHECK(b.member_epoch == 3);
  CHECK(b.assignment == parts({0, 1, 2, 3}));
  CHECK(m.beat("a", 2, {}).error == ErrorCode::kUnknownMemberId);
}

TEST_CASE("consumer heartbeat: Kafka's request errors") {
  GroupFixture f;
  Members m(f.c());
  auto p = m.base("a", 0);
  auto r = f.c().consumer_heartbeat(p);
  CHECK(r.error == ErrorCode::kInvalidRequest);
  CHECK(r.message == "RebalanceTimeoutMs must be provided in first request.");
  p.rebalance_timeout_ms = 1000;
  p.owned = consumer::Assignment{};
  CHECK(f.c().consumer_heartbeat(p).message ==
        "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
  p.subscribed_regex = "fo(";
  auto bad = f.c().consumer_heartbeat(p);
  CHECK(bad.error == ErrorCode::kInvalidRegularExpression);
  CHECK(bad.message == "SubscribedTopicRegex `fo(` is not a valid regular expression: missing closing ).");
  p.subscribed_regex.reset();
  p.subscribed_names = std::vector<std::string>{"foo"};
  p.server_assignor = "sticky";
  CHECK(f.c().consumer_heartbeat(p).error == ErrorCode::kUnsupportedAssignor);
  p.member_id.clear();
  CHECK(f.c().consumer_heartbeat(p).message == "MemberId can't be empty.");

  REQUIRE(m.join("a").member_epoch == 1);
  auto fenced = m.beat("a", 7, consumer::Assignment{});
  CHECK(fenced.error == ErrorCode::kFencedMemberEpoch);
  CHECK(m.beat("zz", 1, {}).error == ErrorCode::kUnknownMemberId);
  auto other = m.base("a", 1);
  other.group_id = "nope";
  CHECK(f.c().consumer_heartbeat(other).error == ErrorCode::kUnknownMemberId);
}

TEST_CASE("consumer heartbeat: a silent member's session expires and its partitions move") {
  GroupFixture f(fast_config());
  Members m(f.c());
  m.join("a");
  m.join("b");
  ConsumerHeartbeatResult b;
  // b keeps heartbeating (every 25 ms, well inside the 300 ms session); a is
  // silent. Bounded by time, not by a count, so a loaded machine (sanitizer
  // runs) only makes it slower.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    b = m.beat("b", b.member_epoch ? b.member_epoch : 2, b.assignment ? b.assignment : consumer::Assignment{});
    REQUIRE(b.error == ErrorCode::kNone);
    if (b.assignment == parts({0, 1, 2, 3})) break;
  }
  CHECK(b.assignment == parts({0, 1, 2, 3}));
  CHECK(f.c().describe_consumer_group("g").members.size() == 1);
}

TEST_CASE("consumer heartbeat: a member that never revokes is fenced after its rebalance timeout") {
  GroupFixture f;
  Members m(f.c());
  m.join("a", std::nullopt, 100);
  m.join("b");
  auto a = m.beat("a", 1, parts({0, 1, 2, 3}));  // told to revoke two
  REQUIRE(consumer::partition_count(*a.assignment) == 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(m.beat("a", 1, parts({0, 1, 2, 3})).error == ErrorCode::kUnknownMemberId);
  auto b = m.beat("b", 2, consumer::Assignment{});
  CHECK(b.assignment == parts({0, 1, 2, 3}));
}

TEST_CASE("consumer heartbeat: a static member that leaves with -2 is replaced by its instance id") {
  GroupFixture f;
  Members m(f.c());
  REQUIRE(m.join("a", "inst").assignment == parts({0, 1, 2, 3}));
  CHECK(m.join("a2", "inst").error == ErrorCode::kUnreleasedInstanceId);
  auto left = m.leave("a", -2, "inst");
  CHECK(left.member_epoch == -2);
  auto back = m.join("a2", "inst");
  REQUIRE(back.error == ErrorCode::kNone);
  CHECK(back.assignment == parts({0, 1, 2, 3}));
  CHECK(f.c().describe_consumer_group("g").members.size() == 1);
}

TEST_CASE("consumer groups and classic groups: one type per group id") {
  GroupFixture f;
  Members m(f.c());
  auto connect = join_params("g");    // a classic member of another embedded protocol in "g": no upgrade
  connect.protocol_type = "connect";  // (the consumer protocol's migration: consumer_migration_test.cc)
  auto classic = f.join(connect);
  REQUIRE(classic.error == ErrorCode::kNone);
  auto r = m.join("a");
  CHECK(r.error == ErrorCode::kGroupIdNotFound);

  auto cp = m.base("a", 0);
  cp.group_id = "c";
  cp.rebalance_timeout_ms = 1000;
  cp.owned = consumer::Assignment{};
  cp.subscribed_names = std::vector<std::string>{"foo"};
  REQUIRE(f.c().consumer_heartbeat(cp).error == ErrorCode::kNone);
  auto jp = join_params("c");
  jp.protocol_type = "connect";
  CHECK(f.join(jp).error == ErrorCode::kInconsistentGroupProtocol);

  auto d = f.c().describe_group("c");
  CHECK_FALSE(d.found);
  CHECK(d.error_message == "Group c is not a classic group.");
  CHECK(f.c().describe_consumer_group("g").message == "Group g is not a consumer group.");

  auto consumers = f.c().list_groups({}, {"Consumer"});
  REQUIRE(consumers.size() == 1);
  CHECK(consumers[0].group_id == "c");
  CHECK(consumers[0].protocol_type == "consumer");
  CHECK(consumers[0].state == "Stable");
  CHECK(f.c().list_groups({}, {"classic"}).size() == 1);
  CHECK(f.c().list_groups().size() == 2);

  CHECK(f.c().delete_groups({"c"}) == std::vector<ErrorCode>{ErrorCode::kNonEmptyGroup});
  auto left = m.base("a", -1);
  left.group_id = "c";
  REQUIRE(f.c().consumer_heartbeat(left).error == ErrorCode::kNone);
  CHECK(f.c().list_groups({"empty"}, {"consumer"}).size() == 1);
  CHECK(f.c().delete_groups({"c"}) == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(f.c().describe_consumer_group("c").message == "Group c not found.");
}

TEST_CASE("consumer groups: offset commits carry the member epoch") {
  GroupFixture f;
  Members m(f.c());
  m.join("a");
  m.join("b");
  OffsetCommitParams p;
  p.group_id = "g";
  p.member_id = "a";
  p.generation_id = 1;
  p.offsets = {{{"foo", 0}, {.offset = 5}}};
  CHECK(f.c().commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kNone});
  p.generation_id = 0;
  CHECK(f.c().commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kStaleMemberEpoch});
  p.generation_id = 3;  // newer: Kafka 4.4's ConsumerGroup.validateOffsetCommit says STALE too
  CHECK(f.c().commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kStaleMemberEpoch});
  p.member_id = "nobody";
  CHECK(f.c().commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kUnknownMemberId});
  p.member_id.clear();
  p.generation_id = -1;
  CHECK(f.c().commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kUnknownMemberId});
}
