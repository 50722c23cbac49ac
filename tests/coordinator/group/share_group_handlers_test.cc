// The share-group handlers (ShareGroupHeartbeat, ShareGroupDescribe,
// Describe/Alter/DeleteShareGroupOffsets) called directly with encoded
// requests over the harness's broker (they are not registered in KafkaApis
// yet), with a fake ShareStateInitializer; and the share type through the
// registered ListGroups / DescribeGroups / DeleteGroups.
#include "api/handlers/alter_share_group_offsets_handler.h"
#include "api/handlers/delete_share_group_offsets_handler.h"
#include "api/handlers/describe_share_group_offsets_handler.h"
#include "api/handlers/share_group_describe_handler.h"
#include "api/handlers/share_group_heartbeat_handler.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/frame.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"
#include "tests/api/api_harness.h"
#include "tests/coordinator/group/share_group_support.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

struct Rig {
  test::ApiHarness h{{"group.share.assignment.interval.ms=0"}};
  test::FakeShareState port;
  api::BrokerServices& services = h.components().services();
  api::ShareGroupHeartbeatHandler heartbeat{services};
  api::ShareGroupDescribeHandler describe{services};
  api::DescribeShareGroupOffsetsHandler describe_offsets{services};
  api::AlterShareGroupOffsetsHandler alter_offsets{services};
  api::DeleteShareGroupOffsetsHandler delete_offsets{services};
  test::CapturingSender sender;

  Rig() {
    services.groups->set_share_state(&port);
    REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("t", 2, 1), 5).topics[0].error_code == 0);
  }
  ~Rig() { services.groups->set_share_state(nullptr); }

  template <class Resp, class Req>
  Resp call(api::ApiHandler& handler, const Req& body, int16_t version) {
    auto bytes = h.frame(body, version);
    network::Request raw;
    raw.context.listener_name = "PLAINTEXT";
    raw.context.peer_address = "127.0.0.1";
    raw.context.principal = "User:ANONYMOUS";
    raw.frame = network::Frame(bytes.size());
    std::copy(bytes.begin(), bytes.end(), raw.frame.data());
    protocol::ByteReader reader(raw.frame.bytes());
    auto decoded = protocol::read_request_header(reader);
    api::ApiRequest request{std::move(raw), std::move(decoded.header), reader.position()};
    api::Responder out(sender, request.context(), request.correlation_id(), request.api_version());
    handler.handle(request, out);
    auto r = sender.wait();
    REQUIRE(r.has_value());
    return h.decode<Resp>(*r, version);
  }

  ShareGroupHeartbeatResponse beat(const std::string& member, int32_t epoch,
                                   std::optional<std::vector<std::string>> topics = std::nullopt) {
    ShareGroupHeartbeatRequest req;
    req.group_id = "sg";
    req.member_id = member;
    req.member_epoch = epoch;
    req.subscribed_topic_names = std::move(topics);
    return call<ShareGroupHeartbeatResponse>(heartbeat, req, 1);
  }
  Uuid topic_id() { return h.logs().topic("t")->topic_id; }
};

}  // namespace

TEST_CASE("ShareGroupHeartbeat and ShareGroupDescribe through their handlers", "[groups][kip932][api]") {
  Rig rig;
  auto j = rig.beat("m-1", 0, std::vector<std::string>{"t"});
  REQUIRE(j.error_code == 0);
  CHECK(j.member_id == "m-1");
  CHECK(j.member_epoch == 1);
  CHECK(j.heartbeat_interval_ms == 5000);
  REQUIRE(j.assignment);
  CHECK(j.assignment->topic_partitions.empty());
  auto b = rig.beat("m-1", 1);
  REQUIRE(b.error_code == 0);
  CHECK(b.member_epoch == 2);
  REQUIRE(b.assignment);
  REQUIRE(b.assignment->topic_partitions.size() == 1);
  CHECK(b.assignment->topic_partitions[0].topic_id == rig.topic_id());
  CHECK(b.assignment->topic_partitions[0].partitions == std::vector<int32_t>{0, 1});
  auto bad = rig.beat("", 0, std::vector<std::string>{"t"});
  CHECK(bad.error_code == code(ErrorCode::kInvalidRequest));
  CHECK(bad.error_message == "MemberId can't be empty.");

  ShareGroupDescribeRequest dr;
  dr.group_ids = {"sg", "nope"};
  dr.include_authorized_operations = true;
  auto d = rig.call<ShareGroupDescribeResponse>(rig.describe, dr, 1);
  REQUIRE(d.groups.size() == 2);
  CHECK(d.groups[0].error_code == 0);
  CHECK(d.groups[0].group_state == "Stable");
  CHECK(d.groups[0].assignor_name == "simple");
  CHECK(d.groups[0].group_epoch == 2);
  CHECK(d.groups[0].authorized_operations != (-2147483647 - 1));
  REQUIRE(d.groups[0].members.size() == 1);
  CHECK(d.groups[0].members[0].client_id == "harness");
  CHECK(d.groups[0].members[0].client_host == "/127.0.0.1");
  REQUIRE(d.groups[0].members[0].assignment.topic_partitions.size() == 1);
  CHECK(d.groups[0].members[0].assignment.topic_partitions[0].topic_name == "t");
  CHECK(d.groups[1].error_code == code(ErrorCode::kGroupIdNotFound));
  CHECK(d.groups[1].error_message == "Group nope not found.");

  // The registered group APIs see the share group.
  ListGroupsRequest lr;
  lr.types_filter = {"share"};
  auto l = rig.h.call<ListGroupsResponse>(lr, 5);
  REQUIRE(l.groups.size() == 1);
  CHECK(l.groups[0].group_id == "sg");
  CHECK(l.groups[0].group_type == "share");
  CHECK(l.groups[0].group_state == "Stable");
  DescribeGroupsRequest dg;
  dg.groups = {"sg"};
  auto dgr = rig.h.call<DescribeGroupsResponse>(dg, 6);
  REQUIRE(dgr.groups.size() == 1);
  CHECK(dgr.groups[0].group_state == "Dead");
  CHECK(dgr.groups[0].error_code == code(ErrorCode::kGroupIdNotFound));
  DeleteGroupsRequest del;
  del.groups_names = {"sg"};
  CHECK(rig.h.call<DeleteGroupsResponse>(del, 2).results[0].error_code == code(ErrorCode::kNonEmptyGroup));
  REQUIRE(rig.beat("m-1", -1).error_code == 0);
  CHECK(rig.h.call<DeleteGroupsResponse>(del, 2).results[0].error_code == 0);
}

TEST_CASE("share-group offsets admin through their handlers", "[groups][kip932][api]") {
  Rig rig;
  REQUIRE(rig.beat("m-1", 0, std::vector<std::string>{"t"}).error_code == 0);
  AlterShareGroupOffsetsRequest ar;
  ar.group_id = "sg";
  auto& at = ar.topics.emplace_back();
  at.topic_name = "t";
  auto& ap = at.partitions.emplace_back();
  ap.partition_index = 0;
  ap.start_offset = 3;
  auto a = rig.call<AlterShareGroupOffsetsResponse>(rig.alter_offsets, ar, 0);
  CHECK(a.error_code == code(ErrorCode::kNonEmptyGroup));
  REQUIRE(rig.beat("m-1", -1).error_code == 0);
  a = rig.call<AlterShareGroupOffsetsResponse>(rig.alter_offsets, ar, 0);
  REQUIRE(a.error_code == 0);
  REQUIRE(a.responses.size() == 1);
  CHECK(a.responses[0].topic_id == rig.topic_id());
  CHECK(a.responses[0].partitions[0].error_code == 0);

  DescribeShareGroupOffsetsRequest dr;
  auto& g = dr.groups.emplace_back();
  g.group_id = "sg";
  g.topics = std::vector<DescribeShareGroupOffsetsRequest::DescribeShareGroupOffsetsRequestTopic>{};
  auto& t = g.topics->emplace_back();
  t.topic_name = "t";
  t.partitions = {0};
  auto d = rig.call<DescribeShareGroupOffsetsResponse>(rig.describe_offsets, dr, 1);
  REQUIRE(d.groups.size() == 1);
  REQUIRE(d.groups[0].topics.size() == 1);
  CHECK(d.groups[0].topics[0].topic_name == "t");
  CHECK(d.groups[0].topics[0].partitions[0].start_offset == 3);
  CHECK(d.groups[0].topics[0].partitions[0].lag == -3);  // empty partition: end 0 - start 3 - 0

  DeleteShareGroupOffsetsRequest xr;
  xr.group_id = "sg";
  xr.topics.emplace_back().topic_name = "t";
  auto x = rig.call<DeleteShareGroupOffsetsResponse>(rig.delete_offsets, xr, 0);
  REQUIRE(x.error_code == 0);
  REQUIRE(x.responses.size() == 1);
  CHECK(x.responses[0].error_code == 0);
  CHECK(x.responses[0].topic_id == rig.topic_id());
}
