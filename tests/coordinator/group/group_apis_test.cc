// The group APIs through KafkaApis (encoded requests, decoded responses), at
// the oldest and newest versions we serve.
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/heartbeat_request.h"
#include "protocol/generated/heartbeat_response.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/offset_delete_request.h"
#include "protocol/generated/offset_delete_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"
#include "tests/api/api_harness.h"
#include "tests/coordinator/group/group_fixture.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

JoinGroupRequest join(const std::string& member_id, std::optional<std::string> instance = std::nullopt) {
  JoinGroupRequest r;
  r.group_id = "g";
  r.session_timeout_ms = 10000;
  r.rebalance_timeout_ms = 10000;
  r.member_id = member_id;
  r.group_instance_id = std::move(instance);
  r.protocol_type = "consumer";
  JoinGroupRequest::JoinGroupRequestProtocol p;
  p.name = "range";
  p.metadata = test::subscription({"t"});
  r.protocols.push_back(p);
  return r;
}

SyncGroupRequest sync(const std::string& member_id, int32_t generation, bool leader) {
  SyncGroupRequest r;
  r.group_id = "g";
  r.generation_id = generation;
  r.member_id = member_id;
  r.protocol_type = "consumer";
  r.protocol_name = "range";
  if (leader) {
    SyncGroupRequest::SyncGroupRequestAssignment a;
    a.member_id = member_id;
    a.assignment = {0, 1, 2};
    r.assignments.push_back(a);
  }
  return r;
}

OffsetCommitRequest commit(const std::string& member_id, int32_t generation, int64_t offset,
                           const std::string& topic = "t") {
  OffsetCommitRequest r;
  r.group_id = "g";
  r.generation_id_or_member_epoch = generation;
  r.member_id = member_id;
  OffsetCommitRequest::OffsetCommitRequestTopic t;
  t.name = topic;
  OffsetCommitRequest::OffsetCommitRequestPartition p;
  p.partition_index = 0;
  p.committed_offset = offset;
  p.committed_leader_epoch = 0;
  p.committed_metadata = "hello";
  t.partitions.push_back(p);
  r.topics.push_back(t);
  return r;
}

template <class Resp>
Resp next(test::ApiHarness& h, int16_t version) {
  auto r = h.wait(std::chrono::seconds(10));
  REQUIRE(r.has_value());
  return h.decode<Resp>(*r, version);
}

}  // namespace

TEST_CASE("ApiVersions advertises the group APIs with the floors old clients probe", "[groups][api]") {
  test::ApiHarness h;
  auto resp = h.call<ApiVersionsResponse>(ApiVersionsRequest{}, 0);
  auto range = [&](int16_t key) {
    for (auto& k : resp.api_keys)
      if (k.api_key == key) return std::pair<int, int>(k.min_version, k.max_version);
    return std::pair<int, int>(-1, -1);
  };
  CHECK(range(10) == std::pair(0, 6));  // FindCoordinator
  CHECK(range(11) == std::pair(0, 9));  // JoinGroup
  CHECK(range(14) == std::pair(0, 5));  // SyncGroup
  CHECK(range(12) == std::pair(0, 4));  // Heartbeat
  CHECK(range(13) == std::pair(0, 5));  // LeaveGroup
  CHECK(range(8) == std::pair(2, 10));  // OffsetCommit
  CHECK(range(9) == std::pair(1, 10));  // OffsetFetch
  CHECK(range(15) == std::pair(0, 6));  // DescribeGroups
  CHECK(range(16) == std::pair(0, 5));  // ListGroups
  CHECK(range(42) == std::pair(0, 3));  // DeleteGroups
  CHECK(range(47) == std::pair(0, 0));  // OffsetDelete
}

TEST_CASE("FindCoordinator: this node for groups, one key or several", "[groups][api]") {
  test::ApiHarness h;
  FindCoordinatorRequest req;
  req.key = "g";
  for (int16_t v : {0, 1, 3}) {
    auto r = h.call<FindCoordinatorResponse>(req, v);
    CHECK(r.error_code == 0);
    CHECK(r.node_id == 1);
    CHECK(r.host == "broker.test");
    CHECK(r.port == 9092);
  }
  req.key_type = 1;
  auto txn = h.call<FindCoordinatorResponse>(req, 3);  // transactional ids: this node too
  CHECK(txn.error_code == 0);
  CHECK(txn.node_id == 1);
  FindCoordinatorRequest batched;
  batched.coordinator_keys = {"a", "b"};
  for (int16_t v : {4, 6}) {
    auto r = h.call<FindCoordinatorResponse>(batched, v);
    REQUIRE(r.coordinators.size() == 2);
    CHECK(r.coordinators[1].key == "b");
    CHECK(r.coordinators[1].node_id == 1);
    CHECK(r.coordinators[1].port == 9092);
    CHECK(r.coordinators[1].error_code == 0);
  }
}

TEST_CASE("a consumer's life at the oldest versions (librdkafka's probes)", "[groups][api]") {
  test::ApiHarness h({"group.min.session.timeout.ms=100"});
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  auto j = h.call<JoinGroupResponse>(join(""), 0);  // no MEMBER_ID_REQUIRED before v4
  REQUIRE(j.error_code == 0);
  CHECK(j.generation_id == 1);
  CHECK(j.leader == j.member_id);
  CHECK(j.members.size() == 1);
  auto s = h.call<SyncGroupResponse>(sync(j.member_id, 1, true), 0);
  CHECK(s.error_code == 0);
  CHECK(s.assignment == std::vector<uint8_t>{0, 1, 2});
  HeartbeatRequest hb;
  hb.group_id = "g";
  hb.generation_id = 1;
  hb.member_id = j.member_id;
  CHECK(h.call<HeartbeatResponse>(hb, 0).error_code == 0);
  auto c = h.call<OffsetCommitResponse>(commit(j.member_id, 1, 17), 2);
  CHECK(c.topics.at(0).partitions.at(0).error_code == 0);
  CHECK(h.call<OffsetCommitResponse>(commit(j.member_id, 1, 1, "nope"), 2).topics[0].partitions[0].error_code == 3);
  OffsetFetchRequest f;
  f.group_id = "g";
  OffsetFetchRequest::OffsetFetchRequestTopic ft;
  ft.name = "t";
  ft.partition_indexes = {0, 1};
  f.topics->push_back(ft);
  auto fr = h.call<OffsetFetchResponse>(f, 1);
  REQUIRE(fr.topics.size() == 1);
  REQUIRE(fr.topics[0].partitions.size() == 2);
  CHECK(fr.topics[0].partitions[0].committed_offset == 17);
  CHECK(fr.topics[0].partitions[0].metadata == "hello");
  CHECK(fr.topics[0].partitions[1].committed_offset == -1);
  LeaveGroupRequest leave;
  leave.group_id = "g";
  leave.member_id = j.member_id;
  CHECK(h.call<LeaveGroupResponse>(leave, 0).error_code == 0);
  CHECK(h.call<LeaveGroupResponse>(leave, 1).error_code == 25);  // UNKNOWN_MEMBER_ID now
}

TEST_CASE("a consumer's life at the newest versions", "[groups][api]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  auto first = h.call<JoinGroupResponse>(join(""), 9);
  REQUIRE(first.error_code == 79);  // MEMBER_ID_REQUIRED
  auto j = h.call<JoinGroupResponse>(join(first.member_id), 9);
  REQUIRE(j.error_code == 0);
  CHECK(j.member_id == first.member_id);
  CHECK(j.protocol_type == "consumer");
  CHECK(j.protocol_name == "range");
  auto s = h.call<SyncGroupResponse>(sync(j.member_id, j.generation_id, true), 5);
  CHECK(s.error_code == 0);
  CHECK(s.protocol_name == "range");
  auto c = h.call<OffsetCommitResponse>(commit(j.member_id, j.generation_id, 99), 9);
  CHECK(c.topics[0].partitions[0].error_code == 0);

  OffsetFetchRequest f;
  OffsetFetchRequest::OffsetFetchRequestGroup g;
  g.group_id = "g";
  g.topics = std::nullopt;  // every committed offset
  f.groups.push_back(g);
  g.group_id = "unknown";
  f.groups.push_back(g);
  f.require_stable = true;
  auto fr = h.call<OffsetFetchResponse>(f, 8);
  REQUIRE(fr.groups.size() == 2);
  REQUIRE(fr.groups[0].topics.size() == 1);
  CHECK(fr.groups[0].topics[0].partitions[0].committed_offset == 99);
  CHECK(fr.groups[0].topics[0].partitions[0].committed_leader_epoch == 0);
  CHECK(fr.groups[1].topics.empty());

  DescribeGroupsRequest d;
  d.groups = {"g", "unknown"};
  auto dr = h.call<DescribeGroupsResponse>(d, 5);
  REQUIRE(dr.groups.size() == 2);
  CHECK(dr.groups[0].group_state == "Stable");
  CHECK(dr.groups[0].protocol_data == "range");
  REQUIRE(dr.groups[0].members.size() == 1);
  CHECK(dr.groups[0].members[0].client_id == "harness");
  CHECK(dr.groups[0].members[0].member_assignment == std::vector<uint8_t>{0, 1, 2});
  CHECK(dr.groups[1].group_state == "Dead");

  ListGroupsRequest l;
  CHECK(h.call<ListGroupsResponse>(l, 0).groups.size() == 1);
  l.states_filter = {"stable"};
  auto lr = h.call<ListGroupsResponse>(l, 5);
  REQUIRE(lr.groups.size() == 1);
  CHECK(lr.groups[0].group_state == "Stable");
  CHECK(lr.groups[0].group_type == "classic");
  l.states_filter = {"Empty"};
  CHECK(h.call<ListGroupsResponse>(l, 4).groups.empty());
  l.states_filter.clear();
  l.types_filter = {"consumer"};
  CHECK(h.call<ListGroupsResponse>(l, 5).groups.empty());

  DeleteGroupsRequest del;
  del.groups_names = {"g"};
  CHECK(h.call<DeleteGroupsResponse>(del, 2).results[0].error_code == 68);  // NON_EMPTY_GROUP

  LeaveGroupRequest leave;
  leave.group_id = "g";
  LeaveGroupRequest::MemberIdentity who;
  who.member_id = j.member_id;
  leave.members.push_back(who);
  who.member_id = "stranger";
  leave.members.push_back(who);
  auto lv = h.call<LeaveGroupResponse>(leave, 5);
  CHECK(lv.error_code == 0);
  REQUIRE(lv.members.size() == 2);
  CHECK(lv.members[0].error_code == 0);
  CHECK(lv.members[1].error_code == 25);

  OffsetDeleteRequest od;
  od.group_id = "g";
  OffsetDeleteRequest::OffsetDeleteRequestTopic odt;
  odt.name = "t";
  odt.partitions.push_back({});
  od.topics.push_back(odt);
  auto odr = h.call<OffsetDeleteResponse>(od, 0);
  CHECK(odr.error_code == 0);
  CHECK(odr.topics[0].partitions[0].error_code == 0);

  CHECK(h.call<DeleteGroupsResponse>(del, 2).results[0].error_code == 0);
  CHECK(h.call<DeleteGroupsResponse>(del, 0).results[0].error_code == 69);  // GROUP_ID_NOT_FOUND
}

TEST_CASE("a static leader rejoining: skip_assignment only where the wire has it", "[groups][api]") {
  test::ApiHarness h;
  auto a = h.call<JoinGroupResponse>(join("", "i1"), 5);
  REQUIRE(a.error_code == 0);
  REQUIRE(h.call<SyncGroupResponse>(sync(a.member_id, 1, true), 5).error_code == 0);
  auto again5 = h.call<JoinGroupResponse>(join("", "i1"), 5);  // v5: no skip_assignment field
  CHECK(again5.error_code == 0);
  CHECK(again5.generation_id == 1);
  CHECK(again5.leader == again5.member_id);
  CHECK(again5.members.size() == 1);
  auto again9 = h.call<JoinGroupResponse>(join("", "i1"), 9);
  CHECK(again9.error_code == 0);
  CHECK(again9.skip_assignment);
  FindCoordinatorRequest batched;
  batched.coordinator_keys = {"g"};
  batched.key_type = 1;
  auto fc = h.call<FindCoordinatorResponse>(batched, 4);
  CHECK(fc.coordinators.at(0).error_code == 0);
  CHECK(fc.coordinators.at(0).node_id == 1);
}

TEST_CASE("a JoinGroup waits for the other members without a handler thread", "[groups][api]") {
  test::ApiHarness h;
  auto a = h.call<JoinGroupResponse>(join(""), 3);
  REQUIRE(a.error_code == 0);
  h.call<SyncGroupResponse>(sync(a.member_id, 1, true), 3);
  h.start(join(""), 3);  // b (v3: no MEMBER_ID_REQUIRED): waits for a to rejoin
  CHECK_FALSE(h.wait(std::chrono::milliseconds(100)).has_value());
  HeartbeatRequest hb;
  hb.group_id = "g";
  hb.generation_id = 1;
  hb.member_id = a.member_id;
  CHECK(h.call<HeartbeatResponse>(hb, 3).error_code == 27);  // REBALANCE_IN_PROGRESS
  h.start(join(a.member_id), 3);
  auto r1 = next<JoinGroupResponse>(h, 3);
  auto r2 = next<JoinGroupResponse>(h, 3);
  CHECK(r1.generation_id == 2);
  CHECK(r2.generation_id == 2);
  CHECK(r1.leader == a.member_id);
  CHECK(r1.members.size() + r2.members.size() == 2);  // only the leader's has them
}
