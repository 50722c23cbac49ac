// Transactions in the Log: COMMIT/ABORT control batches, the last stable
// offset (moved exactly as Kafka's ProducerStateManager/UnifiedLog move it),
// the .txnindex bytes and Kafka's collectAbortedTxns across segments, and the
// read_committed read bound.
#include <catch2/catch.hpp>

#include "log/control_batch.h"
#include "log/file_util.h"
#include "tests/log/test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

std::vector<uint8_t> plain_batch(int records = 2) {
  BatchBuilder b;
  for (int i = 0; i < records; ++i) b.add("k", "v", wall_clock_ms());
  return b.build();
}

int64_t lso(const Log& log) { return log.last_stable_offset().value; }

}  // namespace

TEST_CASE("a marker is Kafka's EndTransactionMarker control batch", "[log][txn]") {
  auto bytes = build_marker_batch(42, 3, TxnMarker{true, 7}, 1000);
  RecordBatchView v(bytes);
  REQUIRE(v.validate_for_append());
  CHECK(v.attributes() == 0x30);  // transactional | control
  CHECK(v.producer_id() == 42);
  CHECK(v.producer_epoch() == 3);
  CHECK(v.base_sequence() == -1);
  CHECK(v.last_offset_delta() == 0);
  RecordIterator it(v);
  RecordView r;
  REQUIRE(it.next(r));
  CHECK(std::vector<uint8_t>(r.key->begin(), r.key->end()) == std::vector<uint8_t>{0, 0, 0, 1});
  CHECK(std::vector<uint8_t>(r.value->begin(), r.value->end()) == std::vector<uint8_t>{0, 0, 0, 0, 0, 7});
  auto m = parse_marker(v);
  REQUIRE(m);
  CHECK(m->commit);
  CHECK(m->coordinator_epoch == 7);
  auto abort = build_marker_batch(42, 3, TxnMarker{false, 0}, 1000);
  CHECK_FALSE(parse_marker(RecordBatchView(abort))->commit);
}

TEST_CASE("clients may not produce control batches", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  auto r = append_tmp(*log, build_marker_batch(1, 0, TxnMarker{true, 0}, wall_clock_ms()));
  CHECK(outcome(r) == LogErrc::kInvalidRecord);
  BatchBuilder b;
  b.transactional(true).add("k", "v", wall_clock_ms());
  CHECK(outcome(append_tmp(*log, b.build())) == LogErrc::kInvalidRecord);  // transactional without producer id
}

TEST_CASE("LSO: interleaved producers, commit and abort, empty transactions", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, plain_batch()).has_value());  // 0-1
  CHECK(lso(*log) == 2);
  REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());  // 2-3: P1 begins
  CHECK(lso(*log) == 2);
  REQUIRE(append_tmp(*log, txn_batch(2, 0, 0)).has_value());  // 4-5: P2 begins
  REQUIRE(append_tmp(*log, txn_batch(1, 0, 2)).has_value());  // 6-7
  REQUIRE(append_tmp(*log, plain_batch()).has_value());       // 8-9
  CHECK(lso(*log) == 2);
  CHECK(log->log_end_offset().value == 10);
  auto a = marker(*log, 1, 0, false);  // 10: P1 aborts; P2 still open
  REQUIRE(a.has_value());
  CHECK(a->base_offset.value == 10);
  CHECK(lso(*log) == 4);
  auto entries = log->aborted_txns_of_segment(0);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0] == AbortedTxn{1, 2, 10, 4});
  REQUIRE(marker(*log, 2, 0, true).has_value());  // 11: P2 commits
  CHECK(lso(*log) == 12);
  CHECK(log->aborted_txns_of_segment(0).size() == 1);  // commits are not indexed
  REQUIRE(marker(*log, 3, 0, false).has_value());      // 12: empty transaction of P3
  CHECK(lso(*log) == 13);
  CHECK(log->aborted_txns_of_segment(0).size() == 1);
  REQUIRE(append_tmp(*log, txn_batch(1, 0, 4)).has_value());  // 13-14: P1's next transaction
  CHECK(lso(*log) == 13);
  REQUIRE(marker(*log, 1, 0, false).has_value());  // 15: aborted with nothing else open: lso = 16
  CHECK(log->aborted_txns_of_segment(0).back() == AbortedTxn{1, 13, 15, 16});
  CHECK(lso(*log) == 16);
}

TEST_CASE("markers are checked: stale producer epoch, older coordinator epoch", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, txn_batch(1, 5, 0)).has_value());
  CHECK(outcome(marker(*log, 1, 4, true)) == LogErrc::kInvalidProducerEpoch);
  REQUIRE(marker(*log, 1, 5, true, 3).has_value());
  CHECK(outcome(marker(*log, 1, 5, true, 2)) == LogErrc::kTransactionCoordinatorFenced);
  CHECK(log->log_end_offset().value == 3);
  REQUIRE(marker(*log, 1, 6, false, 3).has_value());  // a bumped epoch (TV2) is fine
}

TEST_CASE("transaction version 2: a marker must bump the epoch, except a retry of a completed one", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, txn_batch(1, 5, 0)).has_value());
  CHECK(outcome(marker(*log, 1, 5, true, 0, 2)) == LogErrc::kInvalidProducerEpoch);  // open, same epoch
  REQUIRE(marker(*log, 1, 6, true, 0, 2).has_value());
  CHECK(log->last_stable_offset().value == 3);
  REQUIRE(marker(*log, 1, 6, true, 0, 2).has_value());  // retried: the transaction is already complete
  CHECK(outcome(marker(*log, 1, 5, true, 0, 2)) == LogErrc::kInvalidProducerEpoch);
}

TEST_CASE("a plain batch from a producer with an open transaction is INVALID_TXN_STATE", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());  // seq 0-1
  BatchBuilder b;
  b.producer(1, 0, 2).add("k", "v", wall_clock_ms());
  auto r = append_tmp(*log, b.build());
  CHECK(outcome(r) == LogErrc::kInvalidTxnState);
  REQUIRE(marker(*log, 1, 0, true).has_value());
  BatchBuilder after;
  after.producer(1, 0, 2).add("k", "v", wall_clock_ms());
  CHECK(append_tmp(*log, after.build()).has_value());  // fine once the transaction ended
}

TEST_CASE(".txnindex holds Kafka's 34-byte AbortedTxn entries", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, txn_batch(0x0102030405060708, 0, 0)).has_value());  // 0-1
  REQUIRE(marker(*log, 0x0102030405060708, 0, false).has_value());             // 2
  std::string bytes;
  REQUIRE(read_small_file(d / "00000000000000000000.txnindex", bytes));
  const std::vector<uint8_t> expect = {0, 0,                     // version
                                       1, 2, 3, 4, 5, 6, 7, 8,   // producer id
                                       0, 0, 0, 0, 0, 0, 0, 0,   // first offset
                                       0, 0, 0, 0, 0, 0, 0, 2,   // last offset
                                       0, 0, 0, 0, 0, 0, 0, 3};  // last stable offset
  CHECK(std::vector<uint8_t>(bytes.begin(), bytes.end()) == expect);
  AbortedTxn t;
  REQUIRE(decode_aborted_txn(expect.data(), t));
  CHECK(t == AbortedTxn{0x0102030405060708, 0, 2, 3});
}

TEST_CASE("aborted transactions are collected across segments as Kafka does", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());  // 0-1 P1
  REQUIRE(append_tmp(*log, txn_batch(2, 0, 0)).has_value());  // 2-3 P2
  REQUIRE(marker(*log, 1, 0, false).has_value());             // 4: {1, 0, 4, lso 2} in segment 0
  REQUIRE(outcome(log->roll(wall_clock_ms())) == LogErrc::kNone);
  REQUIRE(append_tmp(*log, plain_batch()).has_value());       // 5-6
  REQUIRE(marker(*log, 2, 0, false).has_value());             // 7: {2, 2, 7, lso 8} in segment 5
  REQUIRE(append_tmp(*log, txn_batch(3, 0, 0)).has_value());  // 8-9 P3
  REQUIRE(marker(*log, 3, 0, false).has_value());             // 10: {3, 8, 10, lso 11}
  CHECK(log->aborted_txns_of_segment(5).size() == 2);
  const AbortedTxn t1{1, 0, 4, 2}, t2{2, 2, 7, 8}, t3{3, 8, 10, 11};
  using V = std::vector<AbortedTxn>;
  CHECK(log->collect_aborted_txns(Offset(0), Offset(11)) == V{t1, t2, t3});
  CHECK(log->collect_aborted_txns(Offset(0), Offset(2)) == V{t1});      // t1's lso 2 >= 2: complete
  CHECK(log->collect_aborted_txns(Offset(3), Offset(6)) == V{t1, t2});  // t2 starts before 6
  CHECK(log->collect_aborted_txns(Offset(5), Offset(8)) == V{t2});      // t1 ended before 5
  CHECK(log->collect_aborted_txns(Offset(9), Offset(11)) == V{t3});
  CHECK(log->collect_aborted_txns(Offset(11), Offset(11)).empty());
}

TEST_CASE("read_committed reads only below the LSO", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, plain_batch()).has_value());       // 0-1
  REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());  // 2-3 P1 open
  REQUIRE(append_tmp(*log, plain_batch()).has_value());       // 4-5
  auto r = log->read(Offset(0), 1 << 20, log->last_stable_offset());
  REQUIRE(outcome(r) == LogErrc::kNone);
  CHECK(r->last_stable_offset.value == 2);
  CHECK(r->log_end_offset.value == 6);
  auto bytes = r->slice.read_all();
  BatchIterator it(bytes);
  RecordBatchView v;
  REQUIRE(it.next(v));
  CHECK(v.base_offset() == 0);
  CHECK_FALSE(it.next(v));
  CHECK(log->read(Offset(2), 1 << 20, Offset(2))->slice.empty());
  CHECK(log->read(Offset(4), 1 << 20, Offset(2))->slice.empty());  // past the LSO: empty, no error
  CHECK(outcome(log->read(Offset(4), 1 << 20, Offset(2))) == LogErrc::kNone);
  CHECK(log->read(Offset(0), 1 << 20)->slice.read_all().size() > bytes.size());  // read_uncommitted: all
  REQUIRE(marker(*log, 1, 0, true).has_value());
  auto all = log->read(Offset(0), 1 << 20, log->last_stable_offset());
  CHECK(all->last_stable_offset.value == 7);
  CHECK(read_all_batches(*log).size() == 4);
  CHECK(all->slice.read_all().size() == log->read(Offset(0), 1 << 20)->slice.read_all().size());
}

TEST_CASE("retention deleting an ongoing transaction's data holds the LSO at the log start", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with([](LogConfig& c) { c.retention_ms = 10000; }));
  REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());  // 0-1 P1 open
  REQUIRE(append_tmp(*log, plain_batch()).has_value());       // 2-3
  CHECK(lso(*log) == 0);
  REQUIRE(log->delete_old_segments(wall_clock_ms() + 60000) > 0);  // every record is past retention
  CHECK(log->log_start_offset().value == 4);
  CHECK(lso(*log) == 4);                           // never below the log start, never past the end
  REQUIRE(marker(*log, 1, 0, false).has_value());  // 4: the abort still ends it, and is indexed
  CHECK(lso(*log) == 5);
  CHECK(log->collect_aborted_txns(Offset(4), Offset(5)).size() == 1);
}

TEST_CASE("DeleteRecords past an ongoing transaction holds the LSO at the log start", "[log][txn]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  REQUIRE(append_tmp(*log, txn_batch(1, 0, 0)).has_value());  // 0-1 P1 open
  REQUIRE(append_tmp(*log, plain_batch()).has_value());       // 2-3
  REQUIRE(outcome(log->maybe_increment_log_start_offset(Offset(3))) == LogErrc::kNone);
  CHECK(lso(*log) == 3);  // Kafka: firstUnstableOffset = max(first, logStart)
  CHECK(log->read(Offset(3), 1 << 20, log->last_stable_offset())->slice.empty());
  REQUIRE(marker(*log, 1, 0, false).has_value());  // 4: the abort still ends it and is indexed
  CHECK(lso(*log) == 5);
  CHECK(log->aborted_txns_of_segment(0) == std::vector<AbortedTxn>{{1, 0, 4, 5}});
}

TEST_CASE("a verification made stale by a marker refuses the batch that would open a transaction",
          "[log][txn][verify]") {
  TempDir d;
  auto log = open_log(d.path(), config_with());
  auto now = wall_clock_ms();
  SECTION("verified, then the transaction ends before the append: refused, nothing written") {
    auto first = txn_batch(1, 0, 0);
    const VerificationGuard g = log->begin_txn_verification(1);
    CHECK(g != kNoVerification);
    CHECK(log->begin_txn_verification(1) == g);      // concurrent requests share it
    REQUIRE(marker(*log, 1, 0, false).has_value());  // 0: a timeout abort wins the race
    auto r = log->append_verified(std::span<uint8_t>(first), now, g);
    CHECK(outcome(r) == LogErrc::kInvalidTxnState);
    CHECK(log->log_end_offset().value == 1);
    CHECK(lso(*log) == 1);  // no transaction left hanging
  }
  SECTION("verified and appended: the guard opens it, later batches need none") {
    auto first = txn_batch(1, 0, 0);
    const VerificationGuard g = log->begin_txn_verification(1);
    REQUIRE(log->append_verified(std::span<uint8_t>(first), now, g).has_value());
    auto second = txn_batch(1, 0, 2);
    REQUIRE(log->append_verified(std::span<uint8_t>(second), now, kNoVerification).has_value());
    REQUIRE(marker(*log, 1, 0, true).has_value());
    auto late = txn_batch(1, 0, 4);  // found open by the request, ended before its append
    CHECK(outcome(log->append_verified(std::span<uint8_t>(late), now, kNoVerification)) == LogErrc::kInvalidTxnState);
    auto stale = txn_batch(1, 0, 4);
    CHECK(outcome(log->append_verified(std::span<uint8_t>(stale), now, g)) == LogErrc::kInvalidTxnState);
    const VerificationGuard next = log->begin_txn_verification(1);
    CHECK(next != g);
    auto again = txn_batch(1, 0, 4);
    CHECK(log->append_verified(std::span<uint8_t>(again), now, next).has_value());
  }
  SECTION("appends without verification (the broker's own writers) are not checked") {
    CHECK(append_tmp(*log, txn_batch(1, 0, 0)).has_value());
  }
}
