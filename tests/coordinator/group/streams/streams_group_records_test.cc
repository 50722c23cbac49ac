// KIP-1071's __consumer_offsets records (coordinator/group/streams/schemas/,
// vendored from kafka-group-coordinator 4.4.0): bytes written by Kafka's own
// generated classes (vectors/streams_group_records.txt, made by
// tools/group_record_vectors/StreamsGroupRecordVectors.java) decode to the
// fields Kafka wrote, tagged ones included, and re-encode byte for byte; the
// topology, current assignment and target assignment records convert to the
// coordinator's values and back to the same bytes; a heartbeat's topology and
// owned tasks convert to them too.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "coordinator/group/streams/generated/streams_group_current_member_assignment_key.h"
#include "coordinator/group/streams/generated/streams_group_current_member_assignment_value.h"
#include "coordinator/group/streams/generated/streams_group_member_metadata_key.h"
#include "coordinator/group/streams/generated/streams_group_member_metadata_value.h"
#include "coordinator/group/streams/generated/streams_group_metadata_key.h"
#include "coordinator/group/streams/generated/streams_group_metadata_value.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_member_key.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_member_value.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_metadata_key.h"
#include "coordinator/group/streams/generated/streams_group_target_assignment_metadata_value.h"
#include "coordinator/group/streams/generated/streams_group_topology_key.h"
#include "coordinator/group/streams/generated/streams_group_topology_value.h"
#include "coordinator/group/streams/streams_conversions.h"
#include "coordinator/group/streams/streams_topology.h"
#include "protocol/coordinator_record.h"

namespace skiff::test {
namespace {

using namespace protocol;
using Bytes = std::vector<uint8_t>;

Bytes streams_unhex(const std::string& h) {
  Bytes out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

const std::map<std::string, std::pair<Bytes, Bytes>>& streams_vectors() {
  static const auto v = [] {
    std::map<std::string, std::pair<Bytes, Bytes>> out;
    std::ifstream in(SKIFF_STREAMS_GROUP_RECORD_VECTORS);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string name, k, v;
      ls >> name >> k >> v;
      out[name] = {streams_unhex(k), streams_unhex(v)};
    }
    return out;
  }();
  return v;
}

template <class K, class V>
std::pair<K, V> streams_round_trip(const std::string& name) {
  INFO(name);
  REQUIRE(streams_vectors().contains(name));
  const auto& [kb, vb] = streams_vectors().at(name);
  ByteReader kr(kb);
  REQUIRE(kr.read_int16() == K::kApiKey);
  K k;
  k.decode(kr, 0);
  REQUIRE(kr.remaining() == 0);
  ByteReader vr(vb);
  V v = decode_versioned<V>(vr, "__consumer_offsets");
  REQUIRE(vr.remaining() == 0);
  REQUIRE(encode_prefixed(K::kApiKey, k, 0) == kb);
  REQUIRE(encode_prefixed(0, v, 0) == vb);
  return {std::move(k), std::move(v)};
}

TEST_CASE("streams group records: Kafka 4.4's group, member and assignment bytes, byte for byte",
          "[kip1071][records]") {
  REQUIRE(streams_vectors().size() == 6);
  {
    auto [k, v] = streams_round_trip<StreamsGroupMetadataKey, StreamsGroupMetadataValue>("StreamsGroupMetadata");
    CHECK(k.group_id == "app");
    CHECK(v.epoch == 7);
    CHECK(v.metadata_hash == 0x123456789a);
    CHECK(v.validated_topology_epoch == 2);
    CHECK(v.stored_description_topology_epoch == 2);
    CHECK(v.failed_description_topology_epoch == -1);
    REQUIRE(v.last_assignment_configs);  // tagged, nullable
    REQUIRE(v.last_assignment_configs->size() == 1);
    CHECK((*v.last_assignment_configs)[0].key == "num.standby.replicas");
  }
  {
    auto [k, v] = streams_round_trip<StreamsGroupMemberMetadataKey, StreamsGroupMemberMetadataValue>(
        "StreamsGroupMemberMetadata");
    CHECK(k.member_id == "m1");
    CHECK_FALSE(v.instance_id);
    CHECK(v.rack_id == "r1");
    CHECK(v.process_id == "p1");
    CHECK(v.topology_epoch == 2);
    REQUIRE(v.user_endpoint);
    CHECK(v.user_endpoint->port == 8080);
    REQUIRE(v.client_tags.size() == 1);
    CHECK(v.client_tags[0].value == "a");
  }
  {
    auto [k, v] =
        streams_round_trip<StreamsGroupTargetAssignmentMetadataKey, StreamsGroupTargetAssignmentMetadataValue>(
            "StreamsGroupTargetAssignmentMetadata");
    CHECK(v.assignment_epoch == 5);
    CHECK(v.assignment_timestamp == 1700000000000);
  }
  {
    auto [k, v] = streams_round_trip<StreamsGroupTargetAssignmentMemberKey, StreamsGroupTargetAssignmentMemberValue>(
        "StreamsGroupTargetAssignmentMember");
    REQUIRE(v.active_tasks.size() == 1);
    CHECK(v.active_tasks[0].partitions == std::vector<int32_t>{0, 1});
  }
  {
    auto [k, v] = streams_round_trip<StreamsGroupCurrentMemberAssignmentKey, StreamsGroupCurrentMemberAssignmentValue>(
        "StreamsGroupCurrentMemberAssignment");
    CHECK(v.member_epoch == 5);
    CHECK(v.previous_member_epoch == 4);
    CHECK(v.state == 1);  // UNREVOKED_TASKS
    REQUIRE(v.active_tasks.size() == 1);
    CHECK(v.active_tasks[0].assignment_epochs == std::vector<int32_t>{5, 3});
    REQUIRE(v.standby_tasks.size() == 1);
    CHECK(v.standby_tasks[0].partitions == std::vector<int32_t>{2});
    REQUIRE(v.active_tasks_pending_revocation.size() == 1);
    CHECK(v.active_tasks_pending_revocation[0].assignment_epochs == std::vector<int32_t>{4});
  }
}

TEST_CASE("streams group records: Kafka 4.4's topology record, and the coordinator's Topology from it",
          "[kip1071][records]") {
  auto [k, v] = streams_round_trip<StreamsGroupTopologyKey, StreamsGroupTopologyValue>("StreamsGroupTopology");
  CHECK(k.group_id == "app");
  const auto t = group::streams::from_record(v);
  CHECK(t.epoch == 2);
  REQUIRE(t.subtopologies.size() == 2);
  const auto& s1 = t.subtopologies.at("1");
  CHECK(s1.source_topics == std::vector<std::string>{"app-KSTREAM-repartition"});
  REQUIRE(s1.state_changelog_topics.size() == 1);
  CHECK(s1.state_changelog_topics[0].configs.at("cleanup.policy") == "compact");
  REQUIRE(s1.copartition_groups.size() == 1);
  CHECK(s1.copartition_groups[0].repartition_source_topics == std::vector<int16_t>{0});
  CHECK(t.subtopologies.at("0").repartition_sink_topics == std::vector<std::string>{"app-KSTREAM-repartition"});
  CHECK(group::streams::required_topics(t) ==
        std::set<std::string>{"app-KSTREAM-repartition", "app-counts-changelog", "words"});
  // Back to the record: Kafka's bytes again (subtopologies are kept sorted by id).
  CHECK(encode_prefixed(0, group::streams::to_record(t), 0) == streams_vectors().at("StreamsGroupTopology").second);
}

TEST_CASE("streams group records: a member's assignment and target to values and back, byte for byte",
          "[kip1071][records]") {
  using namespace group::streams;
  auto [k, v] = streams_round_trip<StreamsGroupCurrentMemberAssignmentKey, StreamsGroupCurrentMemberAssignmentValue>(
      "StreamsGroupCurrentMemberAssignment");
  const auto m = member_from_record(v, "p1");
  CHECK(m.process_id == "p1");
  CHECK(m.state == MemberState::kUnrevokedTasks);
  CHECK(m.member_epoch == 5);
  CHECK(m.previous_member_epoch == 4);
  CHECK(m.assigned.active == TaskEpochs{{"0", {{0, 5}, {1, 3}}}});
  CHECK(m.assigned.standby == TaskSet{{"1", {2}}});
  CHECK(m.pending_revocation.active == TaskEpochs{{"0", {{2, 4}}}});
  CHECK(encode_prefixed(0, member_to_record(m), 0) ==
        streams_vectors().at("StreamsGroupCurrentMemberAssignment").second);

  // Epochs missing or not matching the partitions: the member's epoch.
  StreamsGroupCurrentMemberAssignmentValue odd;
  odd.member_epoch = 9;
  odd.active_tasks.resize(1);
  odd.active_tasks[0].subtopology_id = "0";
  odd.active_tasks[0].partitions = {1, 2};
  odd.active_tasks[0].assignment_epochs = std::vector<int32_t>{3};
  CHECK(member_from_record(odd, "p").assigned.active == TaskEpochs{{"0", {{1, 9}, {2, 9}}}});

  auto [tk, tv] = streams_round_trip<StreamsGroupTargetAssignmentMemberKey, StreamsGroupTargetAssignmentMemberValue>(
      "StreamsGroupTargetAssignmentMember");
  const auto target = target_from_record(tv);
  CHECK(target == TasksTuple{{{"0", {0, 1}}}, {}, {}});
  CHECK(encode_prefixed(0, target_to_record(target), 0) ==
        streams_vectors().at("StreamsGroupTargetAssignmentMember").second);
}

TEST_CASE("streams group records: a heartbeat's topology and owned tasks", "[kip1071][records]") {
  using namespace group::streams;
  StreamsGroupHeartbeatRequest r;
  CHECK_FALSE(owned_from_heartbeat(r));  // nothing reported: nothing proven
  r.active_tasks.emplace(1);
  (*r.active_tasks)[0].subtopology_id = "0";
  (*r.active_tasks)[0].partitions = {3, 1};
  const auto owned = owned_from_heartbeat(r);
  REQUIRE(owned);
  CHECK(owned->active == TaskSet{{"0", {1, 3}}});
  CHECK(owned->standby.empty());

  StreamsGroupHeartbeatRequest::Topology t;
  t.epoch = 4;
  t.subtopologies.resize(1);
  auto& s = t.subtopologies[0];
  s.subtopology_id = "1";
  s.repartition_source_topics.resize(1);
  s.repartition_source_topics[0].name = "app-rep";
  s.repartition_source_topics[0].partitions = 6;
  s.repartition_source_topics[0].topic_configs.resize(1);
  s.repartition_source_topics[0].topic_configs[0].key = "cleanup.policy";
  s.repartition_source_topics[0].topic_configs[0].value = "delete";
  s.copartition_groups.resize(1);
  s.copartition_groups[0].repartition_source_topics = {0};
  const auto topology = topology_from_heartbeat(t);
  CHECK(topology.epoch == 4);
  const auto& sub = topology.subtopologies.at("1");
  REQUIRE(sub.repartition_source_topics.size() == 1);
  CHECK(sub.repartition_source_topics[0] == TopicInfo{"app-rep", 6, 0, {{"cleanup.policy", "delete"}}});
  CHECK(sub.copartition_groups[0].repartition_source_topics == std::vector<int16_t>{0});
  CHECK_FALSE(has_source_topic_regex(t));
  s.source_topic_regex = {"in-.*"};
  CHECK(has_source_topic_regex(t));
}

}  // namespace
}  // namespace skiff::test
