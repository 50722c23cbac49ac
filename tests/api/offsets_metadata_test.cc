// ListOffsets, OffsetForLeaderEpoch and Metadata.
#include "api/topics.h"
#include "log/batch_builder.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/offset_for_leader_epoch_request.h"
#include "protocol/generated/offset_for_leader_epoch_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;

namespace {

protocol::ListOffsetsRequest list_offsets(const std::string& topic, int64_t timestamp) {
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  protocol::ListOffsetsRequest::ListOffsetsTopic t;
  t.name = topic;
  protocol::ListOffsetsRequest::ListOffsetsPartition p;
  p.partition_index = 0;
  p.timestamp = timestamp;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  return req;
}

protocol::MetadataRequest metadata_request(const std::vector<std::string>& names, bool auto_create = true) {
  protocol::MetadataRequest req;
  req.topics.emplace();
  for (auto& n : names) {
    protocol::MetadataRequest::MetadataRequestTopic t;
    t.name = n;
    req.topics->push_back(t);
  }
  req.allow_auto_topic_creation = auto_create;
  return req;
}

}  // namespace

TEST_CASE("ListOffsets: earliest, latest, max timestamp, by timestamp", "[api][listoffsets]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  auto log = h.logs().get_log("t", 0);
  for (int i = 0; i < 4; ++i) {  // batches at timestamps 1000, 2000, 3000, 4000; 3 records each
    auto b = storage::make_test_batch(3, 10, int64_t{1000} * (i + 1));
    REQUIRE(log->append(b).has_value());
  }
  REQUIRE(outcome(log->maybe_increment_log_start_offset(storage::Offset(1))) == storage::LogErrc::kNone);
  auto at = [&](int64_t ts, int16_t v) {
    auto r = h.call<protocol::ListOffsetsResponse>(list_offsets("t", ts), v);
    REQUIRE(r.topics.size() == 1);
    return r.topics[0].partitions.at(0);
  };
  for (int16_t v : {1, 4, 7, 10}) {
    CHECK(at(-2, v).offset == 1);
    CHECK(at(-1, v).offset == 12);
    CHECK(at(2500, v).offset == 6);
    CHECK(at(2500, v).timestamp >= 3000);
    CHECK(at(99999, v).offset == -1);
  }
  CHECK(at(-3, 7).timestamp == 4000);
  CHECK(at(-3, 7).offset >= 9);
  auto unknown = h.call<protocol::ListOffsetsResponse>(list_offsets("nope", -1), 5);
  CHECK(unknown.topics[0].partitions[0].error_code == 3);
}

TEST_CASE("OffsetForLeaderEpoch: epoch 0 ends at the log end", "[api][epoch]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  auto b = storage::make_test_batch(7, 10, 1000);
  REQUIRE(h.logs().get_log("t", 0)->append(b).has_value());
  protocol::OffsetForLeaderEpochRequest req;
  req.replica_id = -1;
  protocol::OffsetForLeaderEpochRequest::OffsetForLeaderTopic t;
  t.topic = "t";
  protocol::OffsetForLeaderEpochRequest::OffsetForLeaderPartition p;
  p.partition = 0;
  p.leader_epoch = 0;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  for (int16_t v : {2, 3, 4}) {
    auto r = h.call<protocol::OffsetForLeaderEpochResponse>(req, v);
    CHECK(r.topics[0].partitions[0].error_code == 0);
    CHECK(r.topics[0].partitions[0].end_offset == 7);
    CHECK(r.topics[0].partitions[0].leader_epoch == 0);
  }
}

TEST_CASE("Metadata: broker, controller, cluster id, auto-creation, errors", "[api][metadata]") {
  test::ApiHarness h({"num.partitions=3"});
  for (int16_t v : {0, 1, 4, 8, 9, 12}) {
    auto r = h.call<protocol::MetadataResponse>(metadata_request({"auto-" + std::to_string(v)}), v);
    REQUIRE(r.brokers.size() == 1);
    CHECK(r.brokers[0].host == "broker.test");
    CHECK(r.brokers[0].port == 9092);
    CHECK(r.brokers[0].node_id == 1);
    if (v >= 1) CHECK(r.controller_id == 1);
    if (v >= 2) CHECK(r.cluster_id == h.logs().cluster_id());
    REQUIRE(r.topics.size() == 1);
    CHECK(r.topics[0].error_code == 0);
    REQUIRE(r.topics[0].partitions.size() == 3);
    CHECK(r.topics[0].partitions[2].leader_id == 1);
    CHECK(r.topics[0].partitions[2].replica_nodes == std::vector<int32_t>{1});
    CHECK(r.topics[0].partitions[2].isr_nodes == std::vector<int32_t>{1});
    if (v >= 10) CHECK(r.topics[0].topic_id == h.logs().topic("auto-12")->topic_id);
  }
  auto no_create = h.call<protocol::MetadataResponse>(metadata_request({"absent"}, false), 12);
  CHECK(no_create.topics[0].error_code == 3);
  CHECK_FALSE(h.logs().topic("absent"));
  auto illegal = h.call<protocol::MetadataResponse>(metadata_request({"no spaces allowed"}), 12);
  CHECK(illegal.topics[0].error_code == 17);

  protocol::MetadataRequest all;
  all.topics.reset();  // null: every topic
  CHECK(h.call<protocol::MetadataResponse>(all, 12).topics.size() == 6);
  CHECK(h.call<protocol::MetadataResponse>(metadata_request({}), 0).topics.size() == 6);  // v0: empty = all
  CHECK(h.call<protocol::MetadataResponse>(metadata_request({}), 1).topics.empty());
}

TEST_CASE("Metadata with auto.create.topics.enable=false", "[api][metadata]") {
  test::ApiHarness h({"auto.create.topics.enable=false"});
  CHECK(h.call<protocol::MetadataResponse>(metadata_request({"x"}), 3).topics[0].error_code == 3);
}

TEST_CASE("Metadata by topic id: the Java client's request leaves the name at \"\"", "[api][metadata]") {
  test::ApiHarness h({"num.partitions=2"});
  h.call<protocol::MetadataResponse>(metadata_request({"by-id"}), 12);  // auto-created
  const Uuid id = h.logs().topic("by-id")->topic_id;
  for (int16_t v : {12, 13}) {
    protocol::MetadataRequest req;
    req.topics.emplace();
    protocol::MetadataRequest::MetadataRequestTopic t;
    t.topic_id = id;
    t.name = "";  // MetadataRequest.Builder.forTopicIds: the generated default, not null
    req.topics->push_back(t);
    auto r = h.call<protocol::MetadataResponse>(req, v);
    REQUIRE(r.topics.size() == 1);
    CHECK(r.topics[0].error_code == 0);
    CHECK(r.topics[0].name == "by-id");
    CHECK(r.topics[0].partitions.size() == 2);
    req.topics->at(0).topic_id = Uuid::random();
    auto unknown = h.call<protocol::MetadataResponse>(req, v);
    CHECK(unknown.topics.at(0).error_code == 100);  // UNKNOWN_TOPIC_ID
  }
}
