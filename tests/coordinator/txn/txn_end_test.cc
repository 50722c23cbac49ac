// TxnCoordinator: EndTxn v0-4 (transaction version 0/1) and the TV2 form of
// v5 (epoch bump on every end, overflow to a new producer id), retries, and
// the markers / Complete* step.
#include "tests/coordinator/txn/txn_harness.h"

using namespace skiff::test;

namespace {

TxnResult ongoing(TxnHarness& h, const std::string& id = "app") {
  const TxnResult p = h.init(id);
  REQUIRE(h.add(id, p, kTwo) == ErrorCode::kNone);
  return p;
}

}  // namespace

TEST_CASE("EndTxn (v0-4) commits: PrepareCommit answered, markers, then CompleteCommit", "[txn][end]") {
  TxnHarness h;
  const TxnResult p = ongoing(h);
  h.markers.hold = true;
  const auto r = h.end("app", p.producer_id, p.epoch, true);
  REQUIRE(r);
  CHECK(r->error == ErrorCode::kNone);
  CHECK(r->producer_id == p.producer_id);
  CHECK(r->epoch == p.epoch);  // version 1 never bumps on end
  CHECK(h.state("app") == TxnState::kPrepareCommit);
  REQUIRE(h.markers.calls.size() == 1);
  CHECK(h.markers.calls[0].commit);
  CHECK(h.markers.calls[0].epoch == p.epoch);
  CHECK(h.markers.calls[0].partitions == kTwo);

  SECTION("retries while the markers are written") {
    CHECK(h.end("app", p.producer_id, p.epoch, true)->error == ErrorCode::kConcurrentTransactions);
    CHECK(h.end("app", p.producer_id, p.epoch, false)->error == ErrorCode::kInvalidTxnState);
  }
  SECTION("completion, and retries after it") {
    h.markers.release_one();
    CHECK(h.state("app") == TxnState::kCompleteCommit);
    CHECK(h.cur("app").partitions.empty());
    const auto recs = h.log.records();
    CHECK(recs[recs.size() - 2].value->state == TxnState::kPrepareCommit);
    CHECK(recs.back().value->state == TxnState::kCompleteCommit);
    const auto retry = h.end("app", p.producer_id, p.epoch, true);
    CHECK(retry->error == ErrorCode::kNone);
    CHECK(retry->epoch == p.epoch);
    CHECK(h.end("app", p.producer_id, p.epoch, false)->error == ErrorCode::kInvalidTxnState);
    CHECK(h.markers.calls.size() == 1);                           // a retry writes nothing
    REQUIRE(h.add("app", p, {{"next", 0}}) == ErrorCode::kNone);  // the next transaction
    CHECK(h.cur("app").txn_start_ms == h.clock.now);
  }
}

TEST_CASE("EndTxn errors (v0-4)", "[txn][end]") {
  TxnHarness h;
  CHECK(h.end("", 1, 0, true)->error == ErrorCode::kInvalidRequest);
  CHECK(h.end("nobody", 1, 0, true)->error == ErrorCode::kInvalidProducerIdMapping);
  const TxnResult p = h.init("app");
  CHECK(h.end("app", p.producer_id, p.epoch, true)->error == ErrorCode::kInvalidTxnState);  // Empty
  CHECK(h.end("app", p.producer_id, p.epoch, false)->error == ErrorCode::kInvalidTxnState);
  REQUIRE(h.add("app", p, kTwo) == ErrorCode::kNone);
  CHECK(h.end("app", p.producer_id + 1, p.epoch, true)->error == ErrorCode::kInvalidProducerIdMapping);
  CHECK(h.end("app", p.producer_id, p.epoch + 1, true)->error == ErrorCode::kProducerFenced);
  CHECK(h.end("app", p.producer_id, p.epoch - 1, true)->error == ErrorCode::kProducerFenced);
  h.log.hold = true;
  CHECK_FALSE(h.end("app", p.producer_id, p.epoch, false).has_value());  // waiting for the write
  CHECK(h.end("app", p.producer_id, p.epoch, false)->error == ErrorCode::kConcurrentTransactions);
  h.log.release_one();  // PrepareAbort durable; markers and CompleteAbort follow
  h.log.release_one();
  CHECK(h.state("app") == TxnState::kCompleteAbort);
}

TEST_CASE("PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH for old request versions", "[txn][end]") {
  CHECK(fenced_error_for_version(ErrorCode::kProducerFenced, 1, 2) == ErrorCode::kInvalidProducerEpoch);
  CHECK(fenced_error_for_version(ErrorCode::kProducerFenced, 2, 2) == ErrorCode::kProducerFenced);
  CHECK(fenced_error_for_version(ErrorCode::kProducerFenced, 3, 4) == ErrorCode::kInvalidProducerEpoch);
  CHECK(fenced_error_for_version(ErrorCode::kConcurrentTransactions, 0, 2) == ErrorCode::kConcurrentTransactions);
}

TEST_CASE("EndTxn v5 (transaction version 2) bumps the epoch on every end", "[txn][end][tv2]") {
  TxnHarness h;
  const TxnResult p = ongoing(h);
  h.markers.hold = true;
  const auto r = h.end("app", p.producer_id, p.epoch, true, 2);
  REQUIRE(r);
  CHECK(r->error == ErrorCode::kNone);
  CHECK(r->producer_id == p.producer_id);
  CHECK(r->epoch == p.epoch + 1);
  CHECK(h.markers.calls[0].epoch == p.epoch + 1);  // the markers fence the old epoch
  CHECK(h.log.records().back().value->client_transaction_version == 2);
  // A retry with the old epoch while the markers are written.
  CHECK(h.end("app", p.producer_id, p.epoch, true, 2)->error == ErrorCode::kConcurrentTransactions);
  h.markers.release_one();
  CHECK(h.state("app") == TxnState::kCompleteCommit);
  // A retry after completion gets the bumped epoch.
  const auto retry = h.end("app", p.producer_id, p.epoch, true, 2);
  CHECK(retry->error == ErrorCode::kNone);
  CHECK(retry->epoch == p.epoch + 1);
  // The new epoch cannot commit a transaction it has not started; the old one is fenced.
  CHECK(h.end("app", p.producer_id, p.epoch + 1, true, 2)->error == ErrorCode::kInvalidTxnState);
  CHECK(h.end("app", p.producer_id, p.epoch - 1, true, 2)->error == ErrorCode::kProducerFenced);
  CHECK(h.add("app", p, {{"x", 0}}) == ErrorCode::kProducerFenced);
  const TxnResult bumped{.producer_id = p.producer_id, .epoch = static_cast<int16_t>(p.epoch + 1)};
  REQUIRE(h.add("app", bumped, {{"x", 0}}, 2) == ErrorCode::kNone);
  h.markers.hold = false;
  CHECK(h.end("app", p.producer_id, bumped.epoch, false, 2)->epoch == p.epoch + 2);
  CHECK(h.state("app") == TxnState::kCompleteAbort);
}

TEST_CASE("EndTxn v5 answers CONCURRENT_TRANSACTIONS during a write before it checks the epoch", "[txn][end][tv2]") {
  // Kafka 4.4's endTransaction (TV2) checks a transition in flight before
  // the producer id and epoch; endTransactionWithTV1 checks them after. A
  // client whose epoch a concurrent end has moved past retries, then learns
  // it is fenced once the write is done.
  TxnHarness h;
  h.init("app");
  const TxnResult p = h.init("app");  // epoch 1: epoch 0 is an older one
  REQUIRE(p.epoch == 1);
  h.log.hold = true;
  auto added = std::make_shared<std::optional<ErrorCode>>();
  h.coord.add_partitions("app", p.producer_id, p.epoch, kTwo, 2, [added](ErrorCode e) { *added = e; });
  REQUIRE(h.log.held.size() == 1);  // the addition is being written
  CHECK(h.end("app", p.producer_id, 0, false, 2)->error == ErrorCode::kConcurrentTransactions);
  CHECK(h.end("app", p.producer_id + 1, p.epoch, false, 2)->error == ErrorCode::kConcurrentTransactions);
  CHECK(h.end("app", p.producer_id, 0, false, 0)->error == ErrorCode::kProducerFenced);
  h.log.release_one();
  REQUIRE(*added == ErrorCode::kNone);
  h.log.hold = false;
  CHECK(h.end("app", p.producer_id, 0, false, 2)->error == ErrorCode::kProducerFenced);
  CHECK(h.end("app", p.producer_id + 1, p.epoch, false, 2)->error == ErrorCode::kInvalidProducerIdMapping);
  CHECK(h.end("app", p.producer_id, p.epoch, false, 2)->error == ErrorCode::kNone);
}

TEST_CASE("EndTxn v5 at an exhausted epoch hands over to a new producer id", "[txn][end][tv2]") {
  TxnHarness h;
  TxnTransit t;
  t.producer_id = 500;
  t.producer_epoch = INT16_MAX - 1;
  t.txn_timeout_ms = 60000;
  t.state = TxnState::kOngoing;
  t.partitions = kTwo;
  t.txn_start_ms = h.clock.now;
  t.client_transaction_version = 2;
  h.coord.load({{"app", t}});
  const auto r = h.end("app", 500, INT16_MAX - 1, true, 2);
  REQUIRE(r);
  CHECK(r->error == ErrorCode::kNone);
  CHECK(r->producer_id == 1000);
  CHECK(r->epoch == 0);
  CHECK(h.markers.calls[0].producer_id == 500);
  CHECK(h.markers.calls[0].epoch == INT16_MAX);
  CHECK(h.cur("app").producer_id == 1000);
  CHECK(h.cur("app").producer_epoch == 0);
  CHECK(h.state("app") == TxnState::kCompleteCommit);
  const auto retry = h.end("app", 500, INT16_MAX - 1, true, 2);  // the client never saw the answer
  CHECK(retry->error == ErrorCode::kNone);
  CHECK(retry->producer_id == 1000);
  CHECK(retry->epoch == 0);
}

TEST_CASE("failed markers keep the transaction in Prepare*, and the timer retries them", "[txn][end]") {
  TxnHarness h;
  const TxnResult p = ongoing(h);
  h.markers.fail_next = ErrorCode::kNotLeaderOrFollower;
  REQUIRE(h.end("app", p.producer_id, p.epoch, true)->error == ErrorCode::kNone);
  CHECK(h.state("app") == TxnState::kPrepareCommit);
  SECTION("markers written on retry") {
    CHECK(h.coord.retry_pending_markers() == 1);
    CHECK(h.state("app") == TxnState::kCompleteCommit);
    CHECK(h.markers.calls.size() == 2);
  }
  SECTION("a failed CompleteCommit write is retried too") {
    h.log.fail_next = ErrorCode::kNotLeaderOrFollower;
    CHECK(h.coord.retry_pending_markers() == 1);
    CHECK(h.state("app") == TxnState::kPrepareCommit);
    CHECK(h.coord.abort_timed_out_transactions() == 0);  // the abort timer retries
    CHECK(h.state("app") == TxnState::kCompleteCommit);
  }
  SECTION("markers in flight are not sent twice") {
    h.markers.hold = true;
    CHECK(h.coord.retry_pending_markers() == 1);
    CHECK(h.coord.retry_pending_markers() == 0);
    h.markers.release_one();
    CHECK(h.state("app") == TxnState::kCompleteCommit);
  }
}

TEST_CASE("EndTxn v5 aborts with no partitions (Kafka 4.4's TV2 table)", "[txn][end][tv2]") {
  // Empty/CompleteAbort/CompleteCommit x Abort/Commit x current epoch/retry (epoch - 1),
  // as in the table above Kafka's TransactionCoordinator.endTransaction.
  TxnHarness h;
  const TxnResult p = h.init("app");
  const int16_t e0 = p.epoch;
  CHECK(h.end("app", p.producer_id, e0, true, 2)->error == ErrorCode::kInvalidTxnState);  // Empty, commit
  h.clock.now += 7;
  const auto aborted = h.end("app", p.producer_id, e0, false, 2);  // Empty, abort: an empty transaction
  REQUIRE(aborted);
  CHECK(aborted->error == ErrorCode::kNone);
  CHECK(aborted->epoch == e0 + 1);
  CHECK(h.markers.calls.back().partitions.empty());
  CHECK(h.state("app") == TxnState::kCompleteAbort);
  CHECK(h.cur("app").txn_start_ms == h.clock.now);
  // CompleteAbort: abort retry -> NONE (no bump); abort current -> bump; commit -> INVALID_TXN_STATE.
  CHECK(h.end("app", p.producer_id, e0, false, 2)->epoch == e0 + 1);
  CHECK(h.end("app", p.producer_id, e0, true, 2)->error == ErrorCode::kInvalidTxnState);
  CHECK(h.end("app", p.producer_id, e0 + 1, true, 2)->error == ErrorCode::kInvalidTxnState);
  CHECK(h.end("app", p.producer_id, e0 + 1, false, 2)->epoch == e0 + 2);
  // CompleteCommit: commit retry -> NONE; abort retry -> INVALID_TXN_STATE; abort current -> bump.
  const TxnResult cur{.producer_id = p.producer_id, .epoch = static_cast<int16_t>(e0 + 2)};
  REQUIRE(h.add("app", cur, kTwo, 2) == ErrorCode::kNone);
  REQUIRE(h.end("app", p.producer_id, cur.epoch, true, 2)->epoch == e0 + 3);
  CHECK(h.end("app", p.producer_id, cur.epoch, true, 2)->epoch == e0 + 3);
  CHECK(h.end("app", p.producer_id, cur.epoch, false, 2)->error == ErrorCode::kInvalidTxnState);
  CHECK(h.end("app", p.producer_id, e0 + 3, true, 2)->error == ErrorCode::kInvalidTxnState);
  CHECK(h.end("app", p.producer_id, e0 + 3, false, 2)->epoch == e0 + 4);
  // Empty after InitProducerId: a retry (epoch - 1) is fenced.
  const TxnResult again = h.init("app");
  CHECK(h.end("app", again.producer_id, again.epoch - 1, false, 2)->error == ErrorCode::kProducerFenced);
}

TEST_CASE("an addition while the last transaction ends waits for it instead of CONCURRENT_TRANSACTIONS",
          "[txn][end][park]") {
  TxnConfig c;
  c.busy_wait_ms = 100;
  TxnHarness h(c);
  const TxnResult p = h.init("app");
  REQUIRE(h.add("app", p, kTwo) == ErrorCode::kNone);
  h.markers.hold = true;
  const auto ended = h.end("app", p.producer_id, p.epoch, true, 2);
  REQUIRE(ended->error == ErrorCode::kNone);
  const TxnResult next{.producer_id = ended->producer_id, .epoch = ended->epoch};
  SECTION("the markers complete: the addition goes ahead, in a new transaction") {
    const auto parked = h.add("app", next, {{"orders", 0}}, 2);
    CHECK_FALSE(parked.has_value());
    CHECK(h.coord.next_parked_deadline() == h.clock.now + 100);
    auto out = std::make_shared<std::optional<ErrorCode>>();
    h.coord.add_partitions("app", p.producer_id, p.epoch, {{"orders", 1}}, 2, [out](ErrorCode e) { *out = e; });
    CHECK(*out == ErrorCode::kProducerFenced);  // the old epoch: at once, as Kafka
    out->reset();
    h.coord.add_partitions("app", next.producer_id, next.epoch, {{"orders", 0}}, 2, [out](ErrorCode e) { *out = e; });
    CHECK_FALSE(out->has_value());
    h.markers.release_one();
    CHECK(h.state("app") == TxnState::kOngoing);
    CHECK(h.cur("app").partitions == std::set<TopicPartition>{{"orders", 0}});
    CHECK(*out == ErrorCode::kNone);
    CHECK_FALSE(h.coord.next_parked_deadline().has_value());
    CHECK(h.coord.expire_parked() == 0);
  }
  SECTION("the markers take too long: CONCURRENT_TRANSACTIONS at the deadline, not before") {
    auto out = std::make_shared<std::optional<ErrorCode>>();
    h.coord.add_partitions("app", next.producer_id, next.epoch, {{"orders", 0}}, 2, [out](ErrorCode e) { *out = e; });
    h.clock.now += 99;
    CHECK(h.coord.expire_parked() == 0);
    CHECK_FALSE(out->has_value());
    h.clock.now += 1;
    CHECK(h.coord.expire_parked() == 1);
    CHECK(*out == ErrorCode::kConcurrentTransactions);
    h.markers.release_one();  // a late completion resumes nobody twice
    CHECK(h.state("app") == TxnState::kCompleteCommit);
  }
}
