// Appending to a compacted log: a record without a key fails its whole batch
// with INVALID_RECORD, naming each keyless record by its index in the batch
// with Kafka 4.4's messages (LogValidator.validateKey, processRecordErrors).
#include <catch2/catch.hpp>

#include "cleaner_test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

std::vector<uint8_t> batch_of(std::vector<std::optional<std::string>> keys) {
  BatchBuilder b;
  for (const auto& k : keys) b.add(k, std::string("v"), wall_clock_ms());
  return b.build();
}

const std::string kMsg = "Compacted topic cannot accept message without key in topic partition orders-3";

}  // namespace

TEST_CASE("A keyless record on a compacted topic fails its batch with Kafka's record errors", "[log][cleaner]") {
  for (auto codec : {Compression::kNone, Compression::kZstd}) {
    TempDir dir;
    auto log = open_log(dir / "orders-3", compact_config());
    REQUIRE(append_tmp(*log, with_codec(batch_of({"a"}), codec)).has_value());
    auto r = append_tmp(
        *log, with_codec(batch_of({"b", std::nullopt, "c", std::nullopt, std::nullopt, std::nullopt}), codec));
    REQUIRE(outcome(r) == LogErrc::kInvalidRecord);
    CHECK(r.error().record_errors == std::vector<RecordError>{{1, kMsg}, {3, kMsg}, {4, kMsg}, {5, kMsg}});
    CHECK(r.error().message ==
          "One or more records have been rejected due to 4 record errors in total, and only showing the first "
          "three errors at most: [RecordError(batchIndex=1, message='" +
              kMsg +
              "'), RecordError(batchIndex=3, "
              "message='" +
              kMsg + "'), RecordError(batchIndex=4, message='" + kMsg + "')]");
    CHECK(log->log_end_offset().value == 1);  // nothing of the batch
    CHECK(read_records(*log).size() == 1);
    CHECK(append_tmp(*log, with_codec(batch_of({"d", "e"}), codec)).has_value());
  }
  // Not compacted: keyless records are fine.
  TempDir dir;
  auto log = open_log(dir / "orders-3", config_with());
  CHECK(append_tmp(*log, batch_of({std::nullopt})).has_value());
}
