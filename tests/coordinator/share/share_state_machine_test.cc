// The share coordinator's core (coordinator/share/share_state_machine.h) on a
// fake clock: Kafka's batch combining, the fencing of each operation, the
// snapshot cadence, replay (live state = replay of the records, also after
// pruning), delete and the summary; the record format; partition_for against
// Java's String.hashCode.
#include "coordinator/share/share_state_machine.h"

#include <catch2/catch.hpp>
#include <random>

#include "coordinator/share/share_records.h"

using namespace skiff;
using namespace skiff::sharecoord;

namespace {

class FakeClock : public ShareClock {
 public:
  int64_t now = 1000;
  int64_t now_ms() override { return now; }
};

const Uuid kTopic = *Uuid::parse("AAAAAAAAAAAAAAAAAAAAAQ");

Key key(int32_t p = 0, std::string group = "g") { return {std::move(group), kTopic, p}; }

// A machine whose records are replayed at once, as the host does, and kept.
struct Core {
  FakeClock clock;
  ShareCoreConfig config;
  std::unique_ptr<ShareStateMachine> m;
  std::vector<std::pair<int64_t, ShareRecord>> log;  // (offset, record) of partition 0
  explicit Core(int32_t per_snapshot = 500) {
    config.updates_per_snapshot = per_snapshot;
    m = std::make_unique<ShareStateMachine>(config, clock, topics());
  }
  static TopicPartitionCount topics() {
    return [](const Uuid& id) -> std::optional<int32_t> {
      if (id == kTopic) return 4;
      return std::nullopt;
    };
  }
  template <typename R>
  R apply(R r) {
    if (r.record) {
      const int64_t offset = static_cast<int64_t>(log.size());
      // Through the bytes, as the log stores them.
      auto enc = encode_share_record(*r.record);
      std::optional<std::span<const uint8_t>> value;
      if (enc.value) value = std::span<const uint8_t>(*enc.value);
      auto decoded = decode_share_record(enc.key, value);
      REQUIRE(decoded == *r.record);
      m->replay(0, offset, decoded);
      log.emplace_back(offset, decoded);
    }
    return r;
  }
  OpResult init(const Key& k, int32_t state_epoch, int64_t start) {
    return apply(m->initialize(k, state_epoch, start));
  }
  ReadResult read(const Key& k, int32_t leader) { return apply(m->read(k, leader)); }
  OpResult write(const Key& k, const WriteRequest& w) { return apply(m->write(k, w)); }
  OpResult remove(const Key& k) { return apply(m->remove(k)); }
  // A fresh machine replaying the records at or after `from`.
  std::unique_ptr<ShareStateMachine> replayed(int64_t from = 0) {
    auto fresh = std::make_unique<ShareStateMachine>(config, clock, topics());
    for (const auto& [o, r] : log)
      if (o >= from) fresh->replay(0, o, r);
    return fresh;
  }
};

WriteRequest w(int32_t state_epoch, int32_t leader, int64_t start, std::vector<StateBatch> batches, int32_t dcc = -1) {
  return {state_epoch, leader, start, dcc, std::move(batches)};
}

}  // namespace

TEST_CASE("combine_state_batches follows Kafka's PersisterStateBatchCombiner", "[share][coordinator]") {
  using B = std::vector<StateBatch>;
  // Disjoint: sorted, adjacent equal ones coalesce.
  CHECK(combine_state_batches({{0, 9, 2, 1}}, {{10, 19, 2, 1}}, -1) == B{{0, 19, 2, 1}});
  CHECK(combine_state_batches({{10, 19, 0, 1}}, {{0, 9, 2, 1}}, -1) == B{{0, 9, 2, 1}, {10, 19, 0, 1}});
  // Overlap: the higher delivery count wins, then the higher state.
  CHECK(combine_state_batches({{0, 20, 0, 1}}, {{5, 10, 2, 2}}, -1) == B{{0, 4, 0, 1}, {5, 10, 2, 2}, {11, 20, 0, 1}});
  CHECK(combine_state_batches({{0, 20, 0, 3}}, {{5, 10, 2, 2}}, -1) == B{{0, 20, 0, 3}});
  CHECK(combine_state_batches({{0, 20, 0, 1}}, {{5, 10, 4, 1}}, -1) == B{{0, 4, 0, 1}, {5, 10, 4, 1}, {11, 20, 0, 1}});
  // The start offset drops what lies below it and cuts what straddles it.
  CHECK(combine_state_batches({{0, 9, 2, 1}, {10, 19, 0, 1}}, {}, 15) == B{{15, 19, 0, 1}});
  CHECK(combine_state_batches({{0, 9, 2, 1}}, {{5, 30, 0, 2}}, 40).empty());
  CHECK(combine_state_batches({}, {}, 3).empty());
}

TEST_CASE("partition_for is Kafka's abs(String.hashCode) of groupId:topicId:partition", "[share][coordinator]") {
  // Expected values from java.lang.String.hashCode (see H.java in the commit message).
  CHECK(key(0).coordinator_key() == "g:AAAAAAAAAAAAAAAAAAAAAQ:0");
  CHECK(partition_for(key(0), 50) == 23);
  CHECK(partition_for({"share-group-1", *Uuid::parse("q5BwgPNDRzeTLW6sPvIzWg"), 7}, 50) == 20);
  CHECK(partition_for({"grüppe", kTopic, 3}, 50) == 15);
}

TEST_CASE("initialize then read: Kafka's answers and epochs", "[share][coordinator]") {
  Core c;
  auto unknown = c.read(key(), 0);
  CHECK(unknown.error == ErrorCode::kInvalidRequest);
  CHECK(unknown.message == kReadUninitialized);

  auto init = c.init(key(), 3, 100);
  REQUIRE(init.error == ErrorCode::kNone);
  REQUIRE(init.record->type == ShareRecord::Type::kSnapshot);
  CHECK(init.record->value.snapshot_epoch == 0);
  CHECK(init.record->value.delivery_complete_count == 0);
  CHECK(init.record->value.create_timestamp == 1000);

  auto r = c.read(key(), 5);  // a new leader epoch: recorded
  REQUIRE(r.error == ErrorCode::kNone);
  CHECK(r.state.state_epoch == 3);
  CHECK(r.state.start_offset == 100);
  REQUIRE(r.record);
  CHECK(r.record->type == ShareRecord::Type::kUpdate);
  CHECK(r.record->value.leader_epoch == 5);
  CHECK(c.m->leader_epoch(key()) == 5);
  CHECK_FALSE(c.read(key(), 5).record);  // same epoch: nothing written
  auto fenced = c.read(key(), 4);
  CHECK(fenced.error == ErrorCode::kFencedLeaderEpoch);
  CHECK(fenced.message == kFencedLeaderEpochMessage);
  CHECK(c.read(key(), -1).message == kNegativeLeaderEpoch);
  CHECK(c.read(key(9), 0).error == ErrorCode::kInvalidRequest);  // not initialized
  CHECK(c.init({"g", Uuid::parse("AAAAAAAAAAAAAAAAAAAAAg").value(), 0}, 0, 0).error ==
        ErrorCode::kUnknownTopicOrPartition);
  CHECK(c.init(key(4), 0, 0).error == ErrorCode::kUnknownTopicOrPartition);  // the topic has 4 partitions
  CHECK(c.init(key(-1), 0, 0).message == kNegativePartition);
  CHECK(c.init(key(), -1, 0).message == kNegativeStateEpoch);
  auto stale = c.init(key(), 2, 0);
  CHECK(stale.error == ErrorCode::kFencedStateEpoch);
  CHECK(stale.message == kFencedStateEpochMessage);
  // Re-initializing: a new snapshot epoch, the highest leader epoch kept.
  REQUIRE(c.init(key(), 4, -1).error == ErrorCode::kNone);
  CHECK(c.m->state(key())->snapshot_epoch == 1);
  CHECK(c.m->state(key())->delivery_complete_count == -1);
  CHECK(c.m->leader_epoch(key()) == 5);
}

TEST_CASE("write: fencing, start offset and batches", "[share][coordinator]") {
  Core c;
  auto uninit = c.write(key(), w(0, 0, 0, {}));
  CHECK(uninit.error == ErrorCode::kInvalidRequest);
  CHECK(uninit.message == kWriteUninitialized);
  REQUIRE(c.init(key(), 1, 0).error == ErrorCode::kNone);
  REQUIRE(c.read(key(), 2).error == ErrorCode::kNone);

  CHECK(c.write(key(), w(1, 1, 0, {})).error == ErrorCode::kFencedLeaderEpoch);
  auto stale = c.write(key(), w(0, 2, 0, {}));
  CHECK(stale.error == ErrorCode::kFencedStateEpoch);
  CHECK(stale.message == kFencedStateEpochMessage);
  CHECK(c.write(key(), w(1, -1, 0, {})).message == kNegativeLeaderEpoch);
  CHECK(c.write(key(), w(-1, 2, 0, {})).message == kNegativeStateEpoch);

  auto ok = c.write(key(), w(1, 2, 0, {{0, 9, 2, 1}, {10, 19, 0, 1}}, 10));
  REQUIRE(ok.error == ErrorCode::kNone);
  CHECK(ok.record->type == ShareRecord::Type::kUpdate);
  REQUIRE(c.write(key(), w(1, 3, 10, {{10, 14, 2, 2}}, 5)).error == ErrorCode::kNone);
  const auto* s = c.m->state(key());
  CHECK(s->start_offset == 10);
  CHECK(s->delivery_complete_count == 5);
  CHECK(s->batches == std::vector<StateBatch>{{10, 14, 2, 2}, {15, 19, 0, 1}});
  CHECK(s->leader_epoch == 2);  // a write does not move the leader epoch (only a read does)
  // An older start offset neither moves it back nor takes the count.
  REQUIRE(c.write(key(), w(1, 3, 5, {}, 99)).error == ErrorCode::kNone);
  CHECK(c.m->state(key())->start_offset == 10);
  CHECK(c.m->state(key())->delivery_complete_count == 5);
  // The same start offset: the higher count.
  REQUIRE(c.write(key(), w(1, 3, 10, {}, 7)).error == ErrorCode::kNone);
  CHECK(c.m->state(key())->delivery_complete_count == 7);
}

TEST_CASE("a snapshot every updates_per_snapshot updates", "[share][coordinator]") {
  Core c(3);
  REQUIRE(c.init(key(), 0, 0).error == ErrorCode::kNone);
  std::string types;
  for (int i = 0; i < 8; ++i) {
    c.clock.now += 10;
    auto r = c.write(key(), w(0, 0, i, {{i, i, 2, 1}}));
    REQUIRE(r.error == ErrorCode::kNone);
    types += r.record->type == ShareRecord::Type::kSnapshot ? 'S' : 'U';
  }
  CHECK(types == "UUUSUUUS");
  const auto* s = c.m->state(key());
  CHECK(s->snapshot_epoch == 2);
  CHECK(s->batches == std::vector<StateBatch>{{7, 7, 2, 1}});
  CHECK(s->create_timestamp == 1080);
  CHECK(c.m->updates_since_snapshot(key()) == 0);
}

TEST_CASE("replay equals the live state, also from the last redundant offset", "[share][coordinator]") {
  Core c(4);
  std::mt19937 rng(7);
  for (int p = 0; p < 3; ++p) REQUIRE(c.init(key(p), 1, 0).error == ErrorCode::kNone);
  for (int i = 0; i < 300; ++i) {
    const auto k = key(static_cast<int32_t>(rng() % 3));
    const int64_t start = c.m->state(k)->start_offset + static_cast<int64_t>(rng() % 3);
    const int64_t first = start + static_cast<int64_t>(rng() % 20);
    const auto state = static_cast<int8_t>((rng() % 3) * 2);
    const auto count = static_cast<int16_t>(1 + rng() % 3);
    if (rng() % 10 == 0) {
      REQUIRE(c.read(k, static_cast<int32_t>(i / 50)).error == ErrorCode::kNone);
    } else {
      REQUIRE(c.write(k, w(1, i / 50, start, {{first, first + static_cast<int64_t>(rng() % 5), state, count}},
                           static_cast<int32_t>(i)))
                  .error == ErrorCode::kNone);
    }
  }
  auto check_same = [&](const ShareStateMachine& other) {
    for (int p = 0; p < 3; ++p) {
      REQUIRE(other.state(key(p)));
      CHECK(*other.state(key(p)) == *c.m->state(key(p)));
      CHECK(other.leader_epoch(key(p)) == c.m->leader_epoch(key(p)));
      CHECK(other.state_epoch(key(p)) == c.m->state_epoch(key(p)));
    }
  };
  check_same(*c.replayed());
  const auto redundant = c.m->last_redundant_offset(0);
  REQUIRE(redundant);
  CHECK(*redundant > 100);  // most of the log is superseded
  check_same(*c.replayed(*redundant));
}

TEST_CASE("compaction would lose updates: __share_group_state is pruned, not compacted", "[share][coordinator]") {
  // Kafka 4.4's ShareUpdate carries only the batches of its write; keeping the
  // latest record per key (what compaction does) drops the earlier updates
  // since the snapshot. This is why the topic is cleanup.policy=delete.
  Core c;
  REQUIRE(c.init(key(), 0, 0).error == ErrorCode::kNone);
  REQUIRE(c.write(key(), w(0, 0, 0, {{0, 4, 2, 1}})).error == ErrorCode::kNone);
  REQUIRE(c.write(key(), w(0, 0, 0, {{5, 9, 4, 1}})).error == ErrorCode::kNone);
  std::map<std::pair<int, Key>, std::pair<int64_t, ShareRecord>> latest;  // compaction's view
  for (const auto& [o, r] : c.log) latest[{r.type == ShareRecord::Type::kUpdate ? 1 : 0, r.key}] = {o, r};
  std::vector<std::pair<int64_t, ShareRecord>> compacted;
  compacted.reserve(latest.size());
  for (const auto& [k, v] : latest) compacted.push_back(v);
  std::sort(compacted.begin(), compacted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ShareStateMachine after(c.config, c.clock, Core::topics());
  for (const auto& [o, r] : compacted) after.replay(0, o, r);
  CHECK(after.state(key())->batches != c.m->state(key())->batches);
  // Pruning keeps everything from the key's latest snapshot on: the same state.
  CHECK(*c.replayed(c.m->last_redundant_offset(0).value_or(0))->state(key()) == *c.m->state(key()));
}

TEST_CASE("delete and the summary", "[share][coordinator]") {
  Core c;
  auto none = c.m->read_summary(key());
  CHECK(none.error == ErrorCode::kNone);
  CHECK(none.start_offset == -1);
  CHECK(none.delivery_complete_count == -1);
  CHECK(none.leader_epoch == 0);
  CHECK(none.state_epoch == 0);
  CHECK(c.m->read_summary(key(7)).error == ErrorCode::kUnknownTopicOrPartition);

  auto nothing = c.remove(key());
  CHECK(nothing.error == ErrorCode::kNone);
  CHECK_FALSE(nothing.record);

  REQUIRE(c.init(key(), 2, 50).error == ErrorCode::kNone);
  REQUIRE(c.read(key(), 3).error == ErrorCode::kNone);
  REQUIRE(c.write(key(), w(2, 3, 60, {{60, 70, 0, 1}}, 4)).error == ErrorCode::kNone);
  auto s = c.m->read_summary(key());
  CHECK(s.start_offset == 60);
  CHECK(s.delivery_complete_count == 4);
  CHECK(s.leader_epoch == 3);
  CHECK(s.state_epoch == 2);

  auto del = c.remove(key());
  REQUIRE(del.record);
  CHECK(del.record->type == ShareRecord::Type::kTombstone);
  CHECK_FALSE(c.m->state(key()));
  CHECK(c.read(key(), 3).message == kReadUninitialized);
  CHECK(c.m->read_summary(key()).start_offset == -1);
  // The epochs went with it: a fresh initialize at epoch 0 is accepted.
  CHECK(c.init(key(), 0, 0).error == ErrorCode::kNone);
  CHECK_FALSE(c.replayed()->state(key(1)));
  CHECK(*c.replayed()->state(key()) == *c.m->state(key()));
}

TEST_CASE("cold snapshots: idle keys get a fresh snapshot so pruning moves on", "[share][coordinator]") {
  Core c;
  c.config.cold_snapshot_interval_ms = 1000;
  c.m = std::make_unique<ShareStateMachine>(c.config, c.clock, Core::topics());
  REQUIRE(c.init(key(0), 0, 0).error == ErrorCode::kNone);
  REQUIRE(c.init(key(1), 0, 0).error == ErrorCode::kNone);
  REQUIRE(c.write(key(0), w(0, 0, 0, {{0, 3, 2, 1}})).error == ErrorCode::kNone);
  CHECK(c.m->snapshot_cold().empty());  // not old enough
  c.clock.now += 1000;
  auto cold = c.m->snapshot_cold();
  REQUIRE(cold.size() == 2);
  for (auto& r : cold) {
    CHECK(r.value.create_timestamp == 1000);
    CHECK(r.value.write_timestamp == 2000);
    c.apply(OpResult{ErrorCode::kNone, {}, r});
  }
  CHECK(c.m->state(key(0))->batches == std::vector<StateBatch>{{0, 3, 2, 1}});
  CHECK(c.m->snapshot_cold().empty());  // every state re-snapshotted
  CHECK(*c.m->last_redundant_offset(0) == 3);
  CHECK(*c.replayed(3)->state(key(0)) == *c.m->state(key(0)));
}

TEST_CASE("the state of a deleted topic's share-partitions is deleted", "[share][coordinator]") {
  FakeClock clock;
  bool exists = true;
  ShareStateMachine m({}, clock, [&exists](const Uuid& id) -> std::optional<int32_t> {
    if (exists && id == kTopic) return 4;
    return std::nullopt;
  });
  auto init = m.initialize(key(1), 0, 0);
  REQUIRE(init.record);
  m.replay(0, 0, *init.record);
  CHECK(m.tombstones_for_deleted_topics().empty());
  exists = false;
  auto tombstones = m.tombstones_for_deleted_topics();
  REQUIRE(tombstones.size() == 1);
  CHECK(tombstones[0].type == ShareRecord::Type::kTombstone);
  CHECK(tombstones[0].key == key(1));
  m.replay(0, 1, tombstones[0]);
  CHECK(m.size() == 0);
}
