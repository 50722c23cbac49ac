// Kafka's DumpLogSegments (kafka-dump-log.sh) decodes a segment of our
// __remote_log_metadata with its --remote-log-metadata-decoder. Needs java
// and Kafka's jars (scripts/fetch_kafka_jars.sh); skips without them.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "tests/remote/metadata_fixture.h"
#include "tests/support/kafka_jars.h"

using namespace skiff;
using namespace skiff::remote;
using namespace skiff::remote::rlmm_test;
namespace fs = std::filesystem;

TEST_CASE("rlmm: Kafka's DumpLogSegments decodes our topic with --remote-log-metadata-decoder",
          "[remote][metadata][kafka]") {
  if (!test::kafka_tools_available()) return;
  Broker b;
  write_states(*b.rlmm);
  b.stop();
  const fs::path file = b.partition_dir(metadata_partition(user_tp(), 3)) / "00000000000000000000.log";
  int status = 0;
  const std::string out =
      test::run("java -cp '" + test::kafka_jar_dir() +
                    "/*' org.apache.kafka.tools.DumpLogSegments --remote-log-metadata-decoder --files " + file.string(),
                &status);
  INFO(out.substr(0, 6000));
  REQUIRE(status == 0);
  CHECK(out.find("Exception") == std::string::npos);
  CHECK(out.find("RemoteLogSegmentMetadata{") != std::string::npos);
  CHECK(out.find("state=COPY_SEGMENT_STARTED") != std::string::npos);
  CHECK(out.find("RemoteLogSegmentMetadataUpdate{") != std::string::npos);
  CHECK(out.find("state=DELETE_SEGMENT_FINISHED") != std::string::npos);
}
