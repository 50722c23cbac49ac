// SharePartition with a dead-letter queue (KIP-1191): REJECTed records and
// records at the delivery limit go ARCHIVING -> the DLQ port -> ARCHIVED,
// each state persisted; the port's cause, delivery count and ranges; no DLQ
// means ARCHIVED at once; persisted ARCHIVING records are resent on load.
#include <catch2/catch.hpp>
#include <memory>

#include "share/dead_letter_queue.h"
#include "share/share_partition.h"
#include "tests/share/share_fakes.h"

namespace skiff::share {
namespace {

using testing::FakeConfig;
using testing::FakeTime;
using testing::FakeWrites;

constexpr int8_t kArchivingStateId = 3;
constexpr int8_t kArchivedStateId = 4;

// The DLQ port: records every enqueue and holds its `done` until release().
struct FakeDlqPort {
  bool on = true;
  std::vector<DeadLetterRecords> sent;
  std::vector<std::function<void()>> pending;
  void release_all() {
    auto p = std::move(pending);
    pending.clear();
    for (auto& fn : p) fn();
  }
};

struct DlqEnv {
  FakeTime time;
  FakeConfig config;
  FakeWrites writes;
  FakeDlqPort dlq;
  std::unique_ptr<SharePartition> sp;

  explicit DlqEnv(PersistedState persisted = {}, int32_t limit = 5, bool with_port = true) {
    if (persisted.start_offset < 0) persisted.start_offset = 0;
    config.s.delivery_count_limit = limit;
    SharePartition::Ports ports;
    ports.now_ms = [this] { return time.now; };
    ports.schedule = [this](int64_t d, std::function<void()> fn) { time.schedule(d, std::move(fn)); };
    ports.write = [this](const PersistedState& u, std::function<void(ErrorCode, std::string)> done) {
      writes.write(u, std::move(done));
    };
    if (with_port) {
      ports.dlq_enabled = [this] { return dlq.on; };
      ports.dead_letter = [this](DeadLetterRecords r, std::function<void()> done) {
        dlq.sent.push_back(std::move(r));
        dlq.pending.push_back(std::move(done));
      };
    }
    sp = std::make_unique<SharePartition>("g", Uuid{}, 3, 0, &config, std::move(ports));
    REQUIRE(sp->begin_initialize());
    REQUIRE(sp->complete_initialize(ErrorCode::kNone, "", persisted, [](int64_t) { return int64_t{0}; }).ok());
  }
  void acquire(int64_t first, int64_t last) {
    std::vector<FetchedBatch> b{FetchedBatch{first, last}};
    sp->acquire("m1", AcquireMode::kBatchOptimized, 500, 500, sp->next_fetch_offset(), b, {}, false);
  }
  ShareResult ack(int64_t first, int64_t last, std::vector<int8_t> types) {
    ShareResult out{ErrorCode::kUnknownServerError, "not completed"};
    sp->acknowledge("m1", {{first, last, std::move(types)}}, [&out](ShareResult r) { out = std::move(r); });
    return out;
  }
  RecordState state(int64_t offset) { return sp->offset_state(offset).value().state; }
};

TEST_CASE("a REJECT with a DLQ persists ARCHIVING, sends the range to the port, then persists ARCHIVED") {
  DlqEnv env;
  env.acquire(0, 4);
  REQUIRE(env.ack(0, 4, {3}).ok());
  REQUIRE(env.writes.written.size() == 1);
  CHECK(env.writes.written[0].batches[0].delivery_state == kArchivingStateId);
  CHECK(env.state(0) == RecordState::kArchiving);
  CHECK(env.sp->start_offset() == 0);  // ARCHIVING is not terminal
  CHECK(env.sp->delivery_complete_count() == 0);
  REQUIRE(env.dlq.sent.size() == 1);
  const DeadLetterRecords& r = env.dlq.sent[0];
  CHECK(r.group_id == "g");
  CHECK(r.partition == 3);
  CHECK(r.first_offset == 0);
  CHECK(r.last_offset == 4);
  CHECK(r.delivery_count == 1);
  CHECK(r.cause == kDlqClientReject);
  // An ARCHIVING record cannot be acknowledged again.
  CHECK(env.ack(0, 4, {1}).code == ErrorCode::kInvalidRecordState);
  env.dlq.release_all();
  REQUIRE(env.writes.written.size() == 2);
  CHECK(env.writes.written[1].batches[0].first_offset == 0);
  CHECK(env.writes.written[1].batches[0].last_offset == 4);
  CHECK(env.writes.written[1].batches[0].delivery_state == kArchivedStateId);
  CHECK(env.sp->start_offset() == 5);
}

TEST_CASE("per-offset acknowledgements send each rejected offset on its own, others untouched") {
  DlqEnv env;
  env.acquire(0, 3);
  REQUIRE(env.ack(0, 3, {3, 1, 3, 1}).ok());
  REQUIRE(env.dlq.sent.size() == 2);
  CHECK(env.dlq.sent[0].first_offset == 0);
  CHECK(env.dlq.sent[0].last_offset == 0);
  CHECK(env.dlq.sent[1].first_offset == 2);
  CHECK(env.state(1) == RecordState::kAcknowledged);
  env.dlq.release_all();
  CHECK(env.sp->start_offset() == 4);
}

TEST_CASE("released at the delivery limit: ARCHIVING with the delivery-count cause") {
  DlqEnv env({}, 2);
  env.acquire(0, 1);
  REQUIRE(env.ack(0, 1, {2}).ok());
  CHECK(env.dlq.sent.empty());
  env.acquire(0, 1);
  REQUIRE(env.ack(0, 1, {2}).ok());
  REQUIRE(env.dlq.sent.size() == 1);
  CHECK(env.dlq.sent[0].delivery_count == 2);
  CHECK(env.dlq.sent[0].cause == kDlqDeliveryCountExceeded);
  CHECK(env.state(0) == RecordState::kArchiving);
  env.dlq.release_all();
  CHECK(env.sp->start_offset() == 2);
}

TEST_CASE("an acquisition lock expiring at the delivery limit goes through the DLQ") {
  DlqEnv env({}, 1);
  env.acquire(0, 0);
  env.time.advance(30000);
  REQUIRE(env.dlq.sent.size() == 1);
  CHECK(env.dlq.sent[0].cause == kDlqDeliveryCountExceeded);
  CHECK(env.writes.written.back().batches[0].delivery_state == kArchivingStateId);
  env.dlq.release_all();
  CHECK(env.writes.written.back().batches[0].delivery_state == kArchivedStateId);
  CHECK(env.sp->start_offset() == 1);
}

TEST_CASE("the group without a DLQ topic, or no port: rejected records are ARCHIVED at once") {
  DlqEnv env;
  env.dlq.on = false;
  env.acquire(0, 1);
  REQUIRE(env.ack(0, 1, {3}).ok());
  CHECK(env.dlq.sent.empty());
  CHECK(env.writes.written.back().batches[0].delivery_state == kArchivedStateId);
  DlqEnv none({}, 5, false);
  none.acquire(0, 1);
  REQUIRE(none.ack(0, 1, {3}).ok());
  CHECK(none.writes.written.back().batches[0].delivery_state == kArchivedStateId);
  CHECK(none.sp->start_offset() == 2);
}

TEST_CASE("a failed write of the REJECT rolls back and sends nothing to the DLQ") {
  DlqEnv env;
  env.acquire(0, 1);
  env.writes.next_error = ErrorCode::kUnknownServerError;
  CHECK_FALSE(env.ack(0, 1, {3}).ok());
  CHECK(env.dlq.sent.empty());
  CHECK(env.state(0) == RecordState::kAcquired);
}

TEST_CASE("ARCHIVING records loaded from the persister are sent again, cause by delivery count") {
  PersistedState p;
  p.start_offset = 0;
  p.batches = {{0, 1, kArchivingStateId, 1}, {2, 2, kArchivingStateId, 5}, {3, 3, 0, 1}};
  DlqEnv env(p);
  REQUIRE(env.dlq.sent.size() == 2);
  CHECK(env.dlq.sent[0].cause == kDlqClientReject);
  CHECK(env.dlq.sent[1].cause == kDlqDeliveryCountExceeded);
  env.dlq.release_all();
  CHECK(env.sp->start_offset() == 3);
}

}  // namespace
}  // namespace skiff::share
