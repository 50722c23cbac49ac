// Retention of the active segment, as Kafka's UnifiedLog.deleteOldSegments:
// once the last segment's records are all past retention.ms, a new empty
// active segment is rolled and the old one deleted, the log start moves to
// the end, and the empty log still serves fetches, appends and a restart.
#include <catch2/catch.hpp>

#include "log/batch_builder.h"
#include "test_util.h"

using namespace skiff::storage;
using namespace skiff::storage::test;

TEST_CASE("retention.ms deletes the active segment of an idle partition", "[log][retention]") {
  TempDir dir;
  auto cfg = config_with([](LogConfig& c) { c.retention_ms = 10000; });
  auto log = open_log(dir.path(), cfg);
  for (int i = 0; i < 3; ++i) REQUIRE(append_tmp(*log, make_test_batch(2, 100, 1000 + i), 0, 2000).has_value());
  REQUIRE(log->segment_count() == 1);  // everything is in the active segment

  CHECK(log->delete_old_segments(5000) == 0);  // not yet past retention
  CHECK(log->log_start_offset().value == 0);

  CHECK(log->delete_old_segments(20000) == 1);  // 20000 - 1002 > 10000
  CHECK(log->segment_count() == 1);
  CHECK(log->segment_base_offsets().front() == 6);
  CHECK(log->log_start_offset().value == 6);
  CHECK(log->log_end_offset().value == 6);
  CHECK_FALSE(std::filesystem::exists(dir / segment_file_name(0, ".log")));
  auto at_end = log->read(Offset(6), 1000);
  REQUIRE(outcome(at_end) == LogErrc::kNone);
  CHECK(at_end->slice.empty());
  CHECK(at_end->log_start_offset.value == 6);
  CHECK(outcome(log->read(Offset(0), 1000)) == LogErrc::kOffsetOutOfRange);
  CHECK(log->delete_old_segments(40000) == 0);  // an empty active segment stays

  auto r = append_tmp(*log, make_test_batch(1, 100, 39000), 0, 40000);
  REQUIRE(r.has_value());
  CHECK(r->base_offset.value == 6);
  log->close();
  log = open_log(dir.path(), cfg, true);
  CHECK(log->log_end_offset().value == 7);
  CHECK(read_all_batches(*log, 6).size() == 1);
}

TEST_CASE("cleanup.policy=compact keeps data past retention, -1 keeps it forever", "[log][retention]") {
  TempDir dir;
  auto log = open_log(dir.path(), config_with([](LogConfig& c) {
                        c.retention_ms = 10000;
                        c.retention_deletes = false;
                      }));
  REQUIRE(append_tmp(*log, make_test_batch(2, 100, 1000), 0, 2000).has_value());
  CHECK(log->delete_old_segments(100000) == 0);
  log->set_config(config_with([](LogConfig& c) { c.retention_ms = -1; }));
  CHECK(log->delete_old_segments(100000) == 0);
  CHECK(log->log_start_offset().value == 0);
  log->set_config(config_with([](LogConfig& c) { c.retention_bytes = 0; }));
  CHECK(log->delete_old_segments(3000) == 1);  // retention.bytes counts the active segment too
  CHECK(log->log_start_offset().value == 2);
}
