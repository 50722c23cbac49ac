// SharePartition's state machine: acquisition, acknowledgement (whole and
// per offset), release, lock expiry on a fake clock, delivery limit, record
// limit mode, max record locks, start-offset moves, persister failures,
// loading, read_committed.
#include "share/share_partition.h"

#include <catch2/catch.hpp>
#include <memory>

#include "tests/share/share_fakes.h"

namespace skiff::share {
namespace {

using testing::FakeConfig;
using testing::FakeTime;
using testing::FakeWrites;

struct Env {
  FakeTime time;
  FakeConfig config;
  FakeWrites writes;
  int wakeups = 0;
  int64_t log_start = 0;
  int64_t log_end = 100;
  std::unique_ptr<SharePartition> sp;

  explicit Env(const PersistedState& persisted = start_at(0), const ShareGroupSettings& s = {}) {
    config.s = s;
    SharePartition::Ports ports;
    ports.now_ms = [this] { return time.now; };
    ports.schedule = [this](int64_t d, std::function<void()> fn) { time.schedule(d, std::move(fn)); };
    ports.write = [this](const PersistedState& u, std::function<void(ErrorCode, std::string)> done) {
      writes.write(u, std::move(done));
    };
    ports.on_acquirable = [this] { ++wakeups; };
    sp = std::make_unique<SharePartition>("g", Uuid{}, 0, 0, &config, std::move(ports));
    REQUIRE(sp->begin_initialize());
    load_result = sp->complete_initialize(ErrorCode::kNone, "", persisted, [this](int64_t ts) {
      if (ts == -1) return log_end;
      if (ts == -2) return log_start;
      return ts <= time.now - 60000 ? int64_t{40} : int64_t{-1};
    });
  }
  static PersistedState start_at(int64_t start) {
    PersistedState p;
    p.start_offset = start;
    return p;
  }
  ShareAcquiredRecords acquire(const std::string& member, std::vector<FetchedBatch> batches, int32_t max = 500,
                               AcquireMode mode = AcquireMode::kBatchOptimized, int32_t batch_size = 500,
                               std::vector<AbortedTransaction> aborted = {}, bool read_committed = false) {
    int64_t fetch_offset = sp->next_fetch_offset();
    return sp->acquire(member, mode, batch_size, max, fetch_offset, batches, aborted, read_committed);
  }
  ShareResult ack(const std::string& member, const std::vector<AcknowledgementBatch>& batches) {
    ShareResult out{ErrorCode::kUnknownServerError, "not completed"};
    sp->acknowledge(member, batches, [&out](ShareResult r) { out = std::move(r); });
    return out;
  }
  RecordState state(int64_t offset) { return sp->offset_state(offset).value().state; }
  int32_t count(int64_t offset) { return sp->offset_state(offset).value().delivery_count; }
  ShareResult load_result;
};

std::vector<FetchedBatch> batches(std::initializer_list<std::pair<int64_t, int64_t>> ranges) {
  std::vector<FetchedBatch> out;
  for (auto [f, l] : ranges) out.push_back(FetchedBatch{f, l});
  return out;
}

AcknowledgementBatch ack_range(int64_t first, int64_t last, int8_t type) { return {first, last, {type}}; }

TEST_CASE("acquire takes whole fetched batches and answers one range per in-flight batch") {
  Env env;
  auto got = env.acquire("m1", batches({{0, 4}, {5, 9}}));
  REQUIRE(got.count == 10);
  REQUIRE(got.records == std::vector<AcquiredRecords>{{0, 9, 1}});
  CHECK(env.sp->end_offset() == 9);
  CHECK(env.sp->next_fetch_offset() == 10);
  CHECK(env.state(3) == RecordState::kAcquired);
  CHECK(env.sp->offset_state(3)->member_id == "m1");
  // Nothing left to acquire in those batches.
  CHECK(env.sp->acquire("m2", AcquireMode::kBatchOptimized, 500, 500, 0, batches({{0, 4}, {5, 9}}), {}, false).count ==
        0);
}

TEST_CASE("batch size cuts a new acquisition at log batch boundaries") {
  Env env;
  auto got = env.acquire("m1", batches({{0, 4}, {5, 9}, {10, 14}}), 500, AcquireMode::kBatchOptimized, 5);
  CHECK(got.records == std::vector<AcquiredRecords>{{0, 4, 1}, {5, 9, 1}, {10, 14, 1}});
  CHECK(env.sp->cached_batches() == 3);
}

TEST_CASE("max records is a soft limit in batch-optimized mode: the acquisition ends on a batch boundary") {
  Env env;
  auto got = env.acquire("m1", batches({{0, 4}, {5, 9}, {10, 14}}), 7);
  CHECK(got.records == std::vector<AcquiredRecords>{{0, 9, 1}});
  CHECK(got.count == 10);
}

TEST_CASE("accepting a whole batch persists it and moves the start offset after the write") {
  Env env;
  env.writes.auto_complete = false;
  env.acquire("m1", batches({{0, 9}}));
  ShareResult r{ErrorCode::kUnknownServerError, "pending"};
  env.sp->acknowledge("m1", {ack_range(0, 9, 1)}, [&](const ShareResult& x) { r = x; });
  CHECK(r.message == "pending");  // not done before the write completes
  REQUIRE(env.writes.written.size() == 1);
  const PersistedState& w = env.writes.written[0];
  CHECK(w.start_offset == 0);
  CHECK(w.delivery_complete_count == 10);
  REQUIRE(w.batches.size() == 1);
  CHECK(w.batches[0].first_offset == 0);
  CHECK(w.batches[0].last_offset == 9);
  CHECK(w.batches[0].delivery_state == 2);
  CHECK(w.batches[0].delivery_count == 1);
  CHECK(env.sp->offset_state(0)->transition_pending);
  env.writes.complete_next();
  CHECK(r.ok());
  CHECK(env.sp->start_offset() == 10);
  CHECK(env.sp->cached_batches() == 0);
  CHECK(env.sp->delivery_complete_count() == 0);
  CHECK(env.sp->next_fetch_offset() == 10);
}

TEST_CASE("a partial acknowledgement splits the batch per offset") {
  Env env;
  env.acquire("m1", batches({{0, 9}}));
  REQUIRE(env.ack("m1", {ack_range(0, 4, 1)}).ok());
  CHECK(env.sp->per_offset(0));
  CHECK(env.sp->start_offset() == 5);
  CHECK(env.state(5) == RecordState::kAcquired);
  REQUIRE(env.writes.written.size() == 1);
  CHECK(env.writes.written[0].batches.size() == 5);  // one persisted range per offset
  // Release two, reacquire them with delivery count 2.
  REQUIRE(env.ack("m1", {ack_range(5, 6, 2)}).ok());
  CHECK(env.state(5) == RecordState::kAvailable);
  CHECK(env.count(5) == 1);
  CHECK(env.sp->next_fetch_offset() == 5);
  auto again = env.acquire("m2", batches({{0, 9}}));
  CHECK(again.records == std::vector<AcquiredRecords>{{5, 6, 2}});
  CHECK(env.sp->offset_state(6)->member_id == "m2");
}

TEST_CASE("per-offset acknowledge types in one batch: accept, release, reject, gap") {
  Env env;
  env.acquire("m1", batches({{0, 3}}));
  REQUIRE(env.ack("m1", {AcknowledgementBatch{0, 3, {1, 2, 3, 0}}}).ok());
  CHECK(env.state(0) == RecordState::kAcknowledged);
  CHECK(env.state(1) == RecordState::kAvailable);
  CHECK(env.state(2) == RecordState::kArchived);
  CHECK(env.state(3) == RecordState::kArchived);
  CHECK(env.sp->start_offset() == 1);
  CHECK(env.sp->delivery_complete_count() == 2);  // 2 and 3, at or past the start offset
}

TEST_CASE("reject archives, the start offset passes archived records") {
  Env env;
  env.acquire("m1", batches({{0, 4}, {5, 9}}), 500, AcquireMode::kBatchOptimized, 5);
  REQUIRE(env.ack("m1", {ack_range(0, 4, 3)}).ok());
  CHECK(env.sp->start_offset() == 5);
  CHECK(env.writes.written.back().batches[0].delivery_state == 4);
}

TEST_CASE("acknowledgement validation answers Kafka's errors and changes nothing") {
  Env env;
  env.acquire("m1", batches({{0, 9}}));
  ShareResult r = env.ack("m2", {ack_range(0, 9, 1)});
  CHECK(r.code == ErrorCode::kInvalidRecordState);
  CHECK(r.message == "Member is not the owner of batch record");
  r = env.ack("m1", {ack_range(20, 25, 1)});
  CHECK(r.code == ErrorCode::kInvalidRequest);
  CHECK(r.message == "Batch record not found. The first offset in request is past acquired records.");
  r = env.ack("m1", {ack_range(5, 12, 1)});
  CHECK(r.code == ErrorCode::kInvalidRequest);
  CHECK(r.message == "Batch record not found. The last offset in request is past acquired records.");
  r = env.ack("m1", {ack_range(0, 9, 7)});
  CHECK(r.code == ErrorCode::kInvalidRequest);
  CHECK(r.message == "Invalid acknowledge type: [7]");
  CHECK(env.writes.written.empty());
  CHECK(env.state(0) == RecordState::kAcquired);
  // A second batch failing rolls back the first one of the same request.
  r = env.ack("m1", {ack_range(0, 4, 1), ack_range(0, 4, 1)});
  CHECK(r.code == ErrorCode::kInvalidRecordState);
  CHECK(r.message == "The offset cannot be acknowledged. The offset is not acquired.");
  CHECK(env.state(0) == RecordState::kAcquired);
  CHECK(env.sp->delivery_complete_count() == 0);
  CHECK(env.writes.written.empty());
  // Released records are not the member's any more.
  Env env3;
  env3.acquire("m1", batches({{0, 9}}));
  REQUIRE(env3.ack("m1", {ack_range(0, 9, 2)}).ok());
  r = env3.ack("m1", {ack_range(0, 9, 1)});
  CHECK(r.code == ErrorCode::kInvalidRecordState);
  CHECK(r.message == "The batch cannot be acknowledged. The batch is not in the acquired state.");
}

TEST_CASE("an acknowledgement below the start offset is ignored, one before any batch is an invalid state") {
  Env env(Env::start_at(10));
  CHECK(env.ack("m1", {ack_range(0, 5, 1)}).ok());
  env.acquire("m1", batches({{10, 19}}));
  ShareResult r = env.ack("m1", {ack_range(0, 5, 1)});
  CHECK(r.ok());
  PersistedState gap;  // start 0, the first batch at 5: 0-4 never delivered
  gap.start_offset = 0;
  gap.batches = {{5, 9, 0, 1}};
  Env env2(gap);
  r = env2.ack("m1", {ack_range(0, 2, 1)});
  CHECK(r.code == ErrorCode::kInvalidRecordState);
  CHECK(r.message == "Batch record not found. The request batch offsets are not found in the cache.");
}

TEST_CASE("an expired acquisition lock makes the records available again, delivery count kept") {
  Env env;
  env.acquire("m1", batches({{0, 9}}));
  env.time.advance(29999);
  CHECK(env.state(0) == RecordState::kAcquired);
  env.time.advance(1);
  CHECK(env.state(0) == RecordState::kAvailable);
  CHECK(env.count(0) == 1);
  CHECK(env.sp->offset_state(0)->member_id.empty());
  CHECK(env.wakeups == 1);
  REQUIRE(env.writes.written.size() == 1);
  CHECK(env.writes.written[0].batches[0].delivery_state == 0);
  CHECK(env.sp->next_fetch_offset() == 0);
  auto again = env.acquire("m2", batches({{0, 9}}));
  CHECK(again.records == std::vector<AcquiredRecords>{{0, 9, 2}});
  // The acknowledgement of the old owner is refused.
  CHECK(env.ack("m1", {ack_range(0, 9, 1)}).code == ErrorCode::kInvalidRecordState);
}

TEST_CASE("the lock of a partially acknowledged batch still expires per offset") {
  Env env;
  env.acquire("m1", batches({{0, 9}}));
  REQUIRE(env.ack("m1", {ack_range(0, 2, 1)}).ok());
  env.time.advance(30000);
  CHECK(env.state(3) == RecordState::kAvailable);
  CHECK(env.state(9) == RecordState::kAvailable);
  CHECK(env.sp->start_offset() == 3);
}

TEST_CASE("delivery count limit: a record released or expired at the limit is archived") {
  ShareGroupSettings s;
  s.delivery_count_limit = 2;
  Env env(Env::start_at(0), s);
  env.acquire("m1", batches({{0, 4}}));
  env.time.advance(30000);
  CHECK(env.state(0) == RecordState::kAvailable);
  auto got = env.acquire("m1", batches({{0, 4}}));
  CHECK(got.records == std::vector<AcquiredRecords>{{0, 4, 2}});
  env.time.advance(30000);
  // Archived at the limit, and the start offset moves past it.
  CHECK(env.sp->start_offset() == 5);
  CHECK(env.writes.written.back().batches[0].delivery_state == 4);
  Env env2(Env::start_at(0), s);
  env2.acquire("m1", batches({{0, 4}}));
  REQUIRE(env2.ack("m1", {ack_range(0, 4, 2)}).ok());
  env2.acquire("m1", batches({{0, 4}}));
  REQUIRE(env2.ack("m1", {ack_range(0, 4, 2)}).ok());
  CHECK(env2.sp->start_offset() == 5);
}

TEST_CASE("record limit mode acquires exactly max records and keeps the rest available") {
  Env env;
  auto got = env.acquire("m1", batches({{0, 9}}), 3, AcquireMode::kRecordLimit);
  CHECK(got.records == std::vector<AcquiredRecords>{{0, 2, 1}});
  CHECK(got.count == 3);
  CHECK(env.sp->per_offset(0));
  CHECK(env.state(3) == RecordState::kAvailable);
  CHECK(env.count(3) == 0);
  CHECK(env.sp->next_fetch_offset() == 3);
  auto more = env.acquire("m2", batches({{0, 9}}), 3, AcquireMode::kRecordLimit);
  CHECK(more.records == std::vector<AcquiredRecords>{{3, 5, 1}});
  CHECK(env.sp->offset_state(4)->member_id == "m2");
  // The record-limit lock expires for the acquired offsets only.
  env.time.advance(30000);
  CHECK(env.state(0) == RecordState::kAvailable);
  CHECK(env.count(0) == 1);
  CHECK(env.count(6) == 0);
}

TEST_CASE("max record locks bounds the in-flight records") {
  ShareGroupSettings s;
  s.partition_max_record_locks = 10;
  Env env(Env::start_at(0), s);
  auto got = env.acquire("m1", batches({{0, 4}, {5, 9}, {10, 19}}));
  CHECK(got.records == std::vector<AcquiredRecords>{{0, 9, 1}});
  CHECK_FALSE(env.sp->can_acquire_records());
  CHECK(env.acquire("m2", batches({{10, 19}})).count == 0);
  // Freed by acknowledgement.
  REQUIRE(env.ack("m1", {ack_range(0, 9, 1)}).ok());
  CHECK(env.sp->can_acquire_records());
  CHECK(env.acquire("m2", batches({{10, 19}})).count == 10);
}

TEST_CASE("the log start offset moving past records archives the available ones") {
  Env env;
  env.acquire("m1", batches({{0, 9}}));
  REQUIRE(env.ack("m1", {ack_range(0, 9, 2)}).ok());
  env.sp->update_cache_and_offsets(5);
  CHECK(env.sp->start_offset() == 5);
  CHECK(env.state(0) == RecordState::kArchived);
  CHECK(env.state(5) == RecordState::kAvailable);
  auto got = env.acquire("m1", batches({{5, 9}}));
  CHECK(got.records == std::vector<AcquiredRecords>{{5, 9, 2}});
  Env empty;
  empty.sp->update_cache_and_offsets(42);
  CHECK(empty.sp->start_offset() == 42);
  CHECK(empty.sp->next_fetch_offset() == 42);
}

TEST_CASE("a failed persister write rolls the acknowledgement back") {
  Env env;
  env.acquire("m1", batches({{0, 9}}));
  env.writes.next_error = ErrorCode::kFencedStateEpoch;
  ShareResult r = env.ack("m1", {ack_range(0, 9, 1)});
  CHECK(r.code == ErrorCode::kNotLeaderOrFollower);
  CHECK(env.state(0) == RecordState::kAcquired);
  CHECK(env.sp->offset_state(0)->member_id == "m1");
  CHECK(env.sp->delivery_complete_count() == 0);
  CHECK(env.sp->start_offset() == 0);
  env.writes.next_error = ErrorCode::kCoordinatorLoadInProgress;
  CHECK(env.ack("m1", {ack_range(0, 9, 1)}).code == ErrorCode::kCoordinatorNotAvailable);
  env.writes.next_error = ErrorCode::kNone;
  CHECK(env.ack("m1", {ack_range(0, 9, 1)}).ok());
  CHECK(env.sp->start_offset() == 10);
}

TEST_CASE("a write in flight blocks a second acknowledgement, a lock expired meanwhile rolls back to available") {
  Env env;
  env.writes.auto_complete = false;
  env.acquire("m1", batches({{0, 9}}));
  ShareResult first{ErrorCode::kUnknownServerError, "pending"};
  env.sp->acknowledge("m1", {ack_range(0, 9, 1)}, [&](const ShareResult& x) { first = x; });
  ShareResult second = {ErrorCode::kUnknownServerError, "pending"};
  env.sp->acknowledge("m1", {ack_range(0, 9, 1)}, [&](const ShareResult& x) { second = x; });
  CHECK(second.code == ErrorCode::kInvalidRecordState);
  CHECK(second.message == "The batch cannot be acknowledged. The batch is not in the acquired state.");
  env.time.advance(30000);  // the timer finds a transition under way: nothing
  CHECK(env.writes.pending.size() == 1);
  env.writes.complete_next(ErrorCode::kUnknownServerError);
  CHECK(first.code == ErrorCode::kUnknownServerError);
  CHECK(env.state(0) == RecordState::kAvailable);
  CHECK(env.sp->next_fetch_offset() == 0);
}

TEST_CASE("loading persisted state: start offset, batches, gaps, delivery counts") {
  PersistedState p;
  p.start_offset = 5;
  p.state_epoch = 3;
  p.batches = {{5, 9, 2, 1}, {10, 14, 0, 2}, {20, 24, 4, 1}};
  Env env(p);
  REQUIRE(env.load_result.ok());
  CHECK(env.sp->state() == SharePartition::State::kActive);
  CHECK(env.sp->state_epoch() == 3);
  CHECK(env.sp->start_offset() == 10);  // 5-9 were acknowledged
  CHECK(env.sp->end_offset() == 24);
  CHECK(env.sp->delivery_complete_count() == 5);
  CHECK(env.sp->next_fetch_offset() == 10);
  auto got = env.acquire("m1", batches({{10, 14}, {15, 19}, {20, 24}}));
  // The persisted batch with its count, then the never-delivered gap.
  CHECK(got.records == std::vector<AcquiredRecords>{{10, 14, 3}, {15, 19, 1}});
  CHECK(env.state(22) == RecordState::kArchived);
}

TEST_CASE("loading rejects a batch before the start offset, a persister error fails the load") {
  PersistedState p;
  p.start_offset = 5;
  p.batches = {{0, 9, 0, 1}};
  Env env(p);
  CHECK(env.load_result.code == ErrorCode::kUnknownServerError);
  CHECK(env.sp->state() == SharePartition::State::kFailed);
  CHECK(env.acquire("m1", batches({{5, 9}})).count == 0);
  FakeConfig cfg;
  SharePartition sp("g", Uuid{}, 0, 0, &cfg, {});
  REQUIRE(sp.begin_initialize());
  CHECK_FALSE(sp.begin_initialize());
  ShareResult r = sp.complete_initialize(ErrorCode::kFencedStateEpoch, "fenced", {}, {});
  CHECK(r.code == ErrorCode::kNotLeaderOrFollower);
  CHECK(sp.state() == SharePartition::State::kFailed);
}

TEST_CASE("an uninitialized start offset follows share.auto.offset.reset") {
  PersistedState none;  // start_offset -1
  Env latest(none);
  CHECK(latest.sp->start_offset() == 100);
  ShareGroupSettings s;
  s.auto_offset_reset = AutoOffsetReset::kEarliest;
  Env earliest(none, s);
  CHECK(earliest.sp->start_offset() == 0);
  s.auto_offset_reset = AutoOffsetReset::kByDuration;
  s.auto_offset_reset_duration_ms = 120000;
  Env by_duration(none, s);
  CHECK(by_duration.sp->start_offset() == 40);
  s.auto_offset_reset_duration_ms = 1000;  // no record that recent: the end
  Env recent(none, s);
  CHECK(recent.sp->start_offset() == 100);
}

TEST_CASE("read_committed archives the batches of aborted transactions") {
  Env env;
  std::vector<FetchedBatch> log = {
      {0, 4, 1, true, false, false},   // producer 1, aborted below
      {5, 9, 2, true, false, false},   // producer 2, committed
      {10, 10, 1, true, true, true},   // abort marker of producer 1
      {11, 11, 2, true, true, false},  // commit marker of producer 2
  };
  auto got = env.acquire("m1", log, 500, AcquireMode::kBatchOptimized, 500, {{1, 0}}, true);
  CHECK(got.records == std::vector<AcquiredRecords>{{5, 11, 1}});
  CHECK(got.count == 7);
  CHECK(env.state(0) == RecordState::kArchived);
  CHECK(env.state(4) == RecordState::kArchived);
  CHECK(env.state(5) == RecordState::kAcquired);
  CHECK(env.sp->delivery_complete_count() == 5);
  // read_uncommitted keeps them.
  Env env2;
  CHECK(env2.acquire("m1", log, 500, AcquireMode::kBatchOptimized, 500, {{1, 0}}, false).count == 12);
}

TEST_CASE("releasing a member's records leaves the others' alone") {
  Env env;
  env.acquire("a", batches({{0, 9}}));
  env.acquire("b", batches({{10, 19}}));
  ShareResult r{ErrorCode::kUnknownServerError, ""};
  env.sp->release_acquired_records("a", [&](const ShareResult& x) { r = x; });
  CHECK(r.ok());
  CHECK(env.state(0) == RecordState::kAvailable);
  CHECK(env.state(10) == RecordState::kAcquired);
  CHECK(env.sp->offset_state(10)->member_id == "b");
  CHECK(env.wakeups == 0);  // the start offset did not move
  CHECK(env.sp->next_fetch_offset() == 0);
}

TEST_CASE("renew (type 4) extends the acquisition lock, refused when the group disables it") {
  Env env;
  env.acquire("m1", batches({{0, 9}}));
  env.time.advance(20000);
  REQUIRE(env.ack("m1", {ack_range(0, 9, 4)}).ok());
  CHECK(env.writes.written.empty());  // a renewal persists nothing
  env.time.advance(20000);
  CHECK(env.state(0) == RecordState::kAcquired);
  env.time.advance(10000);
  CHECK(env.state(0) == RecordState::kAvailable);
  ShareGroupSettings s;
  s.renew_acknowledge_enabled = false;
  Env off(Env::start_at(0), s);
  off.acquire("m1", batches({{0, 9}}));
  ShareResult r = off.ack("m1", {ack_range(0, 9, 4)});
  CHECK(r.code == ErrorCode::kInvalidRecordState);
  CHECK(r.message == "Renewing acquisition locks is not enabled for the group.");
}

TEST_CASE("records redelivered often are throttled: fewer at a time") {
  ShareGroupSettings s;
  s.delivery_count_limit = 4;  // throttle from delivery count 2
  Env env(Env::start_at(0), s);
  env.acquire("m1", batches({{0, 7}}));
  REQUIRE(env.ack("m1", {ack_range(0, 7, 2)}).ok());
  env.acquire("m1", batches({{0, 7}}));
  REQUIRE(env.ack("m1", {ack_range(0, 7, 2)}).ok());
  // Count 2 >= throttle limit 2: half of the 8 records.
  auto got = env.acquire("m1", batches({{0, 7}}));
  CHECK(got.records == std::vector<AcquiredRecords>{{0, 3, 3}});
}

}  // namespace
}  // namespace skiff::share
