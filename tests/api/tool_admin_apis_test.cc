// The admin APIs Kafka's command-line tools ask a one-node cluster:
// DescribeQuorum, ElectLeaders, List/AlterPartitionReassignments,
// UpdateFeatures, the feature fields of ApiVersions, and DescribeCluster v2.
// Expected messages are the ones Apache Kafka 4.4 answers with.
#include "api/features.h"
#include "common/wall_clock.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

constexpr int16_t kUnknownTopicOrPartition = 3;
constexpr int16_t kInvalidReplicaAssignment = 39;
constexpr int16_t kElectionNotNeeded = 84;
constexpr int16_t kNoReassignmentInProgress = 85;
constexpr int16_t kInvalidUpdateVersion = 95;

void create_topic(test::ApiHarness& h, const std::string& name, int32_t partitions) {
  CreateTopicsRequest req;
  CreateTopicsRequest::CreatableTopic t;
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = 1;
  req.topics.push_back(t);
  REQUIRE(h.call<CreateTopicsResponse>(req, 7).topics[0].error_code == 0);
}

DescribeQuorumRequest quorum_request(const std::string& topic, int32_t partition) {
  DescribeQuorumRequest req;
  DescribeQuorumRequest::TopicData t;
  t.topic_name = topic;
  DescribeQuorumRequest::PartitionData p;
  p.partition_index = partition;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  return req;
}

}  // namespace

TEST_CASE("DescribeQuorum: a single voter, this node, leads __cluster_metadata-0", "[api][tools]") {
  test::ApiHarness h;
  for (int16_t v = 0; v <= 2; ++v) {
    INFO("version " << v);
    const int64_t before = wall_clock_ms();
    auto r = h.call<DescribeQuorumResponse>(quorum_request("__cluster_metadata", 0), v);
    CHECK(r.error_code == 0);
    REQUIRE(r.topics.size() == 1);
    CHECK(r.topics[0].topic_name == "__cluster_metadata");
    REQUIRE(r.topics[0].partitions.size() == 1);
    const auto& p = r.topics[0].partitions[0];
    CHECK(p.error_code == 0);
    CHECK(p.leader_id == 1);
    CHECK(p.leader_epoch == 1);
    CHECK(p.observers.empty());
    REQUIRE(p.current_voters.size() == 1);
    CHECK(p.current_voters[0].replica_id == 1);
    CHECK(p.current_voters[0].log_end_offset == p.high_watermark);
    if (v >= 1) CHECK(p.current_voters[0].last_caught_up_timestamp >= before);
    if (v >= 2) {
      REQUIRE(r.nodes.size() == 1);
      CHECK(r.nodes[0].node_id == 1);
      REQUIRE(r.nodes[0].listeners.size() == 1);
      CHECK(r.nodes[0].listeners[0].name == "PLAINTEXT");
      CHECK(r.nodes[0].listeners[0].host == "broker.test");
      CHECK(r.nodes[0].listeners[0].port == 9092);
    }
  }
}

TEST_CASE("DescribeQuorum: any other partition is unknown", "[api][tools]") {
  test::ApiHarness h;
  create_topic(h, "t", 1);
  for (auto [topic, partition] : {std::pair<std::string, int32_t>{"t", 0}, {"__cluster_metadata", 1}}) {
    auto r = h.call<DescribeQuorumResponse>(quorum_request(topic, partition), 2);
    CHECK(r.error_code == 0);
    REQUIRE(r.topics.size() == 1);
    CHECK(r.topics[0].topic_name == topic);
    REQUIRE(r.topics[0].partitions.size() == 1);
    CHECK(r.topics[0].partitions[0].partition_index == partition);
    CHECK(r.topics[0].partitions[0].error_code == kUnknownTopicOrPartition);
    CHECK(r.topics[0].partitions[0].current_voters.empty());
  }
  auto empty = h.call<DescribeQuorumResponse>(DescribeQuorumRequest{}, 2);
  CHECK(empty.topics.empty());
}

TEST_CASE("ElectLeaders: never needed where the partition exists", "[api][tools]") {
  test::ApiHarness h;
  create_topic(h, "t", 2);
  ElectLeadersRequest req;
  req.topic_partitions = std::vector<ElectLeadersRequest::TopicPartitions>{{"t", {0, 1, 5}}, {"nope", {0}}};
  for (int16_t v = 0; v <= 2; ++v) {
    for (int8_t type : {0, 1}) {
      if (v == 0 && type != 0) continue;  // v0 has no election type: preferred
      INFO("version " << v << " type " << int(type));
      req.election_type = type;
      auto r = h.call<ElectLeadersResponse>(req, v);
      CHECK(r.error_code == 0);
      REQUIRE(r.replica_election_results.size() == 2);
      const auto& t = r.replica_election_results[0].partition_result;
      REQUIRE(t.size() == 3);
      CHECK(t[0].error_code == kElectionNotNeeded);
      CHECK(t[1].error_code == kElectionNotNeeded);
      CHECK(t[1].partition_id == 1);
      CHECK(t[2].error_code == kUnknownTopicOrPartition);
      CHECK(t[2].error_message == "No such partition as t-5");
      const auto& nope = r.replica_election_results[1];
      CHECK(nope.topic == "nope");
      REQUIRE(nope.partition_result.size() == 1);
      CHECK(nope.partition_result[0].error_code == kUnknownTopicOrPartition);
      CHECK(nope.partition_result[0].error_message == "No such topic as nope");
    }
  }
}

TEST_CASE("ElectLeaders: all partitions (null) lists none, an unknown type is refused", "[api][tools]") {
  test::ApiHarness h;
  create_topic(h, "t", 2);
  ElectLeadersRequest all;
  all.topic_partitions = std::nullopt;
  auto r = h.call<ElectLeadersResponse>(all, 2);
  CHECK(r.error_code == 0);
  CHECK(r.replica_election_results.empty());

  ElectLeadersRequest bad;
  bad.election_type = 7;
  bad.topic_partitions = std::vector<ElectLeadersRequest::TopicPartitions>{{"t", {0}}};
  auto b = h.call<ElectLeadersResponse>(bad, 2);
  REQUIRE(b.replica_election_results.size() == 1);
  CHECK(b.replica_election_results[0].partition_result[0].error_code == 42);  // INVALID_REQUEST
}

TEST_CASE("ListPartitionReassignments: always empty", "[api][tools]") {
  test::ApiHarness h;
  create_topic(h, "t", 1);
  ListPartitionReassignmentsRequest all;
  all.topics = std::nullopt;
  auto r = h.call<ListPartitionReassignmentsResponse>(all, 0);
  CHECK(r.error_code == 0);
  CHECK(!r.error_message.has_value());
  CHECK(r.topics.empty());
  ListPartitionReassignmentsRequest named;
  named.topics =
      std::vector<ListPartitionReassignmentsRequest::ListPartitionReassignmentsTopics>{{"t", {0}}, {"nope", {3}}};
  CHECK(h.call<ListPartitionReassignmentsResponse>(named, 0).topics.empty());
}

TEST_CASE("AlterPartitionReassignments: this broker alone is a no-op, anything else Kafka's error", "[api][tools]") {
  test::ApiHarness h;
  create_topic(h, "t", 2);
  using Req = AlterPartitionReassignmentsRequest;
  auto part = [](int32_t index, std::optional<std::vector<int32_t>> replicas) {
    Req::ReassignablePartition p;
    p.partition_index = index;
    p.replicas = std::move(replicas);
    return p;
  };
  Req req;
  req.topics.push_back(
      {"t",
       {part(0, std::vector<int32_t>{1}), part(1, std::vector<int32_t>{1, 7}), part(0, std::vector<int32_t>{1, 1}),
        part(1, std::vector<int32_t>{}), part(0, std::nullopt), part(9, std::vector<int32_t>{1})}});
  req.topics.push_back({"nope", {part(0, std::vector<int32_t>{1})}});
  const std::vector<std::pair<int16_t, std::optional<std::string>>> expected = {
      {0, std::nullopt},
      {kInvalidReplicaAssignment,
       "The manual partition assignment includes broker 7, but no such broker is registered."},
      {kInvalidReplicaAssignment, "The manual partition assignment includes the broker 1 more than once."},
      {kInvalidReplicaAssignment, "The manual partition assignment includes an empty replica list."},
      {kNoReassignmentInProgress, "No partition reassignment is in progress."},
      {kUnknownTopicOrPartition, "Unable to find partition t:9."},
  };
  for (int16_t v = 0; v <= 1; ++v) {
    INFO("version " << v);
    auto r = h.call<AlterPartitionReassignmentsResponse>(req, v);
    CHECK(r.error_code == 0);
    REQUIRE(r.responses.size() == 2);
    REQUIRE(r.responses[0].partitions.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      INFO("partition entry " << i);
      CHECK(r.responses[0].partitions[i].error_code == expected[i].first);
      CHECK(r.responses[0].partitions[i].error_message == expected[i].second);
    }
    CHECK(r.responses[1].partitions[0].error_code == kUnknownTopicOrPartition);
    CHECK(r.responses[1].partitions[0].error_message == "Unable to find a topic named nope.");
  }
}

TEST_CASE("ApiVersions v3+ lists the features Skiff implements, finalized", "[api][tools][apiversions]") {
  const int64_t before = wall_clock_ms();
  test::ApiHarness h;
  ApiVersionsRequest req;
  req.client_software_name = "skiff-test";
  req.client_software_version = "1.0";
  for (int16_t v = 3; v <= 4; ++v) {
    auto r = h.call<ApiVersionsResponse>(req, v);
    REQUIRE(r.supported_features.size() == api::features().size());
    REQUIRE(r.finalized_features.size() == api::features().size());
    CHECK(r.finalized_features_epoch >= before);  // clients ignore features with epoch -1
    for (size_t i = 0; i < api::features().size(); ++i) {
      const auto& f = api::features()[i];
      CHECK(r.supported_features[i].name == f.name);
      CHECK(r.supported_features[i].min_version == f.min_supported);
      CHECK(r.supported_features[i].max_version == f.max_supported);
      CHECK(r.finalized_features[i].name == f.name);
      CHECK(r.finalized_features[i].max_version_level == f.default_level);
      CHECK(r.finalized_features[i].min_version_level == f.default_level);
    }
  }
  const auto* mv = api::find_feature("metadata.version");
  REQUIRE(mv != nullptr);
  CHECK(mv->default_level == 25);  // 4.0-IV3
  const auto* tv = api::find_feature("transaction.version");
  REQUIRE(tv != nullptr);
  CHECK(tv->default_level == 2);  // KIP-890, as Kafka 4.x finalizes it
  const auto* gv = api::find_feature("group.version");
  REQUIRE(gv != nullptr);
  CHECK(gv->default_level == 1);  // KIP-848's consumer group protocol, as Kafka 4.x
  const auto* sv = api::find_feature("share.version");
  REQUIRE(sv != nullptr);
  CHECK(sv->default_level == 2);  // KIP-932's share groups with KIP-1191's DLQ, as Kafka 4.4
  // Below v3 the fields do not exist: the answer still encodes.
  CHECK(h.call<ApiVersionsResponse>(req, 2).supported_features.empty());
}

namespace {

// `type`: 1 upgrade, 2 safe and 3 unsafe downgrade; v0 has only AllowDowngrade
// and no ValidateOnly.
UpdateFeaturesRequest update(int16_t version, const std::string& feature, int16_t level, int8_t type,
                             bool validate_only = false) {
  UpdateFeaturesRequest req;
  UpdateFeaturesRequest::FeatureUpdateKey u;
  u.feature = feature;
  u.max_version_level = level;
  if (version == 0) {
    u.allow_downgrade = type != 1;
  } else {
    u.upgrade_type = type;
    req.validate_only = validate_only;
  }
  req.feature_updates.push_back(u);
  return req;
}

// The top-level message (v2) or the feature's (v0-1); nullopt when accepted.
std::optional<std::string> update_error(test::ApiHarness& h, const UpdateFeaturesRequest& req, int16_t v) {
  auto r = h.call<UpdateFeaturesResponse>(req, v);
  if (v >= 2) CHECK(r.results.empty());
  if (r.error_code == 0 && v >= 2) return std::nullopt;
  if (r.error_code == 0) {  // v0-1: a NONE result per feature
    REQUIRE(r.results.size() == 1);
    CHECK(r.results[0].feature == req.feature_updates[0].feature);
    CHECK(r.results[0].error_code == 0);
    return std::nullopt;
  }
  CHECK(r.results.empty());
  CHECK(r.error_code == kInvalidUpdateVersion);
  const std::string prefix = "The update failed for all features since the following feature had an error: ";
  REQUIRE(r.error_message.has_value());
  CHECK(r.error_message->rfind(prefix, 0) == 0);
  return r.error_message->substr(prefix.size());
}

}  // namespace

TEST_CASE("UpdateFeatures: the finalized level is a no-op, a level out of range refused with Kafka's message",
          "[api][tools]") {
  test::ApiHarness h;
  for (int16_t v = 0; v <= 2; ++v) {
    INFO("version " << v);
    CHECK(update_error(h, update(v, "metadata.version", 25, 1), v) == std::nullopt);
    CHECK(update_error(h, update(v, "metadata.version", 25, 1, true), v) == std::nullopt);
    CHECK(update_error(h, update(v, "metadata.version", 33, 1), v) ==
          "Invalid update version 33 for feature metadata.version. Local controller 1 only supports versions 25");
    CHECK(update_error(h, update(v, "metadata.version", 7, 2), v) ==
          "Invalid update version 7 for feature metadata.version. Local controller 1 only supports versions 25");
    CHECK(update_error(h, update(v, "transaction.version", 2, 1), v) == std::nullopt);
    CHECK(update_error(h, update(v, "transaction.version", 3, 1), v) ==
          "Invalid update version 3 for feature transaction.version. Local controller 1 only supports versions 0-2");
    CHECK(update_error(h, update(v, "group.version", 1, 1), v) == std::nullopt);
    CHECK(update_error(h, update(v, "group.version", 2, 1), v) ==
          "Invalid update version 2 for feature group.version. Local controller 1 only supports versions 0-1");
    CHECK(update_error(h, update(v, "share.version", 2, 1), v) == std::nullopt);
    CHECK(update_error(h, update(v, "share.version", 3, 1), v) ==
          "Invalid update version 3 for feature share.version. Local controller 1 only supports versions 0-2");
    CHECK(update_error(h, update(v, "bogus.feature", 0, 2), v) ==
          "Invalid update version 0 for feature bogus.feature. Feature bogus.feature not found.");
    CHECK(update_error(h, update(v, "metadata.version", -1, 2), v) ==
          "Invalid update version -1 for feature metadata.version. A feature version cannot be less than 0.");
  }
  for (int16_t v = 1; v <= 2; ++v) {  // v0 has no upgrade type
    CHECK(update_error(h, update(v, "metadata.version", 25, 9), v) ==
          "Invalid update version 25 for feature metadata.version. The controller does not support the given "
          "upgrade type.");
  }
  // Nothing changed.
  ApiVersionsRequest av_req;
  av_req.client_software_name = "skiff-test";
  av_req.client_software_version = "1.0";
  auto av = h.call<ApiVersionsResponse>(av_req, 3);
  REQUIRE(av.finalized_features.size() == 5);
  CHECK(av.finalized_features[0].name == "group.version");
  CHECK(av.finalized_features[0].max_version_level == 1);
  CHECK(av.finalized_features[1].max_version_level == 25);
  CHECK(av.finalized_features[2].name == "share.version");
  CHECK(av.finalized_features[2].max_version_level == 2);
  CHECK(av.finalized_features[3].name == "streams.version");
  CHECK(av.finalized_features[3].max_version_level == 1);
  CHECK(av.finalized_features[4].max_version_level == 2);
}

TEST_CASE("UpdateFeatures: the first failing feature fails all, and none is applied", "[api][tools]") {
  test::ApiHarness h;
  for (int16_t v = 1; v <= 2; ++v) {
    auto req = update(v, "share.version", 1, 2);
    req.feature_updates.push_back(update(v, "bogus.feature", 3, 1).feature_updates[0]);
    auto r = h.call<UpdateFeaturesResponse>(req, v);
    CHECK(r.error_code == kInvalidUpdateVersion);
    CHECK(r.error_message ==
          "The update failed for all features since the following feature had an error: Invalid update version 3 "
          "for feature bogus.feature. Local controller 1 does not support this feature.");
    CHECK(r.results.empty());
    CHECK(h.features().level("share.version") == 2);
  }
}

TEST_CASE("DescribeCluster v2: this broker, not fenced", "[api][tools]") {
  test::ApiHarness h;
  DescribeClusterRequest req;
  req.include_fenced_brokers = true;
  auto r = h.call<DescribeClusterResponse>(req, 2);
  CHECK(r.error_code == 0);
  CHECK(r.endpoint_type == 1);
  REQUIRE(r.brokers.size() == 1);
  CHECK(r.brokers[0].broker_id == 1);
  CHECK(!r.brokers[0].is_fenced);
}

TEST_CASE("feature update checks with a feature of several levels (Kafka's order and messages)", "[api][tools]") {
  const api::Feature table[] = {{"group.version", 0, 2, 1}};
  auto check = [&](int16_t level, int8_t type) {
    return api::feature_update_refusal(table, "group.version", level, type, 4, /*current=*/1);
  };
  const std::string prefix = "Invalid update version ";
  CHECK(check(1, 1) == std::nullopt);
  CHECK(check(1, 2) == std::nullopt);
  CHECK(check(2, 1) == std::nullopt);
  CHECK(check(0, 2) == std::nullopt);
  CHECK(check(0, 3) == std::nullopt);
  CHECK(check(0, 1) == prefix +
                           "0 for feature group.version. Can't downgrade the version of this feature without "
                           "setting the upgrade type to either safe or unsafe downgrade.");
  CHECK(check(2, 2) == prefix + "2 for feature group.version. Can't downgrade to a newer version.");
  CHECK(check(3, 1) == prefix + "3 for feature group.version. Local controller 4 only supports versions 0-2");
  CHECK(check(1, 0) == prefix + "1 for feature group.version. The controller does not support the given upgrade type.");
}
