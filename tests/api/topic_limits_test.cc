// CreateTopics and CreatePartitions under hostile sizes: Kafka's bound of
// 10,000 partitions per request, the broker-wide skiff.max.partitions, and
// creation that is all or nothing when it fails part way (issue 14, item 3).
#include <sys/resource.h>

#include <filesystem>

#include "protocol/generated/create_partitions_request.h"
#include "protocol/generated/create_partitions_response.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

constexpr int16_t kPolicyViolation = 44;

CreateTopicsRequest::CreatableTopic topic(const std::string& name, int32_t partitions) {
  CreateTopicsRequest::CreatableTopic t;
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = 1;
  return t;
}

CreateTopicsResponse create(test::ApiHarness& h, std::vector<CreateTopicsRequest::CreatableTopic> topics,
                            bool validate_only = false) {
  CreateTopicsRequest req;
  req.topics = std::move(topics);
  req.validate_only = validate_only;
  req.timeout_ms = 30000;
  return h.call<CreateTopicsResponse>(req, 7);
}

CreatePartitionsResponse grow(test::ApiHarness& h, std::vector<std::pair<std::string, int32_t>> counts,
                              bool validate_only = false) {
  CreatePartitionsRequest req;
  for (auto& [name, count] : counts) {
    CreatePartitionsRequest::CreatePartitionsTopic t;
    t.name = name;
    t.count = count;
    t.assignments = std::nullopt;
    req.topics.push_back(t);
  }
  req.validate_only = validate_only;
  req.timeout_ms = 30000;
  return h.call<CreatePartitionsResponse>(req, 3);
}

// Partition directories of `topic` under the harness's log dir.
int partition_dirs(test::ApiHarness& h, const std::string& topic) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(h.log_dir()))
    if (e.is_directory() && e.path().filename().string().rfind(topic + "-", 0) == 0) ++n;
  return n;
}

}  // namespace

TEST_CASE("CreateTopics: more than 10,000 partitions in one request is POLICY_VIOLATION for every topic",
          "[api][admin][limits]") {
  test::ApiHarness h;
  REQUIRE(create(h, {topic("exists", 1)}).topics[0].error_code == 0);
  for (bool validate_only : {false, true}) {
    // As Kafka 4.4 answers (ReplicationControlManager.validateTotalNumberOfPartitions):
    // the whole request, even a topic that alone would be fine or already exists.
    auto r = create(h, {topic("huge", 1000000)}, validate_only);
    REQUIRE(r.topics.size() == 1);
    CHECK(r.topics[0].error_code == kPolicyViolation);
    CHECK(r.topics[0].error_message == "Excessively large number of partitions per request.");
    r = create(h, {topic("a", 5000), topic("b", 5001), topic("small", 1), topic("exists", 1)}, validate_only);
    REQUIRE(r.topics.size() == 4);
    for (auto& t : r.topics) CHECK(t.error_code == kPolicyViolation);
  }
  CHECK(!h.logs().topic("huge"));
  CHECK(!h.logs().topic("small"));
  CHECK(partition_dirs(h, "huge") == 0);
  // 10,000 in all is within the bound (validate_only: nothing is made).
  auto ok = create(h, {topic("a", 5000), topic("b", 5000)}, /*validate_only=*/true);
  CHECK(ok.topics[0].error_code == 0);
  CHECK(ok.topics[1].error_code == 0);
}

TEST_CASE("CreatePartitions: more than 10,000 added partitions in one request is POLICY_VIOLATION",
          "[api][admin][limits]") {
  test::ApiHarness h;
  REQUIRE(create(h, {topic("t", 1), topic("u", 1)}).topics[0].error_code == 0);
  for (bool validate_only : {false, true}) {
    auto r = grow(h, {{"t", 1000000}}, validate_only);
    REQUIRE(r.results.size() == 1);
    CHECK(r.results[0].error_code == kPolicyViolation);
    CHECK(r.results[0].error_message == "Excessively large number of additional partitions per request.");
    r = grow(h, {{"t", 5001}, {"u", 5002}}, validate_only);  // 10,001 added in all
    REQUIRE(r.results.size() == 2);
    for (auto& t : r.results) CHECK(t.error_code == kPolicyViolation);
  }
  CHECK(h.logs().topic("t")->partitions == 1);
  CHECK(grow(h, {{"t", 10001}}, /*validate_only=*/true).results[0].error_code == 0);
}

TEST_CASE("skiff.max.partitions bounds the broker's total, named in the answer", "[api][admin][limits]") {
  test::ApiHarness h({"skiff.max.partitions=10"});
  REQUIRE(create(h, {topic("first", 8)}).topics[0].error_code == 0);
  for (bool validate_only : {true, false}) {
    auto r = create(h, {topic("second", 3)}, validate_only);
    CHECK(r.topics[0].error_code == kPolicyViolation);
    REQUIRE(r.topics[0].error_message);
    CHECK_THAT(*r.topics[0].error_message, Catch::Contains("skiff.max.partitions") && Catch::Contains("10"));
    auto g = grow(h, {{"first", 11}}, validate_only);
    CHECK(g.results[0].error_code == kPolicyViolation);
    REQUIRE(g.results[0].error_message);
    CHECK_THAT(*g.results[0].error_message, Catch::Contains("skiff.max.partitions"));
  }
  CHECK(!h.logs().topic("second"));
  CHECK(partition_dirs(h, "second") == 0);
  CHECK(h.logs().topic("first")->partitions == 8);
  // Up to the limit is fine, and then even auto-creation is refused.
  CHECK(create(h, {topic("second", 2)}).topics[0].error_code == 0);
  MetadataRequest m;
  m.topics = std::vector<MetadataRequest::MetadataRequestTopic>(1);
  m.topics->at(0).name = "auto";
  m.allow_auto_topic_creation = true;
  auto md = h.call<MetadataResponse>(m, 9);
  REQUIRE(md.topics.size() == 1);
  CHECK(md.topics[0].error_code != 0);
  CHECK(!h.logs().topic("auto"));
}

TEST_CASE("a creation that fails part way leaves nothing behind and can be retried", "[api][admin][limits]") {
  test::ApiHarness h;
  REQUIRE(create(h, {topic("grown", 1)}).topics[0].error_code == 0);
  // Run out of descriptors a few dozen partitions in.
  rlimit old{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &old) == 0);
  int open_now = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) (void)e, ++open_now;
  rlimit low = old;
  low.rlim_cur = static_cast<rlim_t>(open_now + 40);
  REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
  auto r = create(h, {topic("partial", 2000)});
  auto g = grow(h, {{"grown", 2001}});
  REQUIRE(setrlimit(RLIMIT_NOFILE, &old) == 0);

  CHECK(r.topics[0].error_code == 56);  // KAFKA_STORAGE_ERROR
  CHECK(!h.logs().topic("partial"));
  CHECK(partition_dirs(h, "partial") == 0);
  CHECK(g.results[0].error_code == 56);
  CHECK(h.logs().topic("grown")->partitions == 1);
  CHECK(partition_dirs(h, "grown") == 1);
  // Nothing half made stands in the way of the same request now.
  CHECK(create(h, {topic("partial", 20)}).topics[0].error_code == 0);
  CHECK(partition_dirs(h, "partial") == 20);
  CHECK(grow(h, {{"grown", 20}}).results[0].error_code == 0);
  CHECK(partition_dirs(h, "grown") == 20);
}
