// SharePartitionManager over a fake persister and a fake clock: loading,
// acknowledgements, session release, lock expiry through its timers,
// fencing, disconnects, and callbacks run outside the partition's lock.
#include "share/share_partition_manager.h"

#include <catch2/catch.hpp>
#include <thread>

#include "tests/share/share_fakes.h"

namespace skiff::share {
namespace {

using testing::FakeConfig;
using testing::FakePersister;
using testing::FakeTime;

Uuid topic_id() {
  Uuid u;
  u.bytes[0] = 7;
  return u;
}

struct MgrEnv {
  FakeTime time;
  FakeConfig config;
  FakePersister persister;
  std::vector<std::pair<std::string, TopicIdPartition>> wakeups;
  std::unique_ptr<SharePartitionManager> mgr;
  TopicIdPartition tp{topic_id(), 0};

  explicit MgrEnv(DeadLetterQueue* dlq = nullptr) {
    SharePartitionManager::Ports p;
    p.dead_letters = dlq;
    p.now_ms = [this] { return time.now; };
    p.schedule = [this](int64_t d, std::function<void()> fn) { time.schedule(d, std::move(fn)); };
    p.offset_for_timestamp = [](const TopicIdPartition&, int64_t) { return int64_t{0}; };
    p.on_acquirable = [this](const std::string& g, const TopicIdPartition& t) { wakeups.push_back({g, t}); };
    mgr = std::make_unique<SharePartitionManager>(persister, config, 10, std::move(p));
  }
  ShareResult init(const std::string& group = "g") {
    ShareResult out{ErrorCode::kUnknownServerError, "not called"};
    mgr->maybe_initialize(group, tp, [&](const ShareResult& r) { out = r; });
    return out;
  }
  ShareAcquiredRecords acquire(const std::string& member, int64_t first, int64_t last) {
    ShareAcquiredRecords out;
    std::vector<FetchedBatch> b{{first, last}};
    bool ok = mgr->with_partition("g", tp, [&](SharePartition& sp) {
      out = sp.acquire(member, AcquireMode::kBatchOptimized, 500, 500, sp.next_fetch_offset(), b, {}, false);
    });
    REQUIRE(ok);
    return out;
  }
  SharePartitionManager::AckResults ack(const std::string& member, int64_t first, int64_t last, int8_t type) {
    SharePartitionManager::AckResults out;
    bool called = false;
    mgr->acknowledge("g", member, {{tp, {AcknowledgementBatch{first, last, {type}}}}},
                     [&](SharePartitionManager::AckResults r) {
                       out = std::move(r);
                       called = true;
                     });
    REQUIRE(called);
    return out;
  }
  RecordState state(int64_t offset) {
    RecordState s = RecordState::kAvailable;
    mgr->with_partition("g", tp, [&](SharePartition& sp) { s = sp.offset_state(offset).value().state; });
    return s;
  }
};

TEST_CASE("a share partition loads through the persister once, fetches wait for it") {
  MgrEnv env;
  env.persister.hold_reads = true;
  ShareResult a{ErrorCode::kUnknownServerError, "pending"}, b = a;
  env.mgr->maybe_initialize("g", env.tp, [&](const ShareResult& r) { a = r; });
  env.mgr->maybe_initialize("g", env.tp, [&](const ShareResult& r) { b = r; });
  CHECK(env.persister.reads == 1);
  CHECK(a.message == "pending");
  CHECK_FALSE(env.mgr->with_partition("g", env.tp, [](SharePartition&) {}));
  env.persister.held.front()();
  CHECK(a.ok());
  CHECK(b.ok());
  CHECK(env.mgr->with_partition("g", env.tp, [](SharePartition& sp) { CHECK(sp.start_offset() == 0); }));
  CHECK(env.init().ok());  // already active: inline
  CHECK(env.persister.reads == 1);
}

TEST_CASE("a failed load answers the error and drops the partition so a later fetch retries") {
  MgrEnv env;
  env.persister.read_error = ErrorCode::kCoordinatorNotAvailable;
  ShareResult r = env.init();
  CHECK(r.code == ErrorCode::kCoordinatorNotAvailable);
  CHECK(env.mgr->partition_count() == 0);
  env.persister.read_error = ErrorCode::kNone;
  CHECK(env.init().ok());
  CHECK(env.persister.reads == 2);
}

TEST_CASE("acknowledgements go through the partition and its persister write") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  CHECK(env.acquire("m1", 0, 9).count == 10);
  auto r = env.ack("m1", 0, 9, 1);
  REQUIRE(r.size() == 1);
  CHECK(r[0].second.ok());
  REQUIRE(env.persister.written.size() == 1);
  CHECK(env.persister.written[0].batches[0].delivery_state == 2);
  // A partition never loaded.
  SharePartitionManager::AckResults other;
  TopicIdPartition unknown{topic_id(), 5};
  env.mgr->acknowledge("g", "m1", {{unknown, {AcknowledgementBatch{0, 1, {1}}}}},
                       [&](SharePartitionManager::AckResults x) { other = std::move(x); });
  REQUIRE(other.size() == 1);
  CHECK(other[0].second.code == ErrorCode::kUnknownTopicOrPartition);
  CHECK(other[0].second.message == "This server does not host this topic-partition.");
}

TEST_CASE("a fencing persister error drops the share partition") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  env.acquire("m1", 0, 9);
  env.persister.write_error = ErrorCode::kFencedStateEpoch;
  auto r = env.ack("m1", 0, 9, 1);
  CHECK(r[0].second.code == ErrorCode::kNotLeaderOrFollower);
  CHECK(env.mgr->partition_count() == 0);
}

TEST_CASE("lock expiry runs through the manager's timers and wakes waiting fetches") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  env.acquire("m1", 0, 9);
  env.wakeups.clear();
  env.time.advance(30000);
  CHECK(env.state(0) == RecordState::kAvailable);
  REQUIRE_FALSE(env.wakeups.empty());
  CHECK(env.wakeups[0].first == "g");
  // A dropped partition's timers find nothing.
  env.acquire("m2", 0, 9);
  env.persister.write_error = ErrorCode::kFencedStateEpoch;
  env.ack("m2", 0, 4, 1);
  REQUIRE(env.mgr->partition_count() == 0);
  env.time.advance(30000);
}

TEST_CASE("closing a session releases the member's records in its partitions") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  REQUIRE(env.mgr->sessions().new_context("g", "m1", 0, {env.tp}, {}, false, "c1").error.ok());
  env.acquire("m1", 0, 9);
  ShareResult top{ErrorCode::kUnknownServerError, ""};
  SharePartitionManager::AckResults parts;
  env.mgr->release_session("g", "m1", [&](ShareResult r, SharePartitionManager::AckResults p) {
    top = std::move(r);
    parts = std::move(p);
  });
  CHECK(top.ok());
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].second.ok());
  CHECK(env.state(0) == RecordState::kAvailable);
  env.mgr->release_session("g", "m1", [&](const ShareResult& r, const SharePartitionManager::AckResults&) { top = r; });
  CHECK(top.code == ErrorCode::kShareSessionNotFound);
}

TEST_CASE("a closed connection releases its member's records") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  REQUIRE(env.mgr->sessions().new_context("g", "m1", 0, {env.tp}, {}, false, "c1").error.ok());
  env.acquire("m1", 0, 9);
  env.mgr->on_disconnect("c1");
  CHECK(env.mgr->sessions().size() == 0);
  // The group has no session left: its share partitions are dropped too.
  CHECK(env.mgr->partition_count() == 0);
  REQUIRE(env.persister.written.size() == 1);
  CHECK(env.persister.written[0].batches[0].delivery_state == 0);
}

TEST_CASE("wake-ups run after the partition's lock is released") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  env.acquire("m1", 0, 9);
  bool free_elsewhere = false;
  auto check = [&] {
    std::thread t([&] {
      free_elsewhere = env.mgr->with_partition(
          "g", env.tp, [](SharePartition&) {}, true);
    });
    t.join();
  };
  // The acknowledgement's answer must also come outside the lock.
  bool answered_free = false;
  env.mgr->acknowledge("g", "m1", {{env.tp, {AcknowledgementBatch{0, 9, {1}}}}},
                       [&](const SharePartitionManager::AckResults&) {
                         check();
                         answered_free = free_elsewhere;
                       });
  CHECK(answered_free);
}

TEST_CASE("the log start offset moving reaches every group's share partition") {
  MgrEnv env;
  REQUIRE(env.init("g").ok());
  env.acquire("m1", 0, 9);
  REQUIRE(env.ack("m1", 0, 9, 2)[0].second.ok());
  env.mgr->on_log_start_offset(env.tp, 5);
  CHECK(env.state(0) == RecordState::kArchived);
  env.mgr->with_partition("g", env.tp, [](SharePartition& sp) { CHECK(sp.start_offset() == 5); });
}

// ---- metrics (share/share_metrics.h, SharePartitionManager::partition_stats)

TEST_CASE("share metrics: acknowledgement types are named as Kafka tags them, GAP and unknown are not counted") {
  ShareMetrics m;
  CHECK(std::string(ShareMetrics::ack_type_name(1)) == "Accept");
  CHECK(std::string(ShareMetrics::ack_type_name(2)) == "Release");
  CHECK(std::string(ShareMetrics::ack_type_name(3)) == "Reject");
  CHECK(std::string(ShareMetrics::ack_type_name(4)) == "Renew");
  CHECK(ShareMetrics::ack_type_name(0) == nullptr);
  m.record_acknowledgement(0, 5);
  m.record_acknowledgement(9, 5);
  m.record_acknowledgement(3, 2);
  CHECK(m.acknowledged(3) == 2);
  CHECK(m.acknowledged(0) == 0);
  CHECK(m.acknowledged(1) == 0);
}

TEST_CASE("share metrics: acknowledgements count per topic, per type and per failed partition") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  env.acquire("m1", 0, 9);
  env.ack("m1", 0, 3, 1);  // one type: the batch's records
  const auto& m = env.mgr->metrics();
  CHECK(m.acknowledged(1) == 4);
  CHECK(m.share_acknowledgement_requests().value() == 1);
  // Per-record types: one each.
  SharePartitionManager::AckResults r;
  env.mgr->acknowledge("g", "m1", {{env.tp, {AcknowledgementBatch{4, 6, {2, 3, 3}}}}},
                       [&](SharePartitionManager::AckResults x) { r = std::move(x); });
  REQUIRE(r.size() == 1);
  CHECK(r[0].second.ok());
  CHECK(m.acknowledged(2) == 1);
  CHECK(m.acknowledged(3) == 2);
  CHECK(m.failed_share_acknowledgement_requests().value() == 0);
  // Two partitions of one topic: one request; the unloaded one fails.
  env.mgr->acknowledge(
      "g", "m1", {{env.tp, {AcknowledgementBatch{7, 9, {1}}}}, {{topic_id(), 5}, {AcknowledgementBatch{0, 1, {1}}}}},
      [&](SharePartitionManager::AckResults x) { r = std::move(x); });
  CHECK(m.share_acknowledgement_requests().value() == 3);
  CHECK(m.failed_share_acknowledgement_requests().value() == 1);
  CHECK(m.acknowledged(1) == 7);
  // A failed write (nothing changed) counts no records.
  env.acquire("m1", 10, 19);
  env.persister.write_error = ErrorCode::kCoordinatorNotAvailable;
  env.ack("m1", 10, 19, 1);
  CHECK(m.acknowledged(1) == 7);
  CHECK(m.failed_share_acknowledgement_requests().value() == 2);
}

TEST_CASE("share metrics: in-flight records and batches, lock timeouts per partition and in all") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  CHECK(env.mgr->partition_stats().size() == 1);
  CHECK(env.mgr->partition_stats()[0].in_flight_records == 0);
  env.acquire("m1", 0, 9);
  env.acquire("m1", 10, 14);
  auto stats = env.mgr->partition_stats();
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].group_id == "g");
  CHECK(stats[0].tp == env.tp);
  CHECK(stats[0].in_flight_records == 15);
  CHECK(stats[0].in_flight_batches == 2);
  CHECK(stats[0].lock_timeouts == 0);
  env.ack("m1", 0, 9, 1);   // the start offset moves past the acknowledged batch
  env.time.advance(30000);  // 10..14's lock expires
  stats = env.mgr->partition_stats();
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].lock_timeouts == 5);
  CHECK(stats[0].start_offset == 10);
  CHECK(stats[0].in_flight_records == 5);
  CHECK(env.mgr->metrics().acquisition_lock_timeouts().value() == 5);
}

TEST_CASE("share metrics: a session whose connection closed is an eviction, a closed one is not") {
  MgrEnv env;
  REQUIRE(env.init().ok());
  REQUIRE(env.mgr->sessions().new_context("g", "m1", 0, {env.tp}, {}, false, "c1").error.ok());
  REQUIRE(env.mgr->sessions().new_context("g", "m2", 0, {env.tp}, {}, false, "c2").error.ok());
  env.mgr->release_session("g", "m2", [](const ShareResult&, const SharePartitionManager::AckResults&) {});
  CHECK(env.mgr->metrics().session_evictions().value() == 0);
  env.mgr->on_disconnect("c2");  // already closed: nothing removed
  CHECK(env.mgr->metrics().session_evictions().value() == 0);
  env.mgr->on_disconnect("c1");
  CHECK(env.mgr->metrics().session_evictions().value() == 1);
}

// A DLQ port enabled for group "g" only, whose done() runs when the test says.
struct FakeDeadLetters : DeadLetterQueue {
  std::vector<DeadLetterRecords> sent;
  std::vector<std::function<void()>> pending;
  bool enabled(const std::string& group_id) const override { return group_id == "g"; }
  void enqueue(DeadLetterRecords r, std::function<void()> done) override {
    sent.push_back(std::move(r));
    pending.push_back(std::move(done));
  }
};

TEST_CASE("the manager hands its partitions the DLQ port: REJECT -> ARCHIVING -> done -> ARCHIVED persisted") {
  FakeDeadLetters dlq;
  MgrEnv env(&dlq);
  REQUIRE(env.init().ok());
  env.acquire("m1", 0, 2);
  auto r = env.ack("m1", 0, 2, 3);
  REQUIRE(r.size() == 1);
  CHECK(r[0].second.ok());
  REQUIRE(dlq.sent.size() == 1);
  CHECK(dlq.sent[0].group_id == "g");
  CHECK(dlq.sent[0].topic_id == env.tp.topic_id);
  CHECK(dlq.sent[0].cause == kDlqClientReject);
  CHECK(env.state(0) == RecordState::kArchiving);
  CHECK(env.persister.written.back().batches[0].delivery_state == 3);
  dlq.pending[0]();  // from another thread in the broker: takes the partition's lock
  CHECK(env.persister.written.back().batches[0].delivery_state == 4);
  int64_t start = -1;
  env.mgr->with_partition("g", env.tp, [&](SharePartition& sp) { start = sp.start_offset(); });
  CHECK(start == 3);  // ARCHIVED: the start offset moved past
}

}  // namespace
}  // namespace skiff::share
