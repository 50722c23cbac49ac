// TxnCoordinator: InitProducerId, AddPartitionsToTxn (single and batched,
// verify-only), AddOffsetsToTxn, with Kafka's error codes per state.
#include "tests/coordinator/txn/txn_harness.h"

using namespace skiff::test;

namespace {

// Puts `id` in `state` as if replayed from __transaction_state.
void seed(TxnHarness& h, const std::string& id, TxnState state, int16_t epoch, int16_t tv = 0,
          std::set<TopicPartition> parts = kTwo) {
  TxnTransit t;
  t.producer_id = 500;
  t.producer_epoch = epoch;
  t.txn_timeout_ms = 60000;
  t.state = state;
  t.partitions = state == TxnState::kEmpty ? std::set<TopicPartition>{} : parts;
  t.txn_start_ms = state == TxnState::kEmpty ? -1 : h.clock.now;
  t.txn_last_update_ms = h.clock.now;
  t.client_transaction_version = tv;
  h.coord.load({{id, t}});
}

}  // namespace

TEST_CASE("InitProducerId for a new transactional id", "[txn][init]") {
  TxnHarness h;
  const TxnResult r = h.init("app");
  CHECK(r.error == ErrorCode::kNone);
  CHECK(r.producer_id == 1000);
  CHECK(r.epoch == 0);
  CHECK(h.state("app") == TxnState::kEmpty);
  const auto recs = h.log.records();
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].transactional_id == "app");
  CHECK(recs[0].value->producer_epoch == 0);
  CHECK(recs[0].value->txn_timeout_ms == 60000);
  // Written at the TransactionLogValue version of the finalized transaction.version (2 -> v1).
  CHECK(h.log.durable[0].value->at(1) == 1);

  SECTION("again: same id, epoch bumped") {
    const TxnResult again = h.init("app");
    CHECK(again.producer_id == 1000);
    CHECK(again.epoch == 1);
  }
}

TEST_CASE("InitProducerId rejects bad ids and timeouts without creating state", "[txn][init]") {
  TxnHarness h;
  CHECK(h.init("").error == ErrorCode::kInvalidRequest);
  CHECK(h.init("a", 0).error == ErrorCode::kInvalidTransactionTimeout);
  CHECK(h.init("a", -5).error == ErrorCode::kInvalidTransactionTimeout);
  CHECK(h.init("a", h.config.max_timeout_ms + 1).error == ErrorCode::kInvalidTransactionTimeout);
  CHECK(h.init("a", h.config.max_timeout_ms).error == ErrorCode::kNone);
  CHECK(h.log.durable.size() == 1);
}

TEST_CASE("InitProducerId answers CONCURRENT_TRANSACTIONS while a transition or markers are in flight", "[txn][init]") {
  TxnHarness h;
  const TxnResult p = h.init("app");
  SECTION("a state write is pending") {
    h.log.hold = true;
    CHECK_FALSE(h.add("app", p, kTwo).has_value());
    CHECK(h.init("app").error == ErrorCode::kConcurrentTransactions);
    // AddPartitions checks the transition in flight before the producer (Kafka 4.4's order).
    CHECK(h.add("app", {.producer_id = 1, .epoch = 9}, {{"x", 0}}) == ErrorCode::kConcurrentTransactions);
    h.log.release_one();
    CHECK(h.state("app") == TxnState::kOngoing);
  }
  SECTION("PrepareCommit: markers being written") {
    REQUIRE(h.add("app", p, kTwo) == ErrorCode::kNone);
    h.markers.hold = true;
    REQUIRE(h.end("app", p.producer_id, p.epoch, true)->error == ErrorCode::kNone);
    CHECK(h.state("app") == TxnState::kPrepareCommit);
    CHECK(h.init("app").error == ErrorCode::kConcurrentTransactions);
    h.markers.release_one();
    CHECK(h.state("app") == TxnState::kCompleteCommit);
    CHECK(h.init("app").epoch == 1);
  }
}

TEST_CASE("InitProducerId fences a zombie: its ongoing transaction is aborted first", "[txn][init][fence]") {
  TxnConfig cfg;
  const int16_t tv = GENERATE(int16_t{0}, int16_t{2});
  cfg.transaction_version = [tv] { return tv; };
  TxnHarness h(cfg);
  const TxnResult zombie = h.init("app");
  CHECK(h.log.durable.back().value->at(1) == (tv == 2 ? 1 : 0));
  REQUIRE(h.add("app", zombie, kTwo) == ErrorCode::kNone);
  h.markers.hold = true;
  CHECK(h.init("app").error == ErrorCode::kConcurrentTransactions);
  REQUIRE(h.markers.calls.size() == 1);
  CHECK_FALSE(h.markers.calls[0].commit);
  CHECK(h.markers.calls[0].partitions == kTwo);
  // The fence bumps the epoch; with transaction version 2 the abort bumps it again.
  const int16_t abort_epoch = tv == 2 ? 2 : 1;
  CHECK(h.markers.calls[0].epoch == abort_epoch);
  CHECK(h.state("app") == TxnState::kPrepareAbort);
  CHECK(h.init("app").error == ErrorCode::kConcurrentTransactions);  // still writing markers
  // The zombie can neither commit nor add.
  CHECK(h.end("app", zombie.producer_id, zombie.epoch, true)->error == ErrorCode::kProducerFenced);
  CHECK(h.add("app", zombie, {{"x", 0}}) == ErrorCode::kProducerFenced);
  h.markers.release_one();
  CHECK(h.state("app") == TxnState::kCompleteAbort);
  const TxnResult fresh = h.init("app");
  CHECK(fresh.error == ErrorCode::kNone);
  CHECK(fresh.epoch == abort_epoch + 1);
}

TEST_CASE("InitProducerId with the producer's id and epoch (KIP-360)", "[txn][init]") {
  TxnHarness h;
  const TxnResult p = h.init("app");   // 1000/0
  const TxnResult p1 = h.init("app");  // 1000/1, last epoch -1
  SECTION("current epoch: bumped, and a retry of that call gets the same answer") {
    const TxnResult r = h.init("app", 60000, ProducerIdAndEpoch{p1.producer_id, p1.epoch});
    CHECK(r.error == ErrorCode::kNone);
    CHECK(r.epoch == 2);
    const TxnResult retry = h.init("app", 60000, ProducerIdAndEpoch{p1.producer_id, p1.epoch});
    CHECK(retry.error == ErrorCode::kNone);
    CHECK(retry.epoch == 2);
  }
  SECTION("an older epoch is fenced") {
    CHECK(h.init("app", 60000, ProducerIdAndEpoch{p.producer_id, p.epoch}).error == ErrorCode::kProducerFenced);
  }
  SECTION("another producer id is fenced") {
    CHECK(h.init("app", 60000, ProducerIdAndEpoch{77, 1}).error == ErrorCode::kProducerFenced);
  }
  SECTION("an unknown id with an expected producer gets a fresh producer id") {
    const TxnResult r = h.init("other", 60000, ProducerIdAndEpoch{77, 3});
    CHECK(r.error == ErrorCode::kNone);
    CHECK(r.producer_id == 1001);
    CHECK(r.epoch == 0);
  }
}

TEST_CASE("an exhausted epoch rotates to a new producer id", "[txn][init]") {
  TxnHarness h;
  seed(h, "app", TxnState::kCompleteCommit, INT16_MAX - 1);
  SECTION("fresh InitProducerId") {
    const TxnResult r = h.init("app");
    CHECK(r.producer_id == 1000);
    CHECK(r.epoch == 0);
    CHECK(h.cur("app").previous_producer_id == 500);
  }
  SECTION("KIP-360 with the exhausted epoch; the retry (old id) gets the same new id") {
    const TxnResult r = h.init("app", 60000, ProducerIdAndEpoch{500, INT16_MAX - 1});
    CHECK(r.producer_id == 1000);
    CHECK(r.epoch == 0);
    const TxnResult retry = h.init("app", 60000, ProducerIdAndEpoch{500, INT16_MAX - 1});
    CHECK(retry.error == ErrorCode::kNone);
    CHECK(retry.producer_id == 1000);
    CHECK(retry.epoch == 0);
  }
  SECTION("the allocator's error reaches the client") {
    h.ids.fail = ErrorCode::kCoordinatorLoadInProgress;
    CHECK(h.init("app").error == ErrorCode::kCoordinatorLoadInProgress);
    CHECK_FALSE(h.coord.find("app")->has_pending());
  }
}

TEST_CASE("a failed state write leaves the state as it was, with Kafka's mapped error", "[txn][init]") {
  TxnHarness h;
  const TxnResult p = h.init("app");
  h.log.fail_next = ErrorCode::kNotLeaderOrFollower;
  CHECK(h.init("app").error == ErrorCode::kNotCoordinator);
  h.log.fail_next = ErrorCode::kRequestTimedOut;
  CHECK(h.add("app", p, kTwo) == ErrorCode::kCoordinatorNotAvailable);
  h.log.fail_next = ErrorCode::kMessageTooLarge;
  CHECK(h.add("app", p, kTwo) == ErrorCode::kUnknownServerError);
  CHECK(h.state("app") == TxnState::kEmpty);
  CHECK(h.cur("app").producer_epoch == 0);
  CHECK(h.init("app").epoch == 1);
}

TEST_CASE("AddPartitionsToTxn v0-3", "[txn][add]") {
  TxnHarness h;
  CHECK(h.add("", {.producer_id = 1, .epoch = 0}, kTwo) == ErrorCode::kInvalidRequest);
  CHECK(h.add("nobody", {.producer_id = 1, .epoch = 0}, kTwo) == ErrorCode::kInvalidProducerIdMapping);
  const TxnResult p = h.init("app");
  CHECK(h.add("app", {.producer_id = p.producer_id + 1, .epoch = 0}, kTwo) == ErrorCode::kInvalidProducerIdMapping);
  CHECK(h.add("app", {.producer_id = p.producer_id, .epoch = 1}, kTwo) == ErrorCode::kProducerFenced);
  h.clock.now += 5;
  REQUIRE(h.add("app", p, kTwo) == ErrorCode::kNone);
  CHECK(h.state("app") == TxnState::kOngoing);
  CHECK(h.cur("app").txn_start_ms == h.clock.now);
  CHECK(h.log.records().back().value->partitions == kTwo);
  const size_t written = h.log.durable.size();
  CHECK(h.add("app", p, {{"orders", 1}}) == ErrorCode::kNone);  // already in: no write
  CHECK(h.log.durable.size() == written);
  CHECK(h.add("app", p, {{"more", 0}}) == ErrorCode::kNone);
  CHECK(h.cur("app").partitions.size() == 3);
  CHECK(h.log.durable.size() == written + 1);
  h.markers.hold = true;
  REQUIRE(h.end("app", p.producer_id, p.epoch, false)->error == ErrorCode::kNone);
  CHECK(h.add("app", p, {{"x", 0}}) == ErrorCode::kConcurrentTransactions);
}

TEST_CASE("AddOffsetsToTxn adds the group's __consumer_offsets partition", "[txn][add]") {
  TxnHarness h;
  // Kafka: Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions (50).
  CHECK(h.coord.offsets_partition_for("my-group") == TopicPartition{"__consumer_offsets", 12});
  CHECK(h.coord.offsets_partition_for("gr\xc3\xbcppe-\xf0\x9f\x98\x80") == TopicPartition{"__consumer_offsets", 14});
  CHECK(h.coord.offsets_partition_for("") == TopicPartition{"__consumer_offsets", 0});
  const TxnResult p = h.init("app");
  std::optional<ErrorCode> out;
  h.coord.add_offsets("app", p.producer_id, p.epoch, "my-group", [&](ErrorCode e) { out = e; });
  CHECK(out == ErrorCode::kNone);
  CHECK(h.cur("app").partitions == std::set<TopicPartition>{{"__consumer_offsets", 12}});
  h.coord.add_offsets("app", p.producer_id, 9, "my-group", [&](ErrorCode e) { out = e; });
  CHECK(out == ErrorCode::kProducerFenced);
}

TEST_CASE("verify-only AddPartitionsToTxn (v4+) answers per partition", "[txn][add][verify]") {
  TxnHarness h;
  const TxnResult p = h.init("app");
  REQUIRE(h.add("app", p, {{"orders", 0}}) == ErrorCode::kNone);
  const auto r = h.coord.verify_partitions("app", p.producer_id, p.epoch, kTwo);
  CHECK(r.at({"orders", 0}) == ErrorCode::kNone);
  CHECK(r.at({"orders", 1}) == ErrorCode::kTransactionAbortable);
  CHECK(h.coord.verify_partitions("app", p.producer_id, 3, kTwo).at({"orders", 0}) == ErrorCode::kProducerFenced);
  CHECK(h.coord.verify_partitions("zz", 1, 0, kTwo).at({"orders", 1}) == ErrorCode::kInvalidProducerIdMapping);
  CHECK(h.coord.verify_partitions("", 1, 0, kTwo).at({"orders", 1}) == ErrorCode::kInvalidRequest);
  h.markers.hold = true;
  REQUIRE(h.end("app", p.producer_id, p.epoch, true)->error == ErrorCode::kNone);
  CHECK(h.coord.verify_partitions("app", p.producer_id, p.epoch, kTwo).at({"orders", 0}) ==
        ErrorCode::kConcurrentTransactions);
}

TEST_CASE("batched AddPartitionsToTxn (v4+) answers once every transaction is done", "[txn][add][verify]") {
  TxnHarness h;
  const TxnResult a = h.init("a");
  const TxnResult b = h.init("b");
  REQUIRE(h.add("b", b, {{"t", 0}}) == ErrorCode::kNone);
  h.log.hold = true;
  std::optional<std::map<std::string, PartitionErrors>> out;
  std::vector<AddPartitionsEntry> batch = {
      {"a", a.producer_id, a.epoch, false, kTwo},
      {"b", b.producer_id, b.epoch, true, {{"t", 0}, {"t", 1}}},
      {"c", 1, 0, false, {{"t", 0}}},
  };
  h.coord.add_partitions_batch(batch, [&](auto r) { out = std::move(r); });
  CHECK_FALSE(out.has_value());  // "a" waits for its state write
  h.log.release_one();
  REQUIRE(out.has_value());
  CHECK(out->at("a").at({"orders", 0}) == ErrorCode::kNone);
  CHECK(out->at("a").at({"orders", 1}) == ErrorCode::kNone);
  CHECK(out->at("b").at({"t", 0}) == ErrorCode::kNone);
  CHECK(out->at("b").at({"t", 1}) == ErrorCode::kTransactionAbortable);
  CHECK(out->at("c").at({"t", 0}) == ErrorCode::kInvalidProducerIdMapping);
  CHECK(h.state("a") == TxnState::kOngoing);
  CHECK(h.cur("b").partitions.size() == 1);  // verify-only adds nothing
}

TEST_CASE("KIP-360 after a TV2 end: the epoch before the bump is a retry, not a zombie", "[txn][init][tv2]") {
  TxnHarness h;
  const TxnResult p = h.init("app");
  REQUIRE(h.add("app", p, kTwo, 2) == ErrorCode::kNone);
  REQUIRE(h.end("app", p.producer_id, p.epoch, true, 2)->epoch == p.epoch + 1);
  CHECK(h.cur("app").last_producer_epoch == p.epoch);  // kept through CompleteCommit, as Kafka 4.4
  const TxnResult r = h.init("app", 60000, ProducerIdAndEpoch{p.producer_id, p.epoch});
  CHECK(r.error == ErrorCode::kNone);
  CHECK(r.epoch == p.epoch + 1);
}

TEST_CASE("after a rotation the old producer id is still recognised while a transaction runs", "[txn][init]") {
  TxnHarness h;
  seed(h, "app", TxnState::kEmpty, INT16_MAX - 1);
  const TxnResult rotated = h.init("app", 60000, ProducerIdAndEpoch{500, INT16_MAX - 1});
  REQUIRE(rotated.producer_id == 1000);
  REQUIRE(h.add("app", rotated, kTwo) == ErrorCode::kNone);
  CHECK(h.cur("app").previous_producer_id == 500);
  // A late retry from the old id: valid (previous id, exhausted epoch), so it fences the ongoing transaction.
  CHECK(h.init("app", 60000, ProducerIdAndEpoch{500, INT16_MAX - 1}).error == ErrorCode::kConcurrentTransactions);
  CHECK(h.markers.calls.size() == 1);
}
