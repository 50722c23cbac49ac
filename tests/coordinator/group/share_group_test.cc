// KIP-932's share groups in the GroupCoordinator (Kafka 4.4's
// GroupMetadataManager share-group paths): ShareGroupHeartbeat (join,
// heartbeat, leave, session expiry, max size, epochs), the simple assignor,
// the share-partition state initialization through the port, type clashes
// with classic and consumer groups, the records replayed at startup,
// describe / list / delete and the share-group offsets admin paths.
#include "coordinator/group/share_group.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "coordinator/group/offsets_log.h"
#include "tests/coordinator/group/share_group_support.h"

using namespace skiff;
using namespace skiff::test;
using group::consumer::Assignment;

namespace {

size_t count(const Assignment& a) {
  size_t n = 0;
  for (const auto& [t, ps] : a) n += ps.size();
  return n;
}

Uuid tid(uint8_t n) {
  Uuid id;
  id.bytes[0] = 7;
  id.bytes[15] = n;
  return id;
}

}  // namespace

TEST_CASE("simple assignor: more members than partitions share each partition", "[groups][kip932]") {
  const Uuid t = tid(1);
  std::vector<group::SimpleAssignorMember> ms{{"a", {t}, {}}, {"b", {t}, {}}, {"c", {t}, {}}};
  auto out = group::simple_assign(ms, {{t, {0, 1}}});
  REQUIRE(out.size() == 3);
  std::map<int32_t, int> holders;
  for (const auto& [m, a] : out) {
    CHECK(count(a) >= 1);  // everybody gets work
    for (int32_t p : a.at(t)) ++holders[p];
  }
  // desiredSharing = ceil(3 / 2) = 2: each partition has two members.
  CHECK(holders == std::map<int32_t, int>{{0, 2}, {1, 2}});
}

TEST_CASE("simple assignor: fewer members than partitions split them, sticky", "[groups][kip932]") {
  const Uuid t = tid(1);
  std::vector<group::SimpleAssignorMember> ms{{"a", {t}, {}}, {"b", {t}, {}}};
  auto first = group::simple_assign(ms, {{t, {0, 1, 2, 3}}});
  CHECK(count(first["a"]) == 2);
  CHECK(count(first["b"]) == 2);
  // A third member: a and b keep what they can, nobody holds a partition twice.
  ms[0].current = first["a"];
  ms[1].current = first["b"];
  ms.push_back({"c", {t}, {}});
  auto next = group::simple_assign(ms, {{t, {0, 1, 2, 3}}});
  std::set<int32_t> all;
  size_t total = 0;
  for (const auto& [m, a] : next) {
    total += count(a);
    for (const auto& [tt, ps] : a) all.insert(ps.begin(), ps.end());
  }
  CHECK(total == 4);
  CHECK(all == std::set<int32_t>{0, 1, 2, 3});
  CHECK(count(next["c"]) >= 1);
  size_t kept = 0;
  for (int32_t p : first["a"].at(t)) kept += next["a"].count(t) && next["a"].at(t).count(p);
  CHECK(kept >= 1);
}

TEST_CASE("simple assignor: heterogeneous subscriptions, only assignable partitions", "[groups][kip932]") {
  const Uuid t1 = tid(1), t2 = tid(2);
  std::vector<group::SimpleAssignorMember> ms{{"a", {t1}, {}}, {"b", {t1, t2}, {}}};
  auto out = group::simple_assign(ms, {{t1, {0, 1}}, {t2, {0}}});  // t2's partition 1 not initialized
  CHECK(!out["a"].contains(t2));
  CHECK(out["b"].at(t2) == std::set<int32_t>{0});
  CHECK(count(out["a"]) + count(out["b"]) == 3);
  CHECK(group::simple_assign({}, {{t1, {0}}}).empty());
}

TEST_CASE("share heartbeat: join, initialization through the port, then the partitions", "[groups][kip932]") {
  ShareFixture s;
  auto j = s.join("m1");
  REQUIRE(j.error == ErrorCode::kNone);
  CHECK(j.member_id == "m1");
  CHECK(j.member_epoch == 1);
  CHECK(j.heartbeat_interval_ms == 5000);
  REQUIRE(j.assignment);
  CHECK(j.assignment->empty());  // nothing initialized yet: nothing assigned
  {
    std::lock_guard lock(s.port.mu);
    REQUIRE(s.port.inits.size() == 1);
    CHECK(s.port.inits[0].group == "s");
    CHECK(s.port.inits[0].state_epoch == 1);
    REQUIRE(s.port.inits[0].partitions.size() == 4);
    for (const auto& p : s.port.inits[0].partitions) {
      CHECK(p.partition.topic_id == s.id("foo"));
      CHECK(p.start_offset == -1);  // a topic new to the group: share.auto.offset.reset decides
    }
  }
  // The port answered: the next heartbeat bumps the epoch and assigns them.
  auto b = s.beat("m1", 1);
  REQUIRE(b.error == ErrorCode::kNone);
  CHECK(b.member_epoch == 2);
  REQUIRE(b.assignment);
  CHECK(*b.assignment == Assignment{{s.id("foo"), {0, 1, 2, 3}}});
  // Nothing changed: no assignment in the answer, no new initialization.
  auto c = s.beat("m1", 2);
  CHECK(c.member_epoch == 2);
  CHECK(!c.assignment);
  std::lock_guard lock(s.port.mu);
  CHECK(s.port.inits.size() == 1);
}

TEST_CASE("share heartbeat: members share partitions, a subscription change bumps the epoch", "[groups][kip932]") {
  ShareFixture s;
  s.join("a", {"bar"});
  s.settle("a", 1);
  const auto jb = s.join("b", {"bar"});
  const auto jc = s.join("c", {"bar"});
  auto ra = s.settle("a", 2);
  auto rb = s.settle("b", jb.member_epoch);
  auto rc = s.settle("c", jc.member_epoch);
  ra = s.settle("a", ra.member_epoch);
  std::map<int32_t, int> holders;
  for (const auto* r : {&ra, &rb, &rc}) {
    REQUIRE(r->assignment);
    CHECK(count(*r->assignment) >= 1);
    for (const auto& [t, ps] : *r->assignment)
      for (int32_t p : ps) ++holders[p];
  }
  CHECK(holders == std::map<int32_t, int>{{0, 2}, {1, 2}});  // 3 members, 2 partitions: each shared twice
  auto d = s.f.c().describe_share_group("s");
  REQUIRE(d.error == ErrorCode::kNone);
  const int32_t epoch = d.group_epoch;
  auto p = s.params("a", ra.member_epoch);
  p.subscribed_names = std::vector<std::string>{"bar", "foo"};
  auto r = s.f.c().share_heartbeat(p);
  REQUIRE(r.error == ErrorCode::kNone);
  CHECK(s.f.c().describe_share_group("s").group_epoch > epoch);
  {
    std::lock_guard lock(s.port.mu);
    REQUIRE(s.port.inits.size() == 2);  // foo's partitions asked for now
    CHECK(s.port.inits[1].partitions.size() == 4);
  }
}

TEST_CASE("share heartbeat: Kafka's validation and epoch errors", "[groups][kip932]") {
  ShareFixture s;
  auto p = s.params("", 0);
  p.subscribed_names = std::vector<std::string>{"foo"};
  auto r = s.f.c().share_heartbeat(p);
  CHECK(r.error == ErrorCode::kInvalidRequest);
  CHECK(r.message == "MemberId can't be empty.");
  r = s.f.c().share_heartbeat(s.params("m", 0));
  CHECK(r.message == "SubscribedTopicNames must be set in first request.");
  r = s.f.c().share_heartbeat(s.params("m", -2));
  CHECK(r.message == "MemberEpoch is invalid.");
  p = s.params("m", 0);
  p.subscribed_names = std::vector<std::string>{"foo"};
  p.rack_id = "";
  CHECK(s.f.c().share_heartbeat(p).message == "RackId can't be empty.");
  CHECK(s.beat("m", 1, "nope").error == ErrorCode::kGroupIdNotFound);
  CHECK(s.beat("m", 1, "nope").message == "Share group nope not found.");
  CHECK(s.beat("m", -1, "nope").message == "Group nope not found.");
  REQUIRE(s.join("m").member_epoch == 1);
  r = s.beat("m", 5);
  CHECK(r.error == ErrorCode::kFencedMemberEpoch);
  CHECK(r.message->starts_with("The share group member has a greater member epoch (5)"));
  r = s.beat("zz", 1);
  CHECK(r.error == ErrorCode::kUnknownMemberId);
  CHECK(r.message == "Member zz is not a member of group s.");
  auto b = s.beat("m", 1);  // now epoch 2 (initialized partitions)
  REQUIRE(b.member_epoch == 2);
  CHECK(s.beat("m", 1).error == ErrorCode::kNone);  // the previous epoch is still accepted
  CHECK(s.join("m").error == ErrorCode::kNone);     // a rejoin
  CHECK(s.beat("m", 0).message == "SubscribedTopicNames must be set in first request.");
}

TEST_CASE("share heartbeat: leave, and the group is Empty", "[groups][kip932]") {
  ShareFixture s;
  s.join("a");
  auto b = s.settle("a", 1);
  auto l = s.beat("a", -1);
  REQUIRE(l.error == ErrorCode::kNone);
  CHECK(l.member_id == "a");
  CHECK(l.member_epoch == -1);
  auto d = s.f.c().describe_share_group("s");
  CHECK(d.state == "Empty");
  CHECK(d.members.empty());
  CHECK(d.group_epoch == b.member_epoch + 1);
  CHECK(d.assignment_epoch == d.group_epoch);
  CHECK(s.beat("a", -1).error == ErrorCode::kUnknownMemberId);
}

TEST_CASE("share heartbeat: group.share.max.size", "[groups][kip932]") {
  auto config = share_config();
  config.share_max_size = 2;
  ShareFixture s(config);
  REQUIRE(s.join("a").error == ErrorCode::kNone);
  REQUIRE(s.join("b").error == ErrorCode::kNone);
  auto r = s.join("c");
  CHECK(r.error == ErrorCode::kGroupMaxSizeReached);
  CHECK(r.message == "The share group has reached its maximum capacity of 2 members.");
  CHECK(s.join("a").error == ErrorCode::kNone);  // a member already in may rejoin
}

TEST_CASE("share heartbeat: a silent member's session expires and the others take its partitions", "[groups][kip932]") {
  auto config = share_config();
  config.share_session_timeout_ms = 300;
  config.share_min_session_timeout_ms = 10;
  config.share_heartbeat_interval_ms = 20;
  config.share_min_heartbeat_interval_ms = 10;
  ShareFixture s(config);
  s.join("a");
  auto rb = s.settle("b", s.join("b").member_epoch);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline && s.f.c().describe_share_group("s").members.size() > 1) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    rb = s.settle("b", rb.member_epoch);
  }
  REQUIRE(s.f.c().describe_share_group("s").members.size() == 1);
  rb = s.settle("b", rb.member_epoch);
  CHECK(*rb.assignment == Assignment{{s.id("foo"), {0, 1, 2, 3}}});
}

TEST_CASE("share groups share the group-id namespace with classic and consumer groups", "[groups][kip932]") {
  ShareFixture s;
  REQUIRE(s.join("m").error == ErrorCode::kNone);
  // A consumer group "c".
  ConsumerHeartbeatParams cp;
  cp.group_id = "c";
  cp.member_id = "x";
  cp.rebalance_timeout_ms = 1000;
  cp.subscribed_names = std::vector<std::string>{"foo"};
  cp.owned = Assignment{};
  cp.resolve = s.resolver();
  REQUIRE(s.f.c().consumer_heartbeat(cp).error == ErrorCode::kNone);
  auto r = s.join("m", {"foo"}, "c");
  CHECK(r.error == ErrorCode::kGroupIdNotFound);
  CHECK(r.message == "Group c is not a share group.");
  cp.group_id = "s";
  auto cr = s.f.c().consumer_heartbeat(cp);
  CHECK(cr.error == ErrorCode::kGroupIdNotFound);
  CHECK(cr.message == "Group s is not a consumer group.");
  CHECK(s.f.join(join_params("s")).error == ErrorCode::kInconsistentGroupProtocol);
  CHECK(s.f.heartbeat("s", 1, "m") == ErrorCode::kGroupIdNotFound);
  CHECK(s.f.start_sync("s", 1, "m").get().error == ErrorCode::kGroupIdNotFound);
  CHECK(s.f.c().leave_group("s", {{"m", std::nullopt}}).error == ErrorCode::kGroupIdNotFound);
  TxnOffsetCommitParams tc;
  tc.group_id = "s";
  tc.producer_id = 1;
  tc.producer_epoch = 0;
  tc.offsets.push_back({{"foo", 0}, OffsetAndMetadata{}});
  CHECK(s.f.c().commit_txn_offsets(tc) == std::vector<ErrorCode>{ErrorCode::kGroupIdNotFound});
  auto dg = s.f.c().describe_group("s");
  CHECK(!dg.found);
  CHECK(dg.state == "Dead");
  CHECK(dg.error_message == "Group s is not a classic group.");
  CHECK(s.f.c().describe_consumer_group("s").message == "Group s is not a consumer group.");
  CHECK(s.f.c().describe_share_group("c").message == "Group c is not a share group.");
  CHECK(s.f.c().fetch_offsets("s", std::nullopt).error == ErrorCode::kGroupIdNotFound);
  OffsetCommitParams oc;
  oc.group_id = "s";
  OffsetAndMetadata five;
  five.offset = 5;
  oc.offsets.push_back({{"foo", 0}, five});
  CHECK(s.f.c().commit_offsets(oc) == std::vector<ErrorCode>{ErrorCode::kGroupIdNotFound});
  CHECK(s.f.c().delete_offsets("s", {{"foo", 0}}).error == ErrorCode::kGroupIdNotFound);
}

TEST_CASE("share groups: list, describe, delete", "[groups][kip932]") {
  ShareFixture s;
  s.join("a");
  auto ra = s.settle("a", 1);
  auto listed = s.f.c().list_groups({}, {"share"});
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].group_id == "s");
  CHECK(listed[0].group_type == "share");
  CHECK(listed[0].protocol_type == "share");
  CHECK(listed[0].state == "Stable");
  CHECK(s.f.c().list_groups({"Empty"}, {"share"}).empty());
  CHECK(s.f.c().list_groups({}, {"consumer"}).empty());
  auto d = s.f.c().describe_share_group("s");
  REQUIRE(d.error == ErrorCode::kNone);
  CHECK(d.assignor == "simple");
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].client_id == "client-a");
  CHECK(d.members[0].member_epoch == ra.member_epoch);
  CHECK(d.members[0].subscribed_names == std::vector<std::string>{"foo"});
  CHECK(d.members[0].assigned == *ra.assignment);
  CHECK(d.topic_names.at(s.id("foo")) == "foo");
  CHECK(s.f.c().delete_groups({"s"}) == std::vector<ErrorCode>{ErrorCode::kNonEmptyGroup});
  REQUIRE(s.beat("a", -1).error == ErrorCode::kNone);
  CHECK(s.f.c().list_groups({"Empty"}, {"share"}).size() == 1);
  CHECK(s.f.c().delete_groups({"s"}) == std::vector<ErrorCode>{ErrorCode::kNone});
  {
    std::lock_guard lock(s.port.mu);
    REQUIRE(s.port.removes.size() == 1);  // its share-partition state goes too
    CHECK(s.port.removes[0].partitions.size() == 4);
  }
  CHECK(s.f.c().describe_share_group("s").error == ErrorCode::kGroupIdNotFound);
  s.restart();
  CHECK(s.f.c().describe_share_group("s").error == ErrorCode::kGroupIdNotFound);
  CHECK(s.f.c().list_groups().empty());
}

TEST_CASE("share groups: the records replayed at startup give the live state", "[groups][kip932]") {
  ShareFixture s;
  s.join("a", {"foo", "bar"});
  const auto jb = s.join("b", {"foo"});
  auto ra = s.settle("a", 1);
  auto rb = s.settle("b", jb.member_epoch);
  ra = s.settle("a", ra.member_epoch);
  auto p = s.params("b", rb.member_epoch);
  p.rack_id = "r1";
  REQUIRE(s.f.c().share_heartbeat(p).error == ErrorCode::kNone);
  const auto before = s.f.c().describe_share_group("s");
  s.restart();
  const auto after = s.f.c().describe_share_group("s");
  REQUIRE(after.error == ErrorCode::kNone);
  CHECK(after.state == before.state);
  CHECK(after.group_epoch == before.group_epoch);
  CHECK(after.assignment_epoch == before.assignment_epoch);
  REQUIRE(after.members.size() == before.members.size());
  for (size_t i = 0; i < after.members.size(); ++i) {
    CHECK(after.members[i].member_id == before.members[i].member_id);
    CHECK(after.members[i].member_epoch == before.members[i].member_epoch);
    CHECK(after.members[i].rack_id == before.members[i].rack_id);
    CHECK(after.members[i].client_id == before.members[i].client_id);
    CHECK(after.members[i].subscribed_names == before.members[i].subscribed_names);
    CHECK(after.members[i].assigned == before.members[i].assigned);
  }
  // The members go on with their epochs; nothing is initialized again.
  auto again = s.beat("a", ra.member_epoch);
  CHECK(again.error == ErrorCode::kNone);
  CHECK(again.member_epoch == before.group_epoch);
  std::lock_guard lock(s.port.mu);
  CHECK(s.port.inits.size() == 1);  // foo and bar, at the first join, once
}

TEST_CASE("share groups: a failed initialization is asked again, partitions unassigned until then",
          "[groups][kip932]") {
  ShareFixture s;
  s.port.fail_init = true;
  s.join("a");
  auto r = s.beat("a", 1);
  CHECK(r.member_epoch == 1);
  CHECK(!r.assignment);
  s.port.fail_init = false;
  r = s.settle("a", 1);  // asked again at the next heartbeat (no longer initializing)
  CHECK(*r.assignment == Assignment{{s.id("foo"), {0, 1, 2, 3}}});
}

TEST_CASE("share groups: DescribeShareGroupOffsets reads the summary, with the lag", "[groups][kip932]") {
  ShareFixture s;
  s.join("a");
  s.settle("a", 1);
  group::ShareOffsetsDescription got;
  s.f.c().describe_share_offsets("s", std::vector<group::ShareOffsetsTopicRequest>{{"foo", {0, 1}}, {"nope", {0}}},
                                 [&](group::ShareOffsetsDescription d) { got = std::move(d); });
  REQUIRE(got.error == ErrorCode::kNone);
  REQUIRE(got.topics.size() == 2);
  CHECK(got.topics[0].topic == "foo");
  CHECK(got.topics[0].topic_id == s.id("foo"));
  REQUIRE(got.topics[0].partitions.size() == 2);
  CHECK(got.topics[0].partitions[0].start_offset == 0);
  CHECK(got.topics[0].partitions[0].lag == 0);  // empty partition: end 0 - start 0 - 0 complete
  CHECK(got.topics[1].topic == "nope");
  CHECK(got.topics[1].topic_id == Uuid{});
  CHECK(got.topics[1].partitions[0].start_offset == -1);
  // Every initialized partition when no topic is named; no delivery-complete count: no lag.
  s.port.summaries[{s.id("foo"), 2}].delivery_complete_count = -1;
  s.f.c().describe_share_offsets("s", std::nullopt, [&](group::ShareOffsetsDescription d) { got = std::move(d); });
  REQUIRE(got.topics.size() == 1);
  REQUIRE(got.topics[0].partitions.size() == 4);
  CHECK(got.topics[0].partitions[2].lag == -1);
}

TEST_CASE("share groups: AlterShareGroupOffsets on an empty group only", "[groups][kip932]") {
  ShareFixture s;
  s.join("a");
  group::AlterShareOffsetsResult got;
  auto cb = [&](group::AlterShareOffsetsResult r) { got = std::move(r); };
  s.f.c().alter_share_offsets("s", {{"foo", {{0, 10}}}}, cb);
  CHECK(got.error == ErrorCode::kNonEmptyGroup);
  CHECK(got.message == "The group is not empty.");
  s.f.c().alter_share_offsets("fresh", {{"foo", {{0, 10}, {9, 1}}}, {"nope", {{0, 1}}}}, cb);
  REQUIRE(got.error == ErrorCode::kNone);
  REQUIRE(got.topics.size() == 2);
  CHECK(got.topics[0].topic_id == s.id("foo"));
  CHECK(got.topics[0].partitions[0].error == ErrorCode::kNone);
  CHECK(got.topics[0].partitions[1].error == ErrorCode::kUnknownTopicOrPartition);
  CHECK(got.topics[1].partitions[0].error == ErrorCode::kUnknownTopicOrPartition);
  {
    std::lock_guard lock(s.port.mu);
    const auto& last = s.port.inits.back();
    CHECK(last.group == "fresh");
    REQUIRE(last.partitions.size() == 1);
    CHECK(last.partitions[0].start_offset == 10);
  }
  // The new group is a share group, Empty, with partition 0 initialized.
  CHECK(s.f.c().describe_share_group("fresh").state == "Empty");
  // A consumer group's id: not a share group.
  ConsumerHeartbeatParams cp;
  cp.group_id = "c";
  cp.member_id = "x";
  cp.rebalance_timeout_ms = 1000;
  cp.subscribed_names = std::vector<std::string>{"foo"};
  cp.owned = Assignment{};
  cp.resolve = s.resolver();
  REQUIRE(s.f.c().consumer_heartbeat(cp).error == ErrorCode::kNone);
  s.f.c().alter_share_offsets("c", {{"foo", {{0, 1}}}}, cb);
  CHECK(got.error == ErrorCode::kGroupIdNotFound);
  CHECK(got.message == "Group c is not a share group.");
}

TEST_CASE("share groups: DeleteShareGroupOffsets deletes an empty group's partition state", "[groups][kip932]") {
  ShareFixture s;
  s.join("a");
  s.settle("a", 1);
  group::DeleteShareOffsetsResult got;
  auto cb = [&](group::DeleteShareOffsetsResult r) { got = std::move(r); };
  s.f.c().delete_share_offsets("s", {"foo"}, cb);
  CHECK(got.error == ErrorCode::kNonEmptyGroup);
  REQUIRE(s.beat("a", -1).error == ErrorCode::kNone);
  s.f.c().delete_share_offsets("s", {"foo", "bar", "nope"}, cb);
  REQUIRE(got.error == ErrorCode::kNone);
  std::map<std::string, group::DeleteShareTopicResult> by;
  for (const auto& t : got.topics) by[t.topic] = t;
  CHECK(by.at("foo").error == ErrorCode::kNone);
  CHECK(by.at("foo").topic_id == s.id("foo"));
  CHECK(by.at("bar").error == ErrorCode::kUnknownTopicOrPartition);
  CHECK(by.at("bar").message == "There is no offset information to delete.");
  CHECK(by.at("nope").error == ErrorCode::kUnknownTopicOrPartition);
  {
    std::lock_guard lock(s.port.mu);
    REQUIRE(s.port.removes.size() == 1);
    CHECK(s.port.removes[0].partitions.size() == 4);
  }
  s.f.c().delete_share_offsets("nope", {"foo"}, cb);
  CHECK(got.error == ErrorCode::kGroupIdNotFound);
  CHECK(got.message == "Group nope not found.");
  // A later member gets foo's partitions initialized again (start offset -1).
  s.join("b");
  std::lock_guard lock(s.port.mu);
  CHECK(s.port.inits.back().partitions.size() == 4);
  CHECK(s.port.inits.back().partitions[0].start_offset == -1);
}

TEST_CASE("share groups: the ShareGroup* records round-trip", "[groups][kip932]") {
  group::ShareGroupRecord r;
  r.type = group::kShareStatePartitionMetadataType;
  r.group_id = "g";
  r.state.initializing[tid(1)] = {"t1", {0, 2}, -1};
  r.state.initialized[tid(2)] = {"t2", {1}, -1};
  r.state.deleting[tid(3)] = "t3";
  auto key = group::encode_share_key(r);
  auto value = group::encode_share_value(r);
  REQUIRE(value);
  auto back = group::decode_offsets_log_record(key, std::span<const uint8_t>(*value));
  REQUIRE(back.kind == group::OffsetsLogRecord::Kind::kShare);
  CHECK(back.share->group_id == "g");
  CHECK(back.share->state == r.state);
  group::ShareGroupRecord m;
  m.type = group::kShareCurrentAssignmentType;
  m.group_id = "g";
  m.member_id = "m";
  m.member.member_epoch = 3;
  m.member.previous_member_epoch = 2;
  m.member.assigned = {{tid(1), {0, 1}}};
  key = group::encode_share_key(m);
  value = group::encode_share_value(m);
  back = group::decode_offsets_log_record(key, std::span<const uint8_t>(*value));
  CHECK(back.share->member.assigned == m.member.assigned);
  CHECK(back.share->member.member_epoch == 3);
  CHECK(back.share->member.previous_member_epoch == 2);
  CHECK(key[1] == 14);  // the int16 record type
  m.tombstone = true;
  CHECK(!group::encode_share_value(m));
}

TEST_CASE("share groups: a deleted topic leaves the share-state bookkeeping", "[groups][kip932]") {
  ShareFixture s;
  s.join("a", {"foo", "bar"});
  s.settle("a", 1);
  REQUIRE(s.f.logs->delete_topic("bar"));
  s.f.c().delete_offsets_where([](const group::TopicPartition& tp) { return tp.topic == "bar"; });
  // DescribeShareGroupOffsets of every initialized partition: foo's only.
  group::ShareOffsetsDescription got;
  s.f.c().describe_share_offsets("s", std::nullopt, [&](group::ShareOffsetsDescription d) { got = std::move(d); });
  REQUIRE(got.topics.size() == 1);
  CHECK(got.topics[0].topic == "foo");
  // Durably: after a restart too.
  s.restart();
  s.f.c().describe_share_offsets("s", std::nullopt, [&](group::ShareOffsetsDescription d) { got = std::move(d); });
  REQUIRE(got.topics.size() == 1);
  // bar created again: a new topic to the group, initialized from -1.
  REQUIRE(s.f.logs->create_topic("bar", 2));
  auto r = s.beat("a", s.f.c().describe_share_group("s").members[0].member_epoch);
  REQUIRE(r.error == ErrorCode::kNone);
  std::lock_guard lock(s.port.mu);
  CHECK(s.port.inits.back().partitions.size() == 2);
  CHECK(s.port.inits.back().partitions[0].start_offset == -1);
}

// A child process answers the heartbeats (and the port's initializations),
// then dies by SIGKILL: what the members were told, and which partitions are
// initialized, is on disk.
TEST_CASE("share group state acknowledged by heartbeats survives kill -9", "[groups][kip932][durability]") {
  ShareFixture s;
  s.f.stop();
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    storage::LogManager logs(s.f.log_config());
    GroupCoordinator c(share_config(), logs);
    FakeShareState port;
    c.set_share_state(&port);
    auto beat = [&](const std::string& member, int32_t epoch, bool join) {
      ShareHeartbeatParams p;
      p.group_id = "s";
      p.member_id = member;
      p.member_epoch = epoch;
      if (join) p.subscribed_names = std::vector<std::string>{"foo"};
      p.resolve = [&logs](const std::string& n) -> std::optional<group::consumer::TopicMetadata> {
        auto t = logs.topic(n);
        if (!t) return std::nullopt;
        return group::consumer::TopicMetadata{t->topic_id, n, t->partitions};
      };
      return c.share_heartbeat(p);
    };
    beat("a", 0, true);
    const auto b = beat("b", 0, true);
    const auto a = beat("a", 1, false);
    const auto b2 = beat("b", b.member_epoch, false);  // no change: no assignment in the answer
    if (!a.assignment || count(*a.assignment) != 2 || !b.assignment || count(*b.assignment) != 2) _exit(1);
    if (b2.error != ErrorCode::kNone || b2.member_epoch != b.member_epoch) _exit(1);
    kill(getpid(), SIGKILL);
    _exit(2);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  s.f.start();
  s.f.c().set_share_state(&s.port);
  auto d = s.f.c().describe_share_group("s");
  REQUIRE(d.members.size() == 2);
  CHECK(count(d.members[0].assigned) == 2);
  CHECK(count(d.members[1].assigned) == 2);
  // The members go on at their epochs; the partitions are known as initialized.
  CHECK(s.beat("a", d.members[0].member_epoch).error == ErrorCode::kNone);
  CHECK(s.beat("b", d.members[1].member_epoch).error == ErrorCode::kNone);
  std::lock_guard lock(s.port.mu);
  CHECK(s.port.inits.empty());
}
