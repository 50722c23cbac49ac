// KIP-848's __consumer_offsets records (coordinator/group/schemas/ConsumerGroup*,
// vendored from kafka-group-coordinator 4.4.0): bytes written by Kafka's own
// generated classes (tests/coordinator/group/vectors/consumer_group_records.txt, made by
// tools/group_record_vectors/GroupRecordVectors.java) decode to the fields
// Kafka wrote, including the tagged ones (MetadataHash, AssignmentEpochs,
// ClassicMemberMetadata, AssignmentTimestamp), and re-encode byte for byte.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "coordinator/group/generated/consumer_group_current_member_assignment_key.h"
#include "coordinator/group/generated/consumer_group_current_member_assignment_value.h"
#include "coordinator/group/generated/consumer_group_member_metadata_key.h"
#include "coordinator/group/generated/consumer_group_member_metadata_value.h"
#include "coordinator/group/generated/consumer_group_metadata_key.h"
#include "coordinator/group/generated/consumer_group_metadata_value.h"
#include "coordinator/group/generated/consumer_group_partition_metadata_key.h"
#include "coordinator/group/generated/consumer_group_partition_metadata_value.h"
#include "coordinator/group/generated/consumer_group_regular_expression_key.h"
#include "coordinator/group/generated/consumer_group_regular_expression_value.h"
#include "coordinator/group/generated/consumer_group_target_assignment_member_key.h"
#include "coordinator/group/generated/consumer_group_target_assignment_member_value.h"
#include "coordinator/group/generated/consumer_group_target_assignment_metadata_key.h"
#include "coordinator/group/generated/consumer_group_target_assignment_metadata_value.h"
#include "protocol/coordinator_record.h"

namespace skiff::test {
namespace {

using namespace protocol;
using Bytes = std::vector<uint8_t>;

Bytes unhex(const std::string& h) {
  Bytes out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

const std::map<std::string, std::pair<Bytes, Bytes>>& vectors() {
  static const auto v = [] {
    std::map<std::string, std::pair<Bytes, Bytes>> out;
    std::ifstream in(SKIFF_GROUP_RECORD_VECTORS);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string name, k, v;
      ls >> name >> k >> v;
      out[name] = {unhex(k), unhex(v)};
    }
    return out;
  }();
  return v;
}

// Decodes Kafka's key and value, re-encodes both byte for byte, returns them.
template <class K, class V>
std::pair<K, V> round_trip(const std::string& name) {
  INFO(name);
  REQUIRE(vectors().contains(name));
  const auto& [kb, vb] = vectors().at(name);
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

Uuid topic() {
  Uuid t{};
  t.bytes[15] = 1;
  return t;
}

TEST_CASE("consumer group records: Kafka 4.4's bytes, byte for byte", "[kip848][records]") {
  REQUIRE(vectors().size() == 8);
  {
    auto [k, v] = round_trip<ConsumerGroupMetadataKey, ConsumerGroupMetadataValue>("ConsumerGroupMetadata");
    CHECK(k.group_id == "g");
    CHECK(v.epoch == 7);
    CHECK(v.metadata_hash == 0x123456789a);
  }
  {
    auto [k, v] =
        round_trip<ConsumerGroupMemberMetadataKey, ConsumerGroupMemberMetadataValue>("ConsumerGroupMemberMetadata");
    CHECK(k.member_id == "m1");
    CHECK_FALSE(v.instance_id);
    CHECK(v.rack_id == "r1");
    CHECK(v.subscribed_topic_names == std::vector<std::string>{"a", "b"});
    CHECK(v.rebalance_timeout_ms == 300000);
    CHECK(v.server_assignor == "uniform");
    CHECK_FALSE(v.classic_member_metadata);
  }
  {
    auto [k, v] = round_trip<ConsumerGroupMemberMetadataKey, ConsumerGroupMemberMetadataValue>(
        "ConsumerGroupMemberMetadataClassic");
    CHECK(v.subscribed_topic_regex == "a.*");
    REQUIRE(v.classic_member_metadata);
    CHECK(v.classic_member_metadata->session_timeout_ms == 45000);
    REQUIRE(v.classic_member_metadata->supported_protocols.size() == 1);
    CHECK(v.classic_member_metadata->supported_protocols[0].metadata == Bytes{1, 2});
  }
  {
    auto [k, v] = round_trip<ConsumerGroupCurrentMemberAssignmentKey, ConsumerGroupCurrentMemberAssignmentValue>(
        "ConsumerGroupCurrentMemberAssignment");
    CHECK(v.member_epoch == 5);
    CHECK(v.previous_member_epoch == 4);
    CHECK(v.state == 1);  // UNREVOKED_PARTITIONS, as consumer::MemberState
    REQUIRE(v.assigned_partitions.size() == 1);
    CHECK(v.assigned_partitions[0].topic_id == topic());
    CHECK(v.assigned_partitions[0].partitions == std::vector<int32_t>{0, 1});
    CHECK(v.assigned_partitions[0].assignment_epochs == std::vector<int32_t>{5, 3});
    REQUIRE(v.partitions_pending_revocation.size() == 1);
    CHECK(v.partitions_pending_revocation[0].partitions == std::vector<int32_t>{2});
  }
  {
    auto [k, v] = round_trip<ConsumerGroupTargetAssignmentMetadataKey, ConsumerGroupTargetAssignmentMetadataValue>(
        "ConsumerGroupTargetAssignmentMetadata");
    CHECK(v.assignment_epoch == 5);
    CHECK(v.assignment_timestamp == 1700000000000);
  }
  {
    auto [k, v] = round_trip<ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupTargetAssignmentMemberValue>(
        "ConsumerGroupTargetAssignmentMember");
    REQUIRE(v.topic_partitions.size() == 1);
    CHECK(v.topic_partitions[0].partitions == std::vector<int32_t>{0, 1});
  }
  {
    auto [k, v] = round_trip<ConsumerGroupPartitionMetadataKey, ConsumerGroupPartitionMetadataValue>(
        "ConsumerGroupPartitionMetadata");
    REQUIRE(v.topics.size() == 1);
    CHECK(v.topics[0].topic_name == "a");
    CHECK(v.topics[0].num_partitions == 3);
  }
  {
    auto [k, v] = round_trip<ConsumerGroupRegularExpressionKey, ConsumerGroupRegularExpressionValue>(
        "ConsumerGroupRegularExpression");
    CHECK(k.regular_expression == "a.*");
    CHECK(v.topics == std::vector<std::string>{"a", "ab"});
    CHECK(v.version_ == 3);  // the generator renames a field called Version
    CHECK(v.timestamp == 99);
  }
}

}  // namespace
}  // namespace skiff::test
