// DeleteTopics takes the topic's committed offsets with it (Kafka's
// onPartitionsDeleted): a topic created again under the same name starts
// unconsumed, also after a restart (issue 14, item 8).
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

void create(test::ApiHarness& h, const std::string& name) {
  CreateTopicsRequest req;
  req.topics.emplace_back();
  req.topics[0].name = name;
  req.topics[0].num_partitions = 2;
  req.topics[0].replication_factor = 1;
  REQUIRE(h.call<CreateTopicsResponse>(req, 7).topics.at(0).error_code == 0);
}

void remove(test::ApiHarness& h, const std::string& name) {
  DeleteTopicsRequest req;
  req.topic_names = {name};
  REQUIRE(h.call<DeleteTopicsResponse>(req, 5).responses.at(0).error_code == 0);
}

void commit(test::ApiHarness& h, const std::string& group, const std::string& topic, int64_t offset) {
  OffsetCommitRequest r;
  r.group_id = group;
  r.generation_id_or_member_epoch = -1;  // a commit from outside group management
  for (const auto& name : {topic, std::string("other")}) {
    auto& t = r.topics.emplace_back();
    t.name = name;
    for (int32_t p = 0; p < 2; ++p) {
      auto& part = t.partitions.emplace_back();
      part.partition_index = p;
      part.committed_offset = offset;
    }
  }
  for (auto& t : h.call<OffsetCommitResponse>(r, 8).topics)
    for (auto& p : t.partitions) REQUIRE(p.error_code == 0);
}

// The committed offset of group/topic/partition (-1: none).
int64_t committed(test::ApiHarness& h, const std::string& group, const std::string& topic, int32_t partition) {
  OffsetFetchRequest f;
  f.group_id = group;
  OffsetFetchRequest::OffsetFetchRequestTopic t;
  t.name = topic;
  t.partition_indexes = {partition};
  f.topics->push_back(t);
  auto r = h.call<OffsetFetchResponse>(f, 5);
  REQUIRE(r.error_code == 0);
  return r.topics.at(0).partitions.at(0).committed_offset;
}

}  // namespace

TEST_CASE("a deleted topic's committed offsets go with it, durably", "[groups][api]") {
  test::ApiHarness h;
  create(h, "t");
  create(h, "other");
  commit(h, "g1", "t", 42);
  commit(h, "g2", "t", 7);
  REQUIRE(committed(h, "g1", "t", 1) == 42);

  remove(h, "t");
  create(h, "t");  // the same name again: a consumer must start from its reset policy
  for (auto g : {"g1", "g2"})
    for (int32_t p = 0; p < 2; ++p) CHECK(committed(h, g, "t", p) == -1);
  CHECK(committed(h, "g1", "other", 0) == 42);  // other topics keep theirs
  CHECK(committed(h, "g2", "other", 1) == 7);

  h.restart();  // the offset store must not bring them back
  CHECK(committed(h, "g1", "t", 0) == -1);
  CHECK(committed(h, "g2", "t", 1) == -1);
  CHECK(committed(h, "g1", "other", 0) == 42);
}
