// The group APIs' newest versions (Kafka 4.4): OffsetCommit v10 and
// OffsetFetch v10 name topics by id (KIP-848), DescribeGroups v6 answers an
// unknown group with GROUP_ID_NOT_FOUND (KIP-1043), DeleteGroups v3 carries a
// per-group ErrorMessage. Expected answers are what a Kafka 4.4 broker gave to
// the same requests.
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

// A simple consumer's commit (no generation) of `offset` on partition `p` of
// the topic named by id (v10) or by name (before).
OffsetCommitRequest::OffsetCommitRequestTopic commit_topic(Uuid id, const std::string& name, int32_t p,
                                                           int64_t offset) {
  OffsetCommitRequest::OffsetCommitRequestTopic t;
  t.topic_id = id;
  t.name = name;
  OffsetCommitRequest::OffsetCommitRequestPartition part;
  part.partition_index = p;
  part.committed_offset = offset;
  part.committed_metadata = "m";
  t.partitions.push_back(part);
  return t;
}

OffsetCommitRequest commit(std::vector<OffsetCommitRequest::OffsetCommitRequestTopic> topics) {
  OffsetCommitRequest r;
  r.group_id = "g";
  r.generation_id_or_member_epoch = -1;
  r.topics = std::move(topics);
  return r;
}

Uuid other_id(Uuid id) {
  id.bytes[0] ^= 0x5a;
  return id;
}

OffsetFetchRequest::OffsetFetchRequestGroup fetch_group(
    const std::string& group, std::optional<std::vector<OffsetFetchRequest::OffsetFetchRequestTopics>> topics) {
  OffsetFetchRequest::OffsetFetchRequestGroup g;
  g.group_id = group;
  g.topics = std::move(topics);
  return g;
}

OffsetFetchRequest::OffsetFetchRequestTopics fetch_topic(Uuid id, std::vector<int32_t> partitions) {
  OffsetFetchRequest::OffsetFetchRequestTopics t;
  t.topic_id = id;
  t.partition_indexes = std::move(partitions);
  return t;
}

}  // namespace

TEST_CASE("OffsetCommit v10 names topics by id, an unknown id is UNKNOWN_TOPIC_ID", "[groups][api][v10]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 2)) == storage::LogErrc::kNone);
  const Uuid id = h.logs().topic("t")->topic_id;
  auto resp = h.call<OffsetCommitResponse>(commit({commit_topic(id, "", 1, 42), commit_topic(id, "", 7, 1),
                                                   commit_topic(other_id(id), "", 0, 1), commit_topic({}, "", 0, 1)}),
                                           10);
  REQUIRE(resp.topics.size() == 4);
  CHECK(resp.topics[0].topic_id == id);
  CHECK(resp.topics[0].partitions.at(0).error_code == 0);
  CHECK(resp.topics[1].partitions.at(0).error_code == 3);  // UNKNOWN_TOPIC_OR_PARTITION: no partition 7
  CHECK(resp.topics[2].topic_id == other_id(id));
  CHECK(resp.topics[2].partitions.at(0).error_code == 100);  // UNKNOWN_TOPIC_ID
  CHECK(resp.topics[3].partitions.at(0).error_code == 100);  // the zero id too

  // Stored under the topic's name: an older client reads it by name.
  OffsetFetchRequest by_name;
  by_name.group_id = "g";
  by_name.topics.emplace();
  OffsetFetchRequest::OffsetFetchRequestTopic t;
  t.name = "t";
  t.partition_indexes = {1};
  by_name.topics->push_back(t);
  auto fetched = h.call<OffsetFetchResponse>(by_name, 7);
  CHECK(fetched.topics.at(0).partitions.at(0).committed_offset == 42);
  // v9 still names topics.
  auto v9 = h.call<OffsetCommitResponse>(commit({commit_topic({}, "t", 0, 5)}), 9);
  CHECK(v9.topics.at(0).partitions.at(0).error_code == 0);
}

TEST_CASE("OffsetFetch v10 names topics by id, also when it lists all of them", "[groups][api][v10]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 2)) == storage::LogErrc::kNone);
  const Uuid id = h.logs().topic("t")->topic_id;
  REQUIRE(h.call<OffsetCommitResponse>(commit({commit_topic(id, "", 0, 9)}), 10).topics[0].partitions[0].error_code ==
          0);

  OffsetFetchRequest req;
  req.groups.push_back(fetch_group("g", std::vector{fetch_topic(id, {0, 1}), fetch_topic(other_id(id), {0})}));
  req.groups.push_back(fetch_group("g", std::nullopt));  // all topics
  req.groups.push_back(fetch_group("nobody", std::vector{fetch_topic(id, {0})}));
  auto resp = h.call<OffsetFetchResponse>(req, 10);
  REQUIRE(resp.groups.size() == 3);

  const auto& asked = resp.groups[0];
  CHECK(asked.error_code == 0);
  REQUIRE(asked.topics.size() == 2);
  CHECK(asked.topics[0].topic_id == id);
  REQUIRE(asked.topics[0].partitions.size() == 2);
  CHECK(asked.topics[0].partitions[0].committed_offset == 9);
  CHECK(asked.topics[0].partitions[1].committed_offset == -1);  // nothing committed: -1, no error
  CHECK(asked.topics[0].partitions[1].error_code == 0);
  CHECK(asked.topics[1].topic_id == other_id(id));
  REQUIRE(asked.topics[1].partitions.size() == 1);
  CHECK(asked.topics[1].partitions[0].committed_offset == -1);
  CHECK(asked.topics[1].partitions[0].error_code == 100);  // UNKNOWN_TOPIC_ID

  const auto& all = resp.groups[1];
  REQUIRE(all.topics.size() == 1);
  CHECK(all.topics[0].topic_id == id);
  CHECK(all.topics[0].partitions.at(0).committed_offset == 9);

  const auto& nobody = resp.groups[2];
  CHECK(nobody.error_code == 0);
  CHECK(nobody.topics.at(0).partitions.at(0).committed_offset == -1);
}

TEST_CASE("DescribeGroups v6: an unknown group is GROUP_ID_NOT_FOUND, still Dead", "[groups][api][v6]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  REQUIRE(h.call<OffsetCommitResponse>(commit({commit_topic({}, "t", 0, 1)}), 9).topics[0].partitions[0].error_code ==
          0);
  DescribeGroupsRequest req;
  req.groups = {"nope", "g"};
  auto v6 = h.call<DescribeGroupsResponse>(req, 6);
  REQUIRE(v6.groups.size() == 2);
  CHECK(v6.groups[0].error_code == 69);  // GROUP_ID_NOT_FOUND
  CHECK(v6.groups[0].error_message == std::optional<std::string>("Group nope not found."));
  CHECK(v6.groups[0].group_state == "Dead");
  CHECK(v6.groups[1].error_code == 0);  // a group that exists (simple consumer's offsets): Empty
  CHECK(v6.groups[1].group_state == "Empty");
  CHECK_FALSE(v6.groups[1].error_message.has_value());
  auto v5 = h.call<DescribeGroupsResponse>(req, 5);
  CHECK(v5.groups[0].error_code == 0);  // before v6: Dead, no error
  CHECK(v5.groups[0].group_state == "Dead");
}

TEST_CASE("DeleteGroups v3: per-group results, no message for classic groups", "[groups][api][v3]") {
  test::ApiHarness h;
  REQUIRE(outcome(h.logs().create_topic("t", 1)) == storage::LogErrc::kNone);
  REQUIRE(h.call<OffsetCommitResponse>(commit({commit_topic({}, "t", 0, 1)}), 9).topics[0].partitions[0].error_code ==
          0);
  DeleteGroupsRequest req;
  req.groups_names = {"nope", "g"};
  auto resp = h.call<DeleteGroupsResponse>(req, 3);
  REQUIRE(resp.results.size() == 2);
  CHECK(resp.results[0].group_id == "nope");
  CHECK(resp.results[0].error_code == 69);  // GROUP_ID_NOT_FOUND, as Kafka 4.4: no message
  CHECK_FALSE(resp.results[0].error_message.has_value());
  CHECK(resp.results[1].error_code == 0);
  CHECK_FALSE(resp.results[1].error_message.has_value());
}
