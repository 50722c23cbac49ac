// Authorized operations, as Kafka 4.4 without an authorizer answers them
// (asked of a real Kafka 4.4 with the Java admin client's describeCluster,
// describeTopics and describeConsumerGroups, includeAuthorizedOperations):
// cluster {CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS,
// ALTER_CONFIGS, IDEMPOTENT_WRITE} = 8096; topic {READ, WRITE, CREATE, DELETE,
// ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS} = 3576; group {READ,
// DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS} = 3400.
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/describe_topic_partitions_request.h"
#include "protocol/generated/describe_topic_partitions_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {
constexpr int32_t kKafkaCluster = 8096;
constexpr int32_t kKafkaTopic = 3576;
constexpr int32_t kKafkaGroup = 3400;
constexpr int32_t kNotAsked = INT32_MIN;
}  // namespace

TEST_CASE("Metadata and DescribeCluster answer Kafka's cluster and topic operations", "[api][acl]") {
  test::ApiHarness h;
  CreateTopicsRequest ct;
  ct.topics.emplace_back();
  ct.topics[0].name = "t";
  ct.topics[0].num_partitions = 1;
  ct.topics[0].replication_factor = 1;
  REQUIRE(h.call<CreateTopicsResponse>(ct, 7).topics[0].error_code == 0);

  MetadataRequest m;
  m.topics = std::nullopt;
  m.include_cluster_authorized_operations = true;
  m.include_topic_authorized_operations = true;
  auto md = h.call<MetadataResponse>(m, 10);
  CHECK(md.cluster_authorized_operations == kKafkaCluster);
  REQUIRE(md.topics.size() == 1);
  CHECK(md.topics[0].topic_authorized_operations == kKafkaTopic);
  m.include_cluster_authorized_operations = false;
  m.include_topic_authorized_operations = false;
  md = h.call<MetadataResponse>(m, 10);
  CHECK(md.cluster_authorized_operations == kNotAsked);
  CHECK(md.topics[0].topic_authorized_operations == kNotAsked);

  DescribeClusterRequest dc;
  dc.include_cluster_authorized_operations = true;
  CHECK(h.call<DescribeClusterResponse>(dc, 1).cluster_authorized_operations == kKafkaCluster);
  dc.include_cluster_authorized_operations = false;
  CHECK(h.call<DescribeClusterResponse>(dc, 1).cluster_authorized_operations == kNotAsked);

  DescribeTopicPartitionsRequest dt;
  dt.response_partition_limit = 100;
  auto d = h.call<DescribeTopicPartitionsResponse>(dt, 0);
  REQUIRE(d.topics.size() == 1);
  CHECK(d.topics[0].topic_authorized_operations == kKafkaTopic);
}

TEST_CASE("DescribeGroups answers Kafka's group operations when asked", "[api][acl]") {
  test::ApiHarness h;
  DescribeGroupsRequest req;
  req.groups = {"g"};
  req.include_authorized_operations = true;
  CHECK(h.call<DescribeGroupsResponse>(req, 5).groups.at(0).authorized_operations == kKafkaGroup);
  req.include_authorized_operations = false;
  CHECK(h.call<DescribeGroupsResponse>(req, 5).groups.at(0).authorized_operations == kNotAsked);
}
