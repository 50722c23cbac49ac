// TxnCoordinator: the timed-out abort scan and transactional id expiration
// with a fake clock, replay of __transaction_state, and the
// DescribeTransactions / ListTransactions views.
#include "tests/coordinator/txn/txn_harness.h"

using namespace skiff::test;

TEST_CASE("a transaction past its timeout is aborted by the coordinator", "[txn][timeout]") {
  TxnHarness h;
  const TxnResult p = h.init("app", 1000);
  REQUIRE(h.add("app", p, kTwo) == ErrorCode::kNone);
  const TxnResult idle = h.init("idle", 1000);  // Empty: nothing to abort
  h.clock.now += 1000;
  CHECK(h.coord.abort_timed_out_transactions() == 0);  // start + timeout is not yet past
  h.clock.now += 1;
  CHECK(h.coord.abort_timed_out_transactions() == 1);
  REQUIRE(h.markers.calls.size() == 1);
  CHECK_FALSE(h.markers.calls[0].commit);
  CHECK(h.markers.calls[0].partitions == kTwo);
  CHECK(h.markers.calls[0].epoch > p.epoch);
  CHECK(h.state("app") == TxnState::kCompleteAbort);
  CHECK(h.state("idle") == TxnState::kEmpty);
  CHECK(idle.error == ErrorCode::kNone);
  // The producer that let it time out is fenced.
  CHECK(h.end("app", p.producer_id, p.epoch, true)->error == ErrorCode::kProducerFenced);
  CHECK(h.add("app", p, kTwo) == ErrorCode::kProducerFenced);
  CHECK(h.coord.abort_timed_out_transactions() == 0);
}

TEST_CASE("the abort scan skips a transaction with a transition in flight", "[txn][timeout]") {
  TxnHarness h;
  const TxnResult p = h.init("app", 1000);
  REQUIRE(h.add("app", p, {{"a", 0}}) == ErrorCode::kNone);
  h.log.hold = true;
  CHECK_FALSE(h.add("app", p, {{"b", 0}}).has_value());
  h.clock.now += 5000;
  CHECK(h.coord.abort_timed_out_transactions() == 0);
  h.log.release_one();
  h.log.hold = false;
  CHECK(h.coord.abort_timed_out_transactions() == 1);
  CHECK(h.markers.calls.at(0).partitions == std::set<TopicPartition>{{"a", 0}, {"b", 0}});
}

TEST_CASE("transactional ids expire after transactional.id.expiration.ms without use", "[txn][expire]") {
  TxnConfig cfg;
  cfg.transactional_id_expiration_ms = 10000;
  TxnHarness h(cfg);
  const TxnResult done_p = h.init("done");
  const TxnResult open_p = h.init("open");
  REQUIRE(h.add("open", open_p, kTwo) == ErrorCode::kNone);
  h.clock.now += 9999;
  CHECK(h.coord.expire_transactional_ids() == 0);
  h.clock.now += 1;
  CHECK(h.coord.expire_transactional_ids() == 1);  // only "done": an open transaction never expires
  CHECK(h.coord.find("done") == nullptr);
  CHECK(h.coord.find("open") != nullptr);
  CHECK_FALSE(h.log.durable.back().value.has_value());  // a tombstone
  CHECK(h.coord.describe("done").error == ErrorCode::kTransactionalIdNotFound);
  CHECK(h.end("done", done_p.producer_id, done_p.epoch, true)->error == ErrorCode::kInvalidProducerIdMapping);
  const TxnResult again = h.init("done");
  CHECK(again.producer_id != done_p.producer_id);
  CHECK(again.epoch == 0);
}

TEST_CASE("a failed expiration write keeps the transactional id", "[txn][expire]") {
  TxnConfig cfg;
  cfg.transactional_id_expiration_ms = 10000;
  TxnHarness h(cfg);
  const TxnResult p = h.init("app");
  h.clock.now += 10000;
  h.log.fail_next = ErrorCode::kNotLeaderOrFollower;
  CHECK(h.coord.expire_transactional_ids() == 1);
  REQUIRE(h.coord.find("app") != nullptr);
  CHECK_FALSE(h.coord.find("app")->has_pending());
  CHECK(h.coord.describe("app").error == ErrorCode::kNone);
  CHECK(h.coord.expire_transactional_ids() == 1);
  CHECK(h.coord.find("app") == nullptr);
  CHECK(p.error == ErrorCode::kNone);
}

TEST_CASE("replaying __transaction_state rebuilds every transactional id", "[txn][replay]") {
  TxnHarness h;
  const TxnResult a = h.init("a");
  REQUIRE(h.add("a", a, kTwo) == ErrorCode::kNone);  // Ongoing
  const TxnResult b = h.init("b");
  REQUIRE(h.add("b", b, {{"t", 0}}) == ErrorCode::kNone);
  REQUIRE(h.end("b", b.producer_id, b.epoch, true, 2)->error == ErrorCode::kNone);  // CompleteCommit, TV2
  const TxnResult c = h.init("c");
  REQUIRE(h.add("c", c, {{"t", 1}}) == ErrorCode::kNone);
  h.markers.hold = true;
  REQUIRE(h.end("c", c.producer_id, c.epoch, false)->error == ErrorCode::kNone);  // PrepareAbort: crash here
  h.init("gone");
  h.clock.now += h.config.transactional_id_expiration_ms + 1;
  h.coord.expire_transactional_ids();  // tombstones for "gone" (and the idle "b")

  TxnHarness restarted;
  restarted.clock.now = h.clock.now;
  restarted.markers.hold = true;
  restarted.coord.load(h.log.records());
  CHECK(restarted.coord.find("gone") == nullptr);
  CHECK(restarted.coord.find("b") == nullptr);
  REQUIRE(restarted.coord.find("a") != nullptr);
  CHECK(restarted.cur("a").partitions == kTwo);
  CHECK(restarted.cur("a").producer_epoch == a.epoch);
  CHECK(restarted.state("a") == TxnState::kOngoing);
  TxnTransit before = h.cur("a");
  before.last_producer_epoch = kNoProducerEpoch;  // not stored, as in Kafka
  CHECK(restarted.cur("a") == before);
  // The decided abort of "c" resumes: its markers are written again, then CompleteAbort.
  CHECK(restarted.state("c") == TxnState::kPrepareAbort);
  REQUIRE(restarted.markers.calls.size() == 1);
  CHECK_FALSE(restarted.markers.calls[0].commit);
  CHECK(restarted.markers.calls[0].partitions == std::set<TopicPartition>{{"t", 1}});
  restarted.markers.release_one();
  CHECK(restarted.state("c") == TxnState::kCompleteAbort);
  // The ongoing one is aborted once its timeout passes.
  restarted.markers.hold = false;
  CHECK(restarted.coord.abort_timed_out_transactions() == 1);
  CHECK(restarted.state("a") == TxnState::kCompleteAbort);
}

TEST_CASE("a CompleteCommit lost at a crash is redone from the durable PrepareCommit", "[txn][replay]") {
  TxnHarness h;
  h.log.lose_written = true;  // Complete* does not wait for its fsync: here the crash takes it
  const TxnResult p = h.init("app");
  REQUIRE(h.add("app", p, kTwo) == ErrorCode::kNone);
  REQUIRE(h.end("app", p.producer_id, p.epoch, true)->error == ErrorCode::kNone);
  CHECK(h.state("app") == TxnState::kCompleteCommit);  // in memory at once
  REQUIRE(h.log.lost.size() == 1);
  REQUIRE(h.markers.calls.size() == 1);

  TxnHarness restarted;
  restarted.clock.now = h.clock.now;
  restarted.coord.load(h.log.records());
  // PrepareCommit was durable: the markers (durable before Complete* is
  // written, TxnMarkerWriter) are written again, then CompleteCommit.
  REQUIRE(restarted.markers.calls.size() == 1);
  CHECK(restarted.markers.calls[0].commit);
  CHECK(restarted.markers.calls[0].partitions == kTwo);
  CHECK(restarted.state("app") == TxnState::kCompleteCommit);
  CHECK(restarted.init("app").epoch == p.epoch + 1);
}

TEST_CASE("DescribeTransactions", "[txn][views]") {
  TxnHarness h;
  CHECK(h.coord.describe("").error == ErrorCode::kInvalidRequest);
  CHECK(h.coord.describe("nobody").error == ErrorCode::kTransactionalIdNotFound);
  const TxnResult p = h.init("app", 30000);
  REQUIRE(h.add("app", p, kTwo) == ErrorCode::kNone);
  const TxnDescription d = h.coord.describe("app");
  CHECK(d.error == ErrorCode::kNone);
  CHECK(d.state == "Ongoing");
  CHECK(d.producer_id == p.producer_id);
  CHECK(d.epoch == p.epoch);
  CHECK(d.timeout_ms == 30000);
  CHECK(d.start_ms == h.clock.now);
  CHECK(d.partitions == kTwo);
}

TEST_CASE("ListTransactions filters by state, producer id and duration", "[txn][views]") {
  TxnHarness h;
  const TxnResult a = h.init("a");
  REQUIRE(h.add("a", a, kTwo) == ErrorCode::kNone);  // Ongoing since t0
  h.clock.now += 5000;
  const TxnResult b = h.init("b");  // Empty
  auto ids = [](const TxnListing& l) {
    std::set<std::string> out;
    for (const auto& e : l.states) out.insert(e.transactional_id);
    return out;
  };
  CHECK(ids(h.coord.list({}, {}, -1)) == std::set<std::string>{"a", "b"});
  CHECK(ids(h.coord.list({}, {"Ongoing"}, -1)) == std::set<std::string>{"a"});
  const TxnListing unknown = h.coord.list({}, {"Empty", "Bogus"}, -1);
  CHECK(ids(unknown) == std::set<std::string>{"b"});
  CHECK(unknown.unknown_state_filters == std::vector<std::string>{"Bogus"});
  CHECK(ids(h.coord.list({}, {"Bogus"}, -1)).empty());
  CHECK(ids(h.coord.list({b.producer_id}, {}, -1)) == std::set<std::string>{"b"});
  CHECK(ids(h.coord.list({}, {"Ongoing"}, 4999)) == std::set<std::string>{"a"});  // running longer than that
  CHECK(ids(h.coord.list({}, {"Ongoing"}, 5000)).empty());
  CHECK(h.coord.list({}, {}, -1).states.size() == 2);
}
