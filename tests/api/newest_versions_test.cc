// The newest versions of ApiVersions (v5), Metadata (v13), ListOffsets (v11)
// and DescribeLogDirs (v5), as Kafka 4.4 answers them (the expected answers
// are what a Kafka 4.4 broker gave to the same requests).
#include "log/batch_builder.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/describe_log_dirs_request.h"
#include "protocol/generated/describe_log_dirs_response.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

ApiVersionsResponse api_versions_v5(test::ApiHarness& h, std::optional<std::string> cluster, int32_t node) {
  ApiVersionsRequest req;
  req.client_software_name = "skiff-test";
  req.client_software_version = "1.0";
  req.cluster_id = std::move(cluster);
  req.node_id = node;
  return h.call<ApiVersionsResponse>(req, 5);
}

ListOffsetsResponse::ListOffsetsPartitionResponse list_offset(test::ApiHarness& h, int64_t timestamp, int16_t version) {
  ListOffsetsRequest req;
  req.replica_id = -1;
  auto& t = req.topics.emplace_back();
  t.name = "t";
  t.partitions.emplace_back().timestamp = timestamp;
  auto resp = h.call<ListOffsetsResponse>(req, version);
  REQUIRE(resp.topics.size() == 1);
  return resp.topics[0].partitions.at(0);
}

}  // namespace

TEST_CASE("ApiVersions v5: the cluster and node a client expects (KIP-1242)", "[api][apiversions][v5]") {
  test::ApiHarness h;
  const std::string cluster = h.logs().cluster_id();
  const int32_t node = h.logs().node_id();

  auto plain = api_versions_v5(h, std::nullopt, -1);  // names neither: served
  CHECK(plain.error_code == 0);
  CHECK_FALSE(plain.api_keys.empty());
  auto ours = api_versions_v5(h, cluster, node);  // names this broker: served
  CHECK(ours.error_code == 0);
  CHECK(ours.api_keys.size() == plain.api_keys.size());

  for (auto [c, n] : {std::pair<std::string, int32_t>{"another-cluster", node}, {cluster, node + 1}}) {
    auto other = api_versions_v5(h, c, n);
    CHECK(other.error_code == 129);  // REBOOTSTRAP_REQUIRED, no APIs
    CHECK(other.api_keys.empty());
  }
  CHECK(api_versions_v5(h, cluster, -1).error_code == 42);  // one without the other: INVALID_REQUEST
  CHECK(api_versions_v5(h, std::nullopt, node).error_code == 42);
}

TEST_CASE("Metadata v13: a top-level error code, NONE in an answer", "[api][metadata][v13]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 2)) == storage::LogErrc::kNone);
  MetadataRequest req;
  req.topics.emplace();
  req.topics->emplace_back().name = "t";
  req.topics->emplace_back().name = "nope";
  req.allow_auto_topic_creation = false;
  auto resp = h.call<MetadataResponse>(req, 13);
  CHECK(resp.error_code == 0);
  REQUIRE(resp.topics.size() == 2);
  CHECK(resp.topics[0].error_code == 0);
  CHECK(resp.topics[0].partitions.size() == 2);
  CHECK(resp.topics[1].error_code == 3);  // UNKNOWN_TOPIC_OR_PARTITION stays per topic
}

TEST_CASE("ListOffsets v11: earliest-pending-upload, and each special timestamp from its version",
          "[api][listoffsets][v11]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  auto b = storage::make_test_batch(3, 10, 1000);
  REQUIRE(h.logs().get_log("t", 0)->append(b).has_value());

  // No tiered storage: nothing uploaded (-5) or pending upload (-6): offset -1, no error.
  for (auto [ts, v] : {std::pair<int64_t, int16_t>{-6, 11}, {-5, 9}, {-5, 11}}) {
    INFO("timestamp " << ts << " v" << v);
    auto r = list_offset(h, ts, v);
    CHECK(r.error_code == 0);
    CHECK(r.offset == -1);
    CHECK(r.timestamp == -1);
    CHECK(r.leader_epoch == -1);
  }
  auto local = list_offset(h, -4, 11);  // earliest local: the log start
  CHECK(local.error_code == 0);
  CHECK(local.offset == 0);
  // Before its version, or unknown: UNSUPPORTED_VERSION (Kafka 4.4's ReplicaManager).
  for (auto [ts, v] : {std::pair<int64_t, int16_t>{-6, 10}, {-5, 8}, {-4, 7}, {-3, 6}, {-7, 11}}) {
    INFO("timestamp " << ts << " v" << v);
    CHECK(list_offset(h, ts, v).error_code == 35);
  }
  CHECK(list_offset(h, -1, 11).offset == 3);
  CHECK(list_offset(h, -2, 11).offset == 0);
}

TEST_CASE("DescribeLogDirs v5: no dir is cordoned", "[api][logdirs][v5]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  DescribeLogDirsRequest req;  // topics null: everything
  req.topics.reset();
  auto resp = h.call<DescribeLogDirsResponse>(req, 5);
  CHECK(resp.error_code == 0);
  REQUIRE(resp.results.size() == 1);
  CHECK(resp.results[0].error_code == 0);
  CHECK_FALSE(resp.results[0].is_cordoned);
  CHECK(resp.results[0].total_bytes > 0);
  CHECK(resp.results[0].topics.size() == 1);
}
