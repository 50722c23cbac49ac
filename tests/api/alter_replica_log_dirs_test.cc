// AlterReplicaLogDirs through KafkaApis: Kafka 4.4's answers per partition
// (the move itself is tested in tests/log/replica_dir_mover_test.cc and,
// with Kafka's tools, in tests/integration/test_log_dirs.py).
#include <catch2/catch.hpp>

#include "protocol/generated/alter_replica_log_dirs_request.h"
#include "protocol/generated/alter_replica_log_dirs_response.h"
#include "protocol/generated/create_topics_response.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

AlterReplicaLogDirsRequest::AlterReplicaLogDir dir_entry(std::string path, std::string topic,
                                                         std::vector<int32_t> partitions) {
  AlterReplicaLogDirsRequest::AlterReplicaLogDir d;
  d.path = std::move(path);
  AlterReplicaLogDirsRequest::AlterReplicaLogDirTopic t;
  t.name = std::move(topic);
  t.partitions = std::move(partitions);
  d.topics.push_back(std::move(t));
  return d;
}

// "topic-partition=error" for every result, in order.
std::vector<std::string> outcomes(const AlterReplicaLogDirsResponse& r) {
  std::vector<std::string> v;
  for (const auto& t : r.results)
    for (const auto& p : t.partitions)
      v.push_back(t.topic_name + "-" + std::to_string(p.partition_index) + "=" + std::to_string(p.error_code));
  return v;
}

}  // namespace

TEST_CASE("AlterReplicaLogDirs answers as Kafka 4.4", "[api][admin][logdirs]") {
  test::ApiHarness h;
  REQUIRE(h.call<CreateTopicsResponse>(test::create_topics_request("a", 2, 1), 7).topics[0].error_code == 0);
  for (int16_t v : {1, 2}) {
    AlterReplicaLogDirsRequest req;
    // The partition's own dir (with a trailing '/'): nothing to move, NONE.
    req.dirs.push_back(dir_entry(h.log_dir().string() + "/", "a", {0, 1, 5}));
    req.dirs.push_back(dir_entry(h.log_dir().string(), "nope", {0}));
    // Not one of log.dirs: LOG_DIR_NOT_FOUND (57), before the partition is looked at.
    req.dirs.push_back(dir_entry("/no/such/log/dir", "missing", {3}));
    auto r = h.call<AlterReplicaLogDirsResponse>(req, v);
    CHECK(outcomes(r) == std::vector<std::string>{"a-0=0", "a-1=0", "a-5=3", "missing-3=57", "nope-0=3"});
    CHECK(h.logs().replica_mover().futures().empty());
  }
}
