// APIs 83-87 (Initialize/Read/Write/Delete/ReadSummary ShareGroupState)
// through KafkaApis: answers from the share coordinator's thread, Kafka's
// errors and messages, state across a broker restart, and the inter-broker
// CLUSTER_ACTION check.
#include <catch2/catch.hpp>

#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_share_group_state_request.h"
#include "protocol/generated/delete_share_group_state_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/initialize_share_group_state_request.h"
#include "protocol/generated/initialize_share_group_state_response.h"
#include "protocol/generated/read_share_group_state_request.h"
#include "protocol/generated/read_share_group_state_response.h"
#include "protocol/generated/read_share_group_state_summary_request.h"
#include "protocol/generated/read_share_group_state_summary_response.h"
#include "protocol/generated/write_share_group_state_request.h"
#include "protocol/generated/write_share_group_state_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

const std::string kAuthorizer = "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer";

Uuid create_topic(test::ApiHarness& h, const std::string& name, int32_t partitions) {
  auto r = h.call<CreateTopicsResponse>(test::create_topics_request(name, partitions, 1), 7);
  REQUIRE(r.topics.at(0).error_code == 0);
  return h.logs().topic(name)->topic_id;
}

InitializeShareGroupStateRequest init_request(const std::string& group, Uuid topic, const std::vector<int32_t>& parts,
                                              int32_t state_epoch, int64_t start) {
  InitializeShareGroupStateRequest req;
  req.group_id = group;
  auto& t = req.topics.emplace_back();
  t.topic_id = topic;
  for (int32_t p : parts) {
    auto& pd = t.partitions.emplace_back();
    pd.partition = p;
    pd.state_epoch = state_epoch;
    pd.start_offset = start;
  }
  return req;
}

WriteShareGroupStateRequest write_request(const std::string& group, Uuid topic, int32_t partition, int32_t state_epoch,
                                          int32_t leader_epoch, int64_t start, int32_t dcc,
                                          const std::vector<std::array<int64_t, 4>>& batches) {
  WriteShareGroupStateRequest req;
  req.group_id = group;
  auto& t = req.topics.emplace_back();
  t.topic_id = topic;
  auto& p = t.partitions.emplace_back();
  p.partition = partition;
  p.state_epoch = state_epoch;
  p.leader_epoch = leader_epoch;
  p.start_offset = start;
  p.delivery_complete_count = dcc;
  for (auto [f, l, s, c] : batches)
    p.state_batches.push_back({f, l, static_cast<int8_t>(s), static_cast<int16_t>(c), {}});
  return req;
}

ReadShareGroupStateRequest read_request(const std::string& group, Uuid topic, int32_t partition, int32_t leader) {
  ReadShareGroupStateRequest req;
  req.group_id = group;
  auto& t = req.topics.emplace_back();
  t.topic_id = topic;
  auto& p = t.partitions.emplace_back();
  p.partition = partition;
  p.leader_epoch = leader;
  return req;
}

ReadShareGroupStateSummaryRequest summary_request(const std::string& group, Uuid topic, int32_t partition) {
  ReadShareGroupStateSummaryRequest req;
  req.group_id = group;
  auto& t = req.topics.emplace_back();
  t.topic_id = topic;
  t.partitions.emplace_back().partition = partition;
  return req;
}

DeleteShareGroupStateRequest delete_request(const std::string& group, Uuid topic, int32_t partition) {
  DeleteShareGroupStateRequest req;
  req.group_id = group;
  auto& t = req.topics.emplace_back();
  t.topic_id = topic;
  t.partitions.emplace_back().partition = partition;
  return req;
}

}  // namespace

TEST_CASE("share-group state APIs: initialize, write, read, summary, delete", "[api][share]") {
  test::ApiHarness h;
  const Uuid topic = create_topic(h, "orders", 2);

  auto init = h.call<InitializeShareGroupStateResponse>(init_request("g", topic, {0, 1}, 1, 0), 0);
  REQUIRE(init.results.size() == 1);
  CHECK(init.results[0].topic_id == topic);
  REQUIRE(init.results[0].partitions.size() == 2);
  for (const auto& p : init.results[0].partitions) {
    CHECK(p.error_code == 0);
    CHECK_FALSE(p.error_message);
  }

  auto first_read = h.call<ReadShareGroupStateResponse>(read_request("g", topic, 0, 3), 0);
  CHECK(first_read.results.at(0).partitions.at(0).error_code == 0);

  auto w = h.call<WriteShareGroupStateResponse>(
      write_request("g", topic, 0, 1, 3, 10, 4, {{10, 19, 2, 1}, {20, 29, 0, 1}}), 1);
  REQUIRE(w.results.at(0).partitions.at(0).error_code == 0);

  auto r = h.call<ReadShareGroupStateResponse>(read_request("g", topic, 0, 3), 0);
  const auto& rp = r.results.at(0).partitions.at(0);
  REQUIRE(rp.error_code == 0);
  CHECK(rp.state_epoch == 1);
  CHECK(rp.start_offset == 10);
  REQUIRE(rp.state_batches.size() == 2);
  CHECK(rp.state_batches[0].first_offset == 10);
  CHECK(rp.state_batches[0].delivery_state == 2);
  CHECK(rp.state_batches[1].last_offset == 29);

  auto s = h.call<ReadShareGroupStateSummaryResponse>(summary_request("g", topic, 0), 1);
  const auto& sp = s.results.at(0).partitions.at(0);
  CHECK(sp.error_code == 0);
  CHECK(sp.start_offset == 10);
  CHECK(sp.delivery_complete_count == 4);
  CHECK(sp.leader_epoch == 3);
  CHECK(sp.state_epoch == 1);

  // Kafka's errors and messages.
  auto fenced = h.call<WriteShareGroupStateResponse>(write_request("g", topic, 0, 0, 3, 10, 4, {}), 1);
  CHECK(fenced.results[0].partitions[0].error_code == code(ErrorCode::kFencedStateEpoch));
  CHECK(fenced.results[0].partitions[0].error_message ==
        "The coordinator rejected the request because the state epoch did not match.");
  auto old_leader = h.call<ReadShareGroupStateResponse>(read_request("g", topic, 0, 2), 0);
  CHECK(old_leader.results[0].partitions[0].error_code == code(ErrorCode::kFencedLeaderEpoch));
  auto uninit = h.call<ReadShareGroupStateResponse>(read_request("other", topic, 0, 0), 0);
  CHECK(uninit.results[0].partitions[0].error_code == code(ErrorCode::kInvalidRequest));
  CHECK(uninit.results[0].partitions[0].error_message ==
        "Read operation on uninitialized share partition not allowed.");
  auto unknown = h.call<ReadShareGroupStateSummaryResponse>(summary_request("g", Uuid::random(), 0), 1);
  CHECK(unknown.results[0].partitions[0].error_code == code(ErrorCode::kUnknownTopicOrPartition));
  auto no_group = h.call<ReadShareGroupStateResponse>(read_request("", topic, 0, 0), 0);
  CHECK(no_group.results.empty());

  // The state survives a restart; a delete removes it.
  h.restart();
  auto again = h.call<ReadShareGroupStateResponse>(read_request("g", topic, 0, 3), 0);
  CHECK(again.results[0].partitions[0].start_offset == 10);
  CHECK(again.results[0].partitions[0].state_batches.size() == 2);
  auto d = h.call<DeleteShareGroupStateResponse>(delete_request("g", topic, 0), 0);
  CHECK(d.results.at(0).partitions.at(0).error_code == 0);
  auto gone = h.call<ReadShareGroupStateSummaryResponse>(summary_request("g", topic, 0), 0);
  CHECK(gone.results[0].partitions[0].start_offset == -1);
}

TEST_CASE("share-group state APIs need CLUSTER_ACTION on the cluster", "[api][share][acl]") {
  test::ApiHarness h({kAuthorizer, "super.users=User:broker"});
  h.set_principal("User:broker");
  const Uuid topic = create_topic(h, "orders", 1);
  h.set_principal("User:mallory");
  auto w = h.call<WriteShareGroupStateResponse>(write_request("g", topic, 0, 0, 0, 0, -1, {}), 1);
  REQUIRE(w.results.size() == 1);
  CHECK(w.results[0].partitions.at(0).error_code == code(ErrorCode::kClusterAuthorizationFailed));
  CHECK(w.results[0].partitions[0].error_message == "Cluster authorization failed.");
  auto i = h.call<InitializeShareGroupStateResponse>(init_request("g", topic, {0}, 0, 0), 0);
  CHECK(i.results[0].partitions.at(0).error_code == code(ErrorCode::kClusterAuthorizationFailed));
  auto s = h.call<ReadShareGroupStateSummaryResponse>(summary_request("g", topic, 0), 1);
  CHECK(s.results[0].partitions.at(0).error_code == code(ErrorCode::kClusterAuthorizationFailed));

  h.set_principal("User:broker");  // a super user (as a broker's principal is)
  auto ok = h.call<InitializeShareGroupStateResponse>(init_request("g", topic, {0}, 0, 0), 0);
  CHECK(ok.results[0].partitions.at(0).error_code == 0);
}

TEST_CASE("FindCoordinator for a share-partition key (v6, KIP-932)", "[api][share]") {
  test::ApiHarness h;
  const std::string topic = Uuid::random().to_string();
  FindCoordinatorRequest req;
  req.key_type = 2;
  req.coordinator_keys = {"g:" + topic + ":0", "a:b:" + topic + ":7", "g:" + topic,        "  :" + topic + ":1",
                          "g:not-a-uuid:0",    "g:" + topic + ":x",   "g:" + topic + ":0:"};
  auto r = h.call<FindCoordinatorResponse>(req, 6);
  REQUIRE(r.coordinators.size() == 7);
  const std::vector<int16_t> expected{0, 0, 42, 42, 42, 42, 0};  // Java's split drops the trailing empty part
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO(req.coordinator_keys[i]);
    CHECK(r.coordinators[i].error_code == expected[i]);
    CHECK(r.coordinators[i].node_id == (expected[i] == 0 ? 1 : -1));
  }
  auto old = h.call<FindCoordinatorResponse>(req, 5);  // share keys need v6
  CHECK(old.coordinators.at(0).error_code == code(ErrorCode::kInvalidRequest));

  test::ApiHarness secured({kAuthorizer});
  secured.set_principal("User:mallory");
  auto refused = secured.call<FindCoordinatorResponse>(req, 6);
  CHECK(refused.coordinators.at(0).error_code == code(ErrorCode::kClusterAuthorizationFailed));
}
