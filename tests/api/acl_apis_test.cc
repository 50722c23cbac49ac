// The ACL APIs and the authorization of the other APIs, in-process: without
// an authorizer the ACL APIs answer SECURITY_DISABLED as Kafka 4.4; with
// Kafka's StandardAuthorizer configured, ACLs are created, described, deleted
// and kept across a restart, and requests are allowed or refused per ACL.
#include <fmt/format.h>

#include "common/wall_clock.h"
#include "log/batch_builder.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"
#include "protocol/generated/describe_acls_request.h"
#include "protocol/generated/describe_acls_response.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "protocol/generated/list_config_resources_request.h"
#include "protocol/generated/list_config_resources_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

const std::string kAuthorizer = "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer";
constexpr int8_t kTopic = 2, kGroup = 3, kCluster = 4, kLiteral = 3, kPrefixed = 4, kAllow = 3;
constexpr int8_t kRead = 3, kWrite = 4, kCreate = 5, kAlter = 7, kDescribe = 8, kDescribeConfigs = 10,
                 kIdempotentWrite = 12;

CreateAclsRequest::AclCreation creation(int8_t type, std::string name, int8_t op, std::string principal,
                                        int8_t pattern = kLiteral) {
  CreateAclsRequest::AclCreation c;
  c.resource_type = type;
  c.resource_name = std::move(name);
  c.resource_pattern_type = pattern;
  c.principal = std::move(principal);
  c.host = "*";
  c.operation = op;
  c.permission_type = kAllow;
  return c;
}

void create(test::ApiHarness& h, std::vector<CreateAclsRequest::AclCreation> creations, int16_t version = 3) {
  CreateAclsRequest req;
  req.creations = std::move(creations);
  auto resp = h.call<CreateAclsResponse>(req, version);
  REQUIRE(resp.results.size() == req.creations.size());
  for (const auto& r : resp.results) CHECK(r.error_code == 0);
}

DescribeAclsRequest describe_all() {
  DescribeAclsRequest d;
  d.resource_type_filter = 1;  // ANY
  d.resource_name_filter = std::nullopt;
  d.pattern_type_filter = 1;
  d.principal_filter = std::nullopt;
  d.host_filter = std::nullopt;
  d.operation = 1;
  d.permission_type = 1;
  return d;
}

// Records::bytes views the batch: it must outlive the request.
const std::vector<uint8_t>& one_batch() {
  static const std::vector<uint8_t> batch = storage::make_test_batch(1, 10, wall_clock_ms());
  return batch;
}

ProduceRequest produce(const std::string& topic) {
  ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 1000;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  auto& p = t.partition_data.emplace_back();
  p.index = 0;
  p.records = Records::bytes(one_batch());
  return req;
}

}  // namespace

TEST_CASE("without an authorizer the ACL APIs answer SECURITY_DISABLED, as Kafka 4.4", "[api][acl]") {
  test::ApiHarness h;
  for (int16_t v : {1, 2, 3}) {
    auto d = h.call<DescribeAclsResponse>(describe_all(), v);
    CHECK(d.error_code == 54);
    CHECK(d.error_message == "No Authorizer is configured on the broker");
    CreateAclsRequest c;
    c.creations = {creation(kTopic, "t", kRead, "User:a"), creation(kTopic, "u", kRead, "User:a")};
    auto cr = h.call<CreateAclsResponse>(c, v);
    REQUIRE(cr.results.size() == 2);
    for (const auto& r : cr.results) {
      CHECK(r.error_code == 54);
      CHECK(r.error_message == "No Authorizer is configured.");
    }
    DeleteAclsRequest del;
    auto& any = del.filters.emplace_back();
    any.resource_type_filter = 1;
    any.pattern_type_filter = 1;
    any.operation = 1;
    any.permission_type = 1;
    auto dr = h.call<DeleteAclsResponse>(del, v);
    REQUIRE(dr.filter_results.size() == 1);
    CHECK(dr.filter_results[0].error_code == 54);
    CHECK(dr.filter_results[0].error_message == "No Authorizer is configured.");
  }
}

// Kafka 4.4's own bytes (no authorizer; recorded with a raw v3 request of each
// API, correlation ids 1-3): header, then the body.
TEST_CASE("without an authorizer the answers are Kafka 4.4's, byte for byte", "[api][acl]") {
  auto hex = [](const std::vector<uint8_t>& bytes) {
    std::string out;
    for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
    return out;
  };
  test::ApiHarness h;
  CHECK(hex(test::flatten(h.raw(h.frame(describe_all(), 3, 1)))) ==
        "00000001000000000000362a4e6f20417574686f72697a657220697320636f6e66696775726564206f6e207468652062726f6b6572"
        "0100");
  CreateAclsRequest c;
  c.creations = {creation(kTopic, "t", kRead, "User:a")};
  CHECK(hex(test::flatten(h.raw(h.frame(c, 3, 2)))) ==
        "0000000200000000000200361d4e6f20417574686f72697a657220697320636f6e666967757265642e0000");
  DeleteAclsRequest d;
  auto& f = d.filters.emplace_back();
  f.resource_type_filter = kTopic;
  f.resource_name_filter = "t";
  f.pattern_type_filter = kLiteral;
  f.principal_filter = std::nullopt;
  f.host_filter = std::nullopt;
  f.operation = 1;
  f.permission_type = 1;
  CHECK(hex(test::flatten(h.raw(h.frame(d, 3, 3)))) ==
        "0000000300000000000200361d4e6f20417574686f72697a657220697320636f6e666967757265642e010000");
}

TEST_CASE("CreateAcls, DescribeAcls, DeleteAcls with an authorizer, kept across a restart", "[api][acl]") {
  test::ApiHarness h({kAuthorizer, "super.users=User:admin"});
  // Anonymous may not manage ACLs (ALTER / DESCRIBE on the cluster).
  CreateAclsRequest refused;
  refused.creations = {creation(kTopic, "t", kRead, "User:a")};
  CHECK(h.call<CreateAclsResponse>(refused, 3).results.at(0).error_code == 31);
  CHECK(h.call<DescribeAclsResponse>(describe_all(), 3).error_code == 31);

  h.set_principal("User:admin");
  create(h, {creation(kTopic, "orders", kRead, "User:a"), creation(kTopic, "orders", kWrite, "User:b"),
             creation(kTopic, "log", kRead, "User:a", kPrefixed)});
  CreateAclsRequest bad;
  bad.creations = {creation(kCluster, "not-the-cluster", kAlter, "User:a"), creation(kTopic, "", kRead, "User:a")};
  auto br = h.call<CreateAclsResponse>(bad, 2);
  CHECK(br.results.at(0).error_code == 42);
  CHECK(br.results.at(0).error_message == "The only valid name for the CLUSTER resource is kafka-cluster");
  CHECK(br.results.at(1).error_code == 42);

  auto d = h.call<DescribeAclsResponse>(describe_all(), 3);
  CHECK(d.error_code == 0);
  REQUIRE(d.resources.size() == 2);  // grouped by pattern: TOPIC:LITERAL:orders and TOPIC:PREFIXED:log
  size_t entries = 0;
  for (const auto& r : d.resources) entries += r.acls.size();
  CHECK(entries == 3);

  h.restart();
  h.set_principal("User:admin");
  DeleteAclsRequest del;
  auto& f = del.filters.emplace_back();
  f.resource_type_filter = kTopic;
  f.resource_name_filter = "orders";
  f.pattern_type_filter = kLiteral;
  f.principal_filter = std::nullopt;
  f.host_filter = std::nullopt;
  f.operation = 1;
  f.permission_type = 1;
  auto dr = h.call<DeleteAclsResponse>(del, 3);
  REQUIRE(dr.filter_results.size() == 1);
  CHECK(dr.filter_results[0].error_code == 0);
  CHECK(dr.filter_results[0].matching_acls.size() == 2);
  h.restart();
  h.set_principal("User:admin");
  CHECK(h.call<DescribeAclsResponse>(describe_all(), 3).resources.size() == 1);
}

TEST_CASE("with an authorizer: Produce, Metadata, CreateTopics, CreatePartitions, JoinGroup and InitProducerId per ACL",
          "[api][acl]") {
  test::ApiHarness h({kAuthorizer, "super.users=User:admin"});
  h.set_principal("User:admin");
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("visible", 1, 1), 7).topics[0].error_code == 0);
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("hidden", 1, 1), 7).topics[0].error_code == 0);
  create(h, {creation(kTopic, "visible", kWrite, "User:a")});

  h.set_principal("User:a");
  CHECK(h.call<ProduceResponse>(produce("visible"), 9).responses[0].partition_responses[0].error_code == 0);
  CHECK(h.call<ProduceResponse>(produce("hidden"), 9).responses[0].partition_responses[0].error_code == 29);
  // Unauthorized and absent: refused, not created.
  CHECK(h.call<ProduceResponse>(produce("new-one"), 9).responses[0].partition_responses[0].error_code == 29);
  CHECK_FALSE(h.logs().topic("new-one"));

  MetadataRequest all;
  all.topics = std::nullopt;
  all.include_topic_authorized_operations = true;
  auto md = h.call<MetadataResponse>(all, 12);
  REQUIRE(md.topics.size() == 1);  // hidden is left out
  CHECK(md.topics[0].name == "visible");
  CHECK(md.topics[0].topic_authorized_operations == ((1 << kWrite) | (1 << kDescribe)));
  MetadataRequest named;
  named.topics.emplace().emplace_back().name = "hidden";
  CHECK(h.call<MetadataResponse>(named, 12).topics.at(0).error_code == 29);

  auto refused = h.call<CreateTopicsResponse>(test::create_topics_request("mine", 1, 1), 7).topics.at(0);
  CHECK(refused.error_code == 29);
  CHECK(refused.error_message == "Authorization failed.");  // Kafka's words
  CreatePartitionsRequest grow;
  grow.topics.emplace_back().name = "hidden";
  grow.topics.back().count = 2;
  auto grown = h.call<CreatePartitionsResponse>(grow, 3).results.at(0);
  CHECK(grown.error_code == 29);
  CHECK(grown.error_message == "The topic authorization is failed.");  // Kafka's words
  JoinGroupRequest jg;
  jg.group_id = "g";
  jg.session_timeout_ms = 10000;
  jg.rebalance_timeout_ms = 10000;
  jg.protocol_type = "consumer";
  CHECK(h.call<JoinGroupResponse>(jg, 5).error_code == 30);
  // Idempotent producer: WRITE on some topic is enough (authorizeByResourceType).
  InitProducerIdRequest ip;
  ip.transactional_id = std::nullopt;
  ip.transaction_timeout_ms = 60000;
  CHECK(h.call<InitProducerIdResponse>(ip, 4).error_code == 0);
  DescribeClusterRequest dc;
  dc.include_cluster_authorized_operations = true;
  CHECK(h.call<DescribeClusterResponse>(dc, 1).cluster_authorized_operations == 0);

  h.set_principal("User:b");
  CHECK(h.call<InitProducerIdResponse>(ip, 4).error_code == 31);
  CHECK(h.call<MetadataResponse>(all, 12).topics.empty());
  h.set_principal("User:admin");
  create(h, {creation(kCluster, "kafka-cluster", kIdempotentWrite, "User:b"),
             creation(kCluster, "kafka-cluster", kCreate, "User:b"), creation(kGroup, "g", kRead, "User:b")});
  h.set_principal("User:b");
  CHECK(h.call<InitProducerIdResponse>(ip, 4).error_code == 0);
  CHECK(h.call<CreateTopicsResponse>(test::create_topics_request("mine", 1, 1), 7).topics[0].error_code == 0);
  CHECK(h.call<JoinGroupResponse>(jg, 5).error_code != 30);
  CHECK(h.call<DescribeClusterResponse>(dc, 1).cluster_authorized_operations == 0);  // no DESCRIBE on the cluster
  h.set_principal("User:admin");
  CHECK(h.call<DescribeClusterResponse>(dc, 1).cluster_authorized_operations == 8096);
}

TEST_CASE("ListConfigResources needs DESCRIBE_CONFIGS on the cluster, as Kafka's", "[api][acl]") {
  test::ApiHarness h({kAuthorizer, "super.users=User:admin"});
  h.set_principal("User:admin");
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("t", 1, 1), 7).topics[0].error_code == 0);
  ListConfigResourcesRequest req;
  req.resource_types = {2};
  CHECK(h.call<ListConfigResourcesResponse>(req, 1).config_resources.size() == 1);
  h.set_principal("User:a");
  auto refused = h.call<ListConfigResourcesResponse>(req, 1);
  CHECK(refused.error_code == 31);  // CLUSTER_AUTHORIZATION_FAILED
  CHECK(refused.config_resources.empty());
  h.set_principal("User:admin");
  create(h, {creation(kCluster, "kafka-cluster", kDescribeConfigs, "User:a")});
  h.set_principal("User:a");
  CHECK(h.call<ListConfigResourcesResponse>(req, 1).error_code == 0);
}
