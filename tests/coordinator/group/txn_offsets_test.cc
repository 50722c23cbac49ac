// Transactional offsets (KIP-447) in the GroupCoordinator: TxnOffsetCommit
// keeps offsets pending per (group, producer id) until the marker of the
// group's __consumer_offsets partition commits or drops them; durable across
// a restart; OffsetFetch with require_stable; member / generation checks and
// the producer epoch rules of Kafka 4.4.
#include <signal.h>
#include <sys/wait.h>

#include "common/kafka_hash.h"
#include "log/batch_builder.h"
#include "log/log.h"
#include "tests/coordinator/group/group_fixture.h"

namespace skiff::test {
namespace {

const TopicPartition kTp{"topic", 0};

TxnOffsetCommitParams txn_commit(const std::string& group, int64_t pid, int16_t epoch, int64_t offset,
                                 const TopicPartition& tp = kTp) {
  TxnOffsetCommitParams p;
  p.group_id = group;
  p.producer_id = pid;
  p.producer_epoch = epoch;
  p.api_version = 4;
  OffsetAndMetadata o;
  o.offset = offset;
  p.offsets.push_back({tp, o});
  return p;
}

ErrorCode marker(GroupCoordinator& c, const std::string& group, int64_t pid, int16_t epoch, bool commit) {
  std::optional<ErrorCode> got;
  c.on_marker(pid, epoch, commit, c.offsets_partition_for(group), [&](ErrorCode e) { got = e; });
  REQUIRE(got.has_value());  // answered before on_marker returns
  return *got;
}

int64_t committed(GroupCoordinator& c, const std::string& group, const TopicPartition& tp = kTp, bool stable = false) {
  auto r = c.fetch_offsets(group, std::vector<TopicPartition>{tp}, stable);
  REQUIRE(r.offsets.size() == 1);
  if (r.offsets[0].error != ErrorCode::kNone) return -100 - static_cast<int>(r.offsets[0].error);
  return r.offsets[0].committed ? r.offsets[0].committed->offset : -1;
}

constexpr int64_t kUnstable = -100 - static_cast<int>(ErrorCode::kUnstableOffsetCommit);

void plain_commit(GroupCoordinator& c, const std::string& group, int64_t offset) {
  OffsetCommitParams p;
  p.group_id = group;
  OffsetAndMetadata o;
  o.offset = offset;
  p.offsets.push_back({kTp, o});
  REQUIRE(c.commit_offsets(p) == std::vector<ErrorCode>{ErrorCode::kNone});
}

}  // namespace

TEST_CASE("the offsets partition is Kafka's abs(String.hashCode) % partitions", "[groups][txn]") {
  CHECK(offsets_partition_for("my-group", 50) == 12);
  CHECK(offsets_partition_for("gr\xc3\xbcppe-\xf0\x9f\x98\x80", 50) == 14);
}

TEST_CASE("pending transactional offsets: invisible until COMMIT, dropped on ABORT", "[groups][txn]") {
  GroupFixture f;
  auto& c = f.c();
  REQUIRE(c.commit_txn_offsets(txn_commit("g", 7, 0, 42)) == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(committed(c, "g") == -1);
  CHECK(committed(c, "g", kTp, /*stable=*/true) == kUnstable);
  CHECK(marker(c, "g", 7, 0, /*commit=*/true) == ErrorCode::kNone);
  CHECK(committed(c, "g") == 42);
  CHECK(committed(c, "g", kTp, true) == 42);

  REQUIRE(c.commit_txn_offsets(txn_commit("g", 7, 0, 50)) == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(committed(c, "g", kTp, true) == kUnstable);
  CHECK(committed(c, "g") == 42);
  CHECK(marker(c, "g", 7, 0, /*commit=*/false) == ErrorCode::kNone);
  CHECK(committed(c, "g", kTp, true) == 42);

  // A marker of another partition leaves the group alone.
  REQUIRE(c.commit_txn_offsets(txn_commit("g", 7, 0, 60)) == std::vector<ErrorCode>{ErrorCode::kNone});
  std::optional<ErrorCode> got;
  c.on_marker(7, 0, true, (c.offsets_partition_for("g") + 1) % 50, [&](ErrorCode e) { got = e; });
  CHECK(got == ErrorCode::kNone);
  CHECK(committed(c, "g", kTp, true) == kUnstable);
}

// Issue 57: the input records a transaction's offsets point at are durable
// before those offsets are written (as for OffsetCommit, offsets_test.cc).
TEST_CASE("TxnOffsetCommit makes its partition durable up to the offset first", "[groups][txn][durability]") {
  GroupFixture f;
  REQUIRE(f.logs->create_topic("in", 1));
  auto log = f.logs->get_log("in", 0);
  REQUIRE(log);
  auto b = storage::make_test_batch(6, 50, 1000, 3);
  REQUIRE(log->append(b));
  REQUIRE(log->recovery_point().value == 0);
  REQUIRE(f.c().commit_txn_offsets(txn_commit("g", 7, 0, 4, {"in", 0})) == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(log->recovery_point().value >= 4);
}

TEST_CASE("pending offsets and their outcome survive a restart", "[groups][txn][durability]") {
  GroupFixture f;
  REQUIRE(f.c().commit_txn_offsets(txn_commit("g", 7, 3, 42)) == std::vector<ErrorCode>{ErrorCode::kNone});
  REQUIRE(f.c().commit_txn_offsets(txn_commit("h", 8, 0, 9)) == std::vector<ErrorCode>{ErrorCode::kNone});
  f.restart();
  CHECK(committed(f.c(), "g", kTp, true) == kUnstable);
  // The epoch seen before the restart still fences an older one.
  CHECK(f.c().commit_txn_offsets(txn_commit("g", 7, 2, 1)) == std::vector<ErrorCode>{ErrorCode::kInvalidProducerEpoch});
  CHECK(marker(f.c(), "g", 7, 3, true) == ErrorCode::kNone);
  CHECK(marker(f.c(), "h", 8, 0, false) == ErrorCode::kNone);
  f.restart();
  CHECK(committed(f.c(), "g", kTp, true) == 42);
  CHECK(committed(f.c(), "h", kTp, true) == -1);
  // A second transaction of another producer after the first one's marker.
  REQUIRE(f.c().commit_txn_offsets(txn_commit("g", 9, 0, 77)) == std::vector<ErrorCode>{ErrorCode::kNone});
  f.restart();
  CHECK(committed(f.c(), "g", kTp, true) == kUnstable);
  CHECK(marker(f.c(), "g", 9, 0, true) == ErrorCode::kNone);
  CHECK(committed(f.c(), "g", kTp, true) == 77);
}

TEST_CASE("a plain commit written after a pending offset wins over its COMMIT", "[groups][txn]") {
  GroupFixture f;
  auto& c = f.c();
  REQUIRE(c.commit_txn_offsets(txn_commit("g", 7, 0, 10)) == std::vector<ErrorCode>{ErrorCode::kNone});
  plain_commit(c, "g", 20);
  CHECK(committed(c, "g", kTp, true) == kUnstable);  // still a transaction open on it
  f.restart();
  CHECK(marker(f.c(), "g", 7, 0, true) == ErrorCode::kNone);
  CHECK(committed(f.c(), "g") == 20);
}

TEST_CASE("a COMMIT supersedes other producers' older pending offsets", "[groups][txn]") {
  GroupFixture f;
  auto& c = f.c();
  REQUIRE(c.commit_txn_offsets(txn_commit("g", 1, 0, 10)) == std::vector<ErrorCode>{ErrorCode::kNone});
  REQUIRE(c.commit_txn_offsets(txn_commit("g", 2, 0, 20)) == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(marker(c, "g", 2, 0, true) == ErrorCode::kNone);
  CHECK(marker(c, "g", 1, 0, true) == ErrorCode::kNone);
  CHECK(committed(c, "g") == 20);
}

TEST_CASE("producer epochs: an older TxnOffsetCommit or marker is refused", "[groups][txn]") {
  GroupFixture f;
  auto& c = f.c();
  REQUIRE(c.commit_txn_offsets(txn_commit("g", 7, 5, 10)) == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(c.commit_txn_offsets(txn_commit("g", 7, 4, 11)) == std::vector<ErrorCode>{ErrorCode::kInvalidProducerEpoch});
  // A late marker of a fenced epoch must not end the newer transaction.
  CHECK(marker(c, "g", 7, 4, true) == ErrorCode::kInvalidProducerEpoch);
  CHECK(committed(c, "g", kTp, true) == kUnstable);
  CHECK(marker(c, "g", 7, 5, true) == ErrorCode::kNone);
  CHECK(committed(c, "g") == 10);
}

TEST_CASE("TxnOffsetCommit v3+ checks member, generation and instance id", "[groups][txn]") {
  GroupFixture f;
  auto& c = f.c();
  auto [member, generation] = f.stable_single("g");
  auto p = txn_commit("g", 7, 0, 10);
  p.generation_id = generation;
  p.member_id = "someone-else";
  CHECK(c.commit_txn_offsets(p) == std::vector<ErrorCode>{ErrorCode::kUnknownMemberId});
  p.member_id = member;
  p.generation_id = generation + 1;
  CHECK(c.commit_txn_offsets(p) == std::vector<ErrorCode>{ErrorCode::kIllegalGeneration});
  p.generation_id = generation;
  CHECK(c.commit_txn_offsets(p) == std::vector<ErrorCode>{ErrorCode::kNone});
  // Without member id and generation (v0-2): accepted even for an active group.
  CHECK(c.commit_txn_offsets(txn_commit("g", 8, 0, 11)) == std::vector<ErrorCode>{ErrorCode::kNone});
  // An unknown group with a generation: ILLEGAL_GENERATION, GROUP_ID_NOT_FOUND from v6.
  auto q = txn_commit("nope", 7, 0, 1);
  q.generation_id = 1;
  q.member_id = "m";
  CHECK(c.commit_txn_offsets(q) == std::vector<ErrorCode>{ErrorCode::kIllegalGeneration});
  q.api_version = 6;
  CHECK(c.commit_txn_offsets(q) == std::vector<ErrorCode>{ErrorCode::kGroupIdNotFound});
}

TEST_CASE("static members: a stale instance's TxnOffsetCommit is FENCED_INSTANCE_ID", "[groups][txn]") {
  GroupFixture f;
  auto jp = join_params("g");
  jp.group_instance_id = "instance-1";
  auto j = f.join(jp);
  REQUIRE(j.error == ErrorCode::kNone);
  auto p = txn_commit("g", 7, 0, 10);
  p.generation_id = j.generation_id;
  p.member_id = "old-member-id";
  p.group_instance_id = "instance-1";
  CHECK(f.c().commit_txn_offsets(p) == std::vector<ErrorCode>{ErrorCode::kFencedInstanceId});
}

TEST_CASE("deleting offsets or the group drops pending offsets, expiry keeps them", "[groups][txn]") {
  GroupFixture f;
  auto& c = f.c();
  REQUIRE(c.commit_txn_offsets(txn_commit("g", 7, 0, 10)) == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(c.expire_offsets(INT64_MAX / 2) == 0);
  CHECK(c.group_count() == 1);
  auto d = c.delete_offsets("g", {kTp});
  CHECK(d.partitions == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(committed(c, "g", kTp, true) == -1);
  CHECK(marker(c, "g", 7, 0, true) == ErrorCode::kNone);
  CHECK(committed(c, "g") == -1);

  REQUIRE(c.commit_txn_offsets(txn_commit("g", 7, 0, 11)) == std::vector<ErrorCode>{ErrorCode::kNone});
  CHECK(c.delete_groups({"g"}) == std::vector<ErrorCode>{ErrorCode::kNone});
  f.restart();
  CHECK(marker(f.c(), "g", 7, 0, true) == ErrorCode::kNone);
  CHECK(committed(f.c(), "g") == -1);
}

}  // namespace skiff::test

namespace skiff::test {

// A child process acknowledges a TxnOffsetCommit and a marker, then dies by
// SIGKILL (no destructor, no close): what was acknowledged is on disk.
TEST_CASE("acknowledged pending offsets and markers survive kill -9", "[groups][txn][durability]") {
  GroupFixture f;
  f.stop();
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    storage::LogManager logs(f.log_config());
    GroupCoordinator c(GroupFixture::test_config(), logs);
    bool ok = c.commit_txn_offsets(txn_commit("g", 7, 0, 42)) == std::vector<ErrorCode>{ErrorCode::kNone} &&
              c.commit_txn_offsets(txn_commit("h", 8, 0, 43)) == std::vector<ErrorCode>{ErrorCode::kNone};
    std::optional<ErrorCode> done;
    c.on_marker(8, 0, true, c.offsets_partition_for("h"), [&](ErrorCode e) { done = e; });
    if (!ok || done != ErrorCode::kNone) _exit(1);
    kill(getpid(), SIGKILL);
    _exit(2);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  f.start();
  CHECK(committed(f.c(), "g", kTp, true) == kUnstable);
  CHECK(committed(f.c(), "h", kTp, true) == 43);
  CHECK(marker(f.c(), "g", 7, 0, true) == ErrorCode::kNone);
  CHECK(committed(f.c(), "g", kTp, true) == 42);
}

}  // namespace skiff::test
