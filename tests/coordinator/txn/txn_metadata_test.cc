// TxnState's legal transitions, names and ids (Kafka's TransactionState), and
// TxnMetadata's prepare/complete discipline and epoch rules.
#include "coordinator/txn/txn_metadata.h"

#include <catch2/catch.hpp>
#include <map>
#include <stdexcept>

using namespace skiff::txn;

namespace {

using S = TxnState;
constexpr S kAll[] = {S::kEmpty,          S::kOngoing,       S::kPrepareCommit, S::kPrepareAbort,
                      S::kCompleteCommit, S::kCompleteAbort, S::kDead,          S::kPrepareEpochFence};

TxnMetadata make(S state, int16_t epoch = 5, int16_t last_epoch = kNoProducerEpoch) {
  TxnTransit t;
  t.producer_id = 100;
  t.producer_epoch = epoch;
  t.last_producer_epoch = last_epoch;
  t.txn_timeout_ms = 1000;
  t.state = state;
  if (state != S::kEmpty) t.partitions = {{"t", 0}};
  t.txn_start_ms = 50;
  return TxnMetadata("id", t);
}

}  // namespace

TEST_CASE("legal transitions are Kafka's validPreviousStates", "[txn][state]") {
  // to -> the states it may follow (Kafka 4.4's TransactionState.VALID_PREVIOUS_STATES, read from the jar).
  const std::map<S, std::set<S>> previous = {
      {S::kEmpty, {S::kEmpty, S::kCompleteCommit, S::kCompleteAbort}},
      {S::kOngoing, {S::kOngoing, S::kEmpty, S::kCompleteCommit, S::kCompleteAbort}},
      {S::kPrepareCommit, {S::kOngoing}},
      {S::kPrepareAbort, {S::kOngoing, S::kPrepareEpochFence, S::kEmpty, S::kCompleteCommit, S::kCompleteAbort}},
      {S::kCompleteCommit, {S::kPrepareCommit}},
      {S::kCompleteAbort, {S::kPrepareAbort}},
      {S::kDead, {S::kEmpty, S::kCompleteAbort, S::kCompleteCommit}},
      {S::kPrepareEpochFence, {S::kOngoing}},
  };
  for (S from : kAll) {
    for (S to : kAll) {
      INFO(state_name(from) << " -> " << state_name(to));
      CHECK(is_valid_transition(from, to) == previous.at(to).contains(from));
    }
  }
}

TEST_CASE("state ids and names are Kafka's", "[txn][state]") {
  CHECK(state_name(S::kPrepareEpochFence) == "PrepareEpochFence");
  CHECK(static_cast<int>(S::kDead) == 6);
  for (S s : kAll) {
    CHECK(state_from_name(state_name(s)) == s);
    CHECK(state_from_id(static_cast<int8_t>(s)) == s);
  }
  CHECK_FALSE(state_from_name("ongoing").has_value());  // names are case-sensitive, as Kafka's
  CHECK_FALSE(state_from_id(8).has_value());
  CHECK(is_expiration_allowed(S::kEmpty));
  CHECK(is_expiration_allowed(S::kCompleteAbort));
  CHECK_FALSE(is_expiration_allowed(S::kOngoing));
  CHECK_FALSE(is_expiration_allowed(S::kPrepareCommit));
}

TEST_CASE("a transition is pending until completed or aborted", "[txn][state]") {
  TxnMetadata m = make(S::kEmpty);
  const TxnTransit t = m.prepare_add_partitions({{"t", 1}}, 0, 77);
  CHECK(m.pending() == S::kOngoing);
  CHECK(m.state() == S::kEmpty);
  CHECK_THROWS_AS(m.prepare_dead(), std::logic_error);  // one transition at a time
  m.complete_transition(t);
  CHECK(m.state() == S::kOngoing);
  CHECK(m.current().txn_start_ms == 77);  // a transaction starts with its first partition
  CHECK_FALSE(m.has_pending());
  const TxnTransit again = m.prepare_add_partitions({{"t", 2}}, 0, 99);
  CHECK(again.txn_start_ms == 77);
  m.abort_transition();
  CHECK(m.current().partitions == std::set<TopicPartition>{{"t", 1}});
  CHECK_THROWS_AS(m.prepare_complete(1), std::logic_error);  // Ongoing -> Complete* is illegal
}

TEST_CASE("InitProducerId's epoch rules (KIP-360)", "[txn][state]") {
  SECTION("no expected epoch: bump, forget the last epoch") {
    TxnMetadata m = make(S::kCompleteCommit, 5, 4);
    auto t = m.prepare_increment_epoch(2000, std::nullopt, 9);
    REQUIRE(t);
    CHECK(t->producer_epoch == 6);
    CHECK(t->last_producer_epoch == kNoProducerEpoch);
    CHECK(t->txn_timeout_ms == 2000);
    CHECK(t->partitions.empty());
    CHECK(t->txn_start_ms == -1);
  }
  SECTION("the current epoch: bump and remember it") {
    TxnMetadata m = make(S::kEmpty, 5);
    auto t = m.prepare_increment_epoch(1000, 5, 9);
    REQUIRE(t);
    CHECK(t->producer_epoch == 6);
    CHECK(t->last_producer_epoch == 5);
  }
  SECTION("the last epoch: a retry, answered with the same epoch") {
    TxnMetadata m = make(S::kEmpty, 6, 5);
    auto t = m.prepare_increment_epoch(1000, 5, 9);
    REQUIRE(t);
    CHECK(t->producer_epoch == 6);
    CHECK(t->last_producer_epoch == 5);
  }
  SECTION("any other epoch is fenced") {
    TxnMetadata m = make(S::kEmpty, 6, 5);
    CHECK_FALSE(m.prepare_increment_epoch(1000, 3, 9).has_value());
    CHECK_FALSE(m.has_pending());
  }
}

TEST_CASE("the epoch fence bumps once, and not again after a failed write", "[txn][state]") {
  TxnMetadata m = make(S::kOngoing, 5);
  TxnTransit f = m.prepare_fence_epoch();
  CHECK(f.state == S::kPrepareEpochFence);
  CHECK(f.producer_epoch == 6);
  m.adopt_fence_epoch(f.producer_epoch);
  CHECK(m.producer_epoch() == 6);
  m.set_failed_epoch_fence();
  f = m.prepare_fence_epoch();
  CHECK(f.producer_epoch == 6);
  CHECK(make(S::kOngoing, INT16_MAX).prepare_fence_epoch().producer_epoch == INT16_MAX);  // never overflows
}

TEST_CASE("TV2 EndTxn bumps the epoch, overflow hands over to the next producer id", "[txn][state]") {
  TxnMetadata m = make(S::kOngoing, INT16_MAX - 1);
  const TxnTransit p = m.prepare_end(S::kPrepareCommit, 2, 555, 10);
  CHECK(p.producer_epoch == INT16_MAX);
  CHECK(p.last_producer_epoch == INT16_MAX - 1);
  CHECK(p.next_producer_id == 555);
  m.complete_transition(p);
  const TxnTransit c = m.prepare_complete(11);
  CHECK(c.state == S::kCompleteCommit);
  CHECK(c.producer_id == 555);
  CHECK(c.producer_epoch == 0);
  CHECK(c.previous_producer_id == 100);
  CHECK(c.partitions.empty());
}
