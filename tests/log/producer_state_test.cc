// Idempotent producer state in the Log: duplicates answered with their first
// offsets and not stored twice, sequence gaps and stale epochs refused,
// state rebuilt at open from snapshots plus the tail of the log; and the
// durable producer id allocator.
#include "log/producer_state.h"

#include <catch2/catch.hpp>

#include "tests/log/test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

std::vector<uint8_t> idem(int64_t pid, int16_t epoch, int32_t seq, int records = 2) {
  BatchBuilder b;
  b.producer(pid, epoch, seq);
  for (int i = 0; i < records; ++i) b.add("k", "v" + std::to_string(seq + i), wall_clock_ms());
  return b.build();
}

}  // namespace

TEST_CASE("a retried batch is answered with its first offsets and stored once", "[log][producer]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  auto first = append_tmp(*log, idem(7, 0, 0));
  REQUIRE(first.has_value());
  REQUIRE(append_tmp(*log, idem(7, 0, 2)).has_value());
  auto retry = append_tmp(*log, idem(7, 0, 0));
  CHECK(retry.has_value());
  CHECK(retry->duplicate);
  CHECK(retry->base_offset == first->base_offset);
  CHECK(retry->last_offset == first->last_offset);
  CHECK(log->log_end_offset().value == 4);
}

TEST_CASE("only the last five batches are remembered", "[log][producer]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  for (int i = 0; i < 7; ++i) REQUIRE(append_tmp(*log, idem(1, 0, i * 2)).has_value());
  CHECK(append_tmp(*log, idem(1, 0, 4))->duplicate);  // batch 3 of 7: kept
  auto old = append_tmp(*log, idem(1, 0, 0));         // batch 1: forgotten -> out of order
  CHECK(outcome(old) == LogErrc::kOutOfOrderSequence);
}

TEST_CASE("a sequence gap and a stale epoch are refused", "[log][producer]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, idem(3, 1, 0)).has_value());
  CHECK(outcome(append_tmp(*log, idem(3, 1, 5))) == LogErrc::kOutOfOrderSequence);
  CHECK(outcome(append_tmp(*log, idem(3, 0, 2))) == LogErrc::kInvalidProducerEpoch);
  // A bumped epoch starts again at sequence 0; anything else is out of order.
  CHECK(outcome(append_tmp(*log, idem(3, 2, 9))) == LogErrc::kOutOfOrderSequence);
  CHECK(append_tmp(*log, idem(3, 2, 0)).has_value());
  CHECK(log->log_end_offset().value == 4);
  // Non-idempotent batches are not tracked at all.
  CHECK(append_tmp(*log, make_test_batch(3, 10, wall_clock_ms())).has_value());
}

TEST_CASE("a new producer may start at any sequence", "[log][producer]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  CHECK(append_tmp(*log, idem(9, 0, 42)).has_value());
  CHECK(append_tmp(*log, idem(9, 0, 44)).has_value());
}

TEST_CASE("producer state survives a restart: snapshot at close, replay after a crash", "[log][producer]") {
  TempDir d;
  auto cfg = config_with([](LogConfig& c) { c.segment_bytes = 400; });
  {
    auto log = open_log(d.path(), cfg);
    for (int i = 0; i < 10; ++i) REQUIRE(append_tmp(*log, idem(5, 0, i * 2)).has_value());
    REQUIRE(log->segment_count() > 1);
    CHECK(!ProducerStateManager::list_snapshots(d.path()).empty());  // one per roll
    log->close();
  }
  {  // clean: the snapshot at the end covers everything
    auto log = open_log(d.path(), cfg, /*clean=*/true);
    CHECK(log->producer_batches_replayed() == 0);
    CHECK(append_tmp(*log, idem(5, 0, 18))->duplicate);  // the last batch, kept by the snapshot
    CHECK(outcome(append_tmp(*log, idem(5, 0, 30))) == LogErrc::kOutOfOrderSequence);
    CHECK(append_tmp(*log, idem(5, 0, 20)).has_value());
    // no close: as after a crash
  }
  {
    auto log = open_log(d.path(), cfg);
    CHECK(log->producer_batches_replayed() >= 1);
    CHECK(log->producer_batches_replayed() < 11);  // from the newest snapshot, not the start
    CHECK(append_tmp(*log, idem(5, 0, 20))->duplicate);
    CHECK(append_tmp(*log, idem(5, 0, 22)).has_value());
  }
}

TEST_CASE("a corrupt snapshot is ignored and the log is replayed", "[log][producer]") {
  TempDir d;
  {
    auto log = open_log(d.path(), config_with());
    for (int i = 0; i < 3; ++i) REQUIRE(append_tmp(*log, idem(2, 0, i * 2)).has_value());
    log->close();
  }
  auto snaps = ProducerStateManager::list_snapshots(d.path());
  REQUIRE(snaps.size() == 1);
  {
    std::FILE* f = std::fopen(ProducerStateManager::snapshot_path(d.path(), snaps[0]).c_str(), "r+b");
    REQUIRE(f);
    std::fseek(f, 12, SEEK_SET);
    std::fputc(0x5a, f);
    std::fclose(f);
  }
  auto log = open_log(d.path(), config_with(), true);
  CHECK(log->producer_batches_replayed() == 3);
  CHECK(append_tmp(*log, idem(2, 0, 4))->duplicate);
}
