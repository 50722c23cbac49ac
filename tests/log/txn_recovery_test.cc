// Transactions across restarts: the ongoing transactions' first offsets and
// coordinator epochs in Kafka's .snapshot format, and recovery after a crash
// (the Log dropped without close, as after kill -9): the LSO and the aborted
// list are rebuilt from snapshot + replay, and read_committed never sees an
// undecided record.
#include <catch2/catch.hpp>
#include <filesystem>

#include "common/byte_order.h"
#include "log/file_util.h"
#include "tests/log/test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

// The snapshot entry of `pid` in `file`: {coordinator epoch, current txn first offset}.
std::pair<int32_t, int64_t> snapshot_txn_fields(const std::filesystem::path& file, int64_t pid) {
  std::string s;
  REQUIRE(read_small_file(file, s));
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const uint32_t n = load_be32(p + 6);
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* e = p + 10 + i * 46;
    if (static_cast<int64_t>(load_be64(e)) == pid)
      return {static_cast<int32_t>(load_be32(e + 34)), static_cast<int64_t>(load_be64(e + 38))};
  }
  FAIL("producer not in snapshot");
  return {};
}

}  // namespace

TEST_CASE("snapshot keeps ongoing transactions and coordinator epochs (Kafka's fields)", "[log][txn]") {
  TempDir d;
  {
    auto log = open_log(d.path(), config_with());
    REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());  // 0-1 P1 ends
    REQUIRE(marker(*log, 1, 0, true, 9).has_value());           // 2
    REQUIRE(append_tmp(*log, txn_batch(2, 0, 0)).has_value());  // 3-4 P2 open
    log->close();
  }
  const auto snap = ProducerStateManager::snapshot_path(d.path(), 5);
  REQUIRE(std::filesystem::exists(snap));
  CHECK(snapshot_txn_fields(snap, 1) == std::pair<int32_t, int64_t>{9, -1});
  CHECK(snapshot_txn_fields(snap, 2) == std::pair<int32_t, int64_t>{-1, 3});
  auto log = open_log(d.path(), config_with(), /*clean=*/true, 5);
  CHECK(log->producer_batches_replayed() == 0);  // all from the snapshot
  CHECK(log->last_stable_offset().value == 3);
  CHECK(outcome(marker(*log, 1, 0, true, 8)) == LogErrc::kTransactionCoordinatorFenced);
  REQUIRE(marker(*log, 2, 0, false).has_value());  // 5
  CHECK(log->aborted_txns_of_segment(0) == std::vector<AbortedTxn>{{2, 3, 5, 6}});
  CHECK(log->last_stable_offset().value == 6);
}

TEST_CASE("crash with transactions open: LSO and aborted list rebuilt, nothing undecided served", "[log][txn]") {
  TempDir d;
  {
    auto log = open_log(d.path(), config_with());
    REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());       // 0-1 P1 open
    REQUIRE(outcome(log->roll(wall_clock_ms())) == LogErrc::kNone);  // snapshot at 2 holds P1's first offset
    REQUIRE(append_tmp(*log, txn_batch(2, 0, 0)).has_value());       // 2-3 P2
    REQUIRE(append_tmp(*log, txn_batch(3, 0, 0)).has_value());       // 4-5 P3
    REQUIRE(marker(*log, 2, 0, false).has_value());                  // 6: {2, 2, 6, lso 0}
    REQUIRE(marker(*log, 3, 0, true).has_value());                   // 7
    REQUIRE(outcome(log->flush()) == LogErrc::kNone);
    // no close(): no snapshot at the end, no clean-shutdown flag
  }
  std::filesystem::remove(d / "00000000000000000002.txnindex");  // the entry was lost with the page cache
  auto log = open_log(d.path(), config_with(), /*clean=*/false, 0);
  CHECK(log->log_end_offset().value == 8);
  CHECK(log->producer_batches_replayed() == 4);  // from the snapshot at 2
  CHECK(log->last_stable_offset().value == 0);   // P1 is still undecided
  CHECK(log->aborted_txns_of_segment(2) == std::vector<AbortedTxn>{{2, 2, 6, 0}});
  CHECK(log->read(Offset(0), 1 << 20, log->last_stable_offset())->slice.empty());
  REQUIRE(marker(*log, 1, 0, true).has_value());  // the coordinator completes P1: 8
  CHECK(log->last_stable_offset().value == 9);
  CHECK(log->collect_aborted_txns(Offset(0), Offset(9)) == std::vector<AbortedTxn>{{2, 2, 6, 0}});
}

TEST_CASE("recovery drops .txnindex entries the truncated log no longer backs", "[log][txn]") {
  TempDir d;
  {
    auto log = open_log(d.path(), config_with());
    REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());  // 0-1
    REQUIRE(marker(*log, 1, 0, false).has_value());             // 2
  }
  // Tear the marker batch: the log ends at 2, the index entry must go.
  const auto seg = d / "00000000000000000000.log";
  std::filesystem::resize_file(seg, std::filesystem::file_size(seg) - 3);
  auto log = open_log(d.path(), config_with(), /*clean=*/false, 0);
  CHECK(log->log_end_offset().value == 2);
  CHECK(log->aborted_txns_of_segment(0).empty());
  CHECK(std::filesystem::file_size(d / "00000000000000000000.txnindex") == 0);
  CHECK(log->last_stable_offset().value == 0);  // P1's transaction is open again
}
