// OffsetCommit / TxnOffsetCommit / OffsetFetch on a KIP-848 consumer group:
// Kafka 4.4's member checks (ConsumerGroup.validateOffsetCommit with
// KIP-1251's per-partition assignment epochs, validateOffsetFetch), and the
// assignment epochs surviving a restart (the AssignmentEpochs of the
// ConsumerGroupCurrentMemberAssignment record).
#include "coordinator/group/consumer_offset_checks.h"
#include "tests/coordinator/group/consumer_group_support.h"

using namespace skiff;
using namespace skiff::test;

namespace {

OffsetCommitParams commit(const std::string& member, int32_t epoch, const std::set<int32_t>& ps, int16_t version = 10) {
  OffsetCommitParams p;
  p.group_id = "g";
  p.member_id = member;
  p.generation_id = epoch;
  p.api_version = version;
  for (int32_t part : ps) {
    OffsetAndMetadata o;
    o.offset = 42;
    p.offsets.push_back({{"foo", part}, o});
    p.topic_ids.push_back(kFoo);
  }
  return p;
}

ErrorCode first_error(const std::vector<ErrorCode>& errors) {
  for (auto e : errors)
    if (e != ErrorCode::kNone) return e;
  return ErrorCode::kNone;
}

// a (epoch 1, all four partitions) is joined by b; a revokes two and moves to
// epoch 2 keeping the other two, which it holds since epoch 1. Returns a's
// kept partitions.
std::set<int32_t> a_keeps_two_since_epoch_1(Members& m) {
  m.join("a");
  m.join("b");
  auto a = m.beat("a", 1, parts({0, 1, 2, 3}));
  REQUIRE(a.assignment);
  auto a2 = m.beat("a", 1, a.assignment);
  REQUIRE(a2.member_epoch == 2);
  return a.assignment->at(kFoo);
}

}  // namespace

TEST_CASE("consumer offsets: an older epoch commits only partitions held since then", "[groups][kip848]") {
  GroupFixture f;
  Members m(f.c());
  auto kept = a_keeps_two_since_epoch_1(m);
  std::set<int32_t> revoked;
  for (int32_t p : {0, 1, 2, 3})
    if (!kept.contains(p)) revoked.insert(p);

  CHECK(first_error(f.c().commit_offsets(commit("a", 2, kept))) == ErrorCode::kNone);
  // KIP-1251: a commit sent at epoch 1 (racing the epoch bump) for partitions held since epoch 1.
  CHECK(first_error(f.c().commit_offsets(commit("a", 1, kept))) == ErrorCode::kNone);
  // Not a's any more: the whole commit is refused.
  auto mixed = kept;
  mixed.insert(*revoked.begin());
  CHECK(f.c().commit_offsets(commit("a", 1, mixed)) ==
        std::vector<ErrorCode>(mixed.size(), ErrorCode::kStaleMemberEpoch));
  CHECK(first_error(f.c().commit_offsets(commit("a", 3, kept))) == ErrorCode::kStaleMemberEpoch);  // newer
  CHECK(first_error(f.c().commit_offsets(commit("zz", 2, kept))) == ErrorCode::kUnknownMemberId);
  CHECK(first_error(f.c().commit_offsets(commit("", -1, kept))) == ErrorCode::kUnknownMemberId);  // group not empty
  CHECK(first_error(f.c().commit_offsets(commit("a", 2, kept, 8))) == ErrorCode::kUnsupportedVersion);

  // b got the revoked partitions at epoch 2: a commit at epoch 1 for them is older than that.
  auto b = m.beat("b", 2, consumer::Assignment{});
  REQUIRE(b.assignment == parts(revoked));
  CHECK(first_error(f.c().commit_offsets(commit("b", 2, revoked))) == ErrorCode::kNone);
  auto g = f.c().describe_consumer_group("g");
  REQUIRE(g.members.size() == 2);
}

TEST_CASE("consumer offsets: the checks' messages are Kafka's", "[groups][kip848]") {
  ConsumerGroup cg;
  auto& m = cg.members["a"];
  m.member_id = "a";
  m.assignment.member_epoch = 5;
  m.assignment.assigned = {{kFoo, {0, 1}}};
  m.assignment.assignment_epochs = {{kFoo, {{0, 3}, {1, 5}}}};
  consumer::CommitIdentity who{"a", std::nullopt, 4, false, 10};
  std::vector<consumer::CommitPartition> p0{{"foo", kFoo, 0}}, p1{{"foo", kFoo, 1}}, p2{{"foo", kFoo, 2}};
  CHECK(consumer::check_commit(cg, "g", who, p0).error == ErrorCode::kNone);
  auto older = consumer::check_commit(cg, "g", who, p1);
  CHECK(older.error == ErrorCode::kStaleMemberEpoch);
  CHECK(older.message == "Received member epoch 4 is older than assignment epoch 5 for partition foo-1.");
  CHECK(consumer::check_commit(cg, "g", who, p2).message ==
        "Partition foo-2 is not assigned or pending revocation for member.");
  who.member_epoch = 6;
  CHECK(consumer::check_commit(cg, "g", who, p0).message ==
        "Received member epoch 6 is newer than current member epoch 5.");
  // A transactional commit without group metadata, and an admin's commit to an empty group.
  CHECK(consumer::check_commit(cg, "g", {"", std::nullopt, -1, true, 0}, p2).error == ErrorCode::kNone);
  CHECK(consumer::check_commit(ConsumerGroup{}, "g", {"", std::nullopt, -1, false, 0}, p2).error == ErrorCode::kNone);
  auto fetch = consumer::check_fetch(cg, "g", std::string("a"), 4);
  CHECK(fetch.error == ErrorCode::kStaleMemberEpoch);
  CHECK(fetch.message == "The received member epoch 4 does not match the expected member epoch 5.");
  CHECK(consumer::check_fetch(cg, "g", std::string("x"), 5).message == "Member x is not a member of group g.");
}

TEST_CASE("consumer offsets: OffsetFetch checks the member and its epoch", "[groups][kip848]") {
  GroupFixture f;
  Members m(f.c());
  a_keeps_two_since_epoch_1(m);
  CHECK(f.c().fetch_offsets("g", std::nullopt, false, std::string("a"), 2).error == ErrorCode::kNone);
  CHECK(f.c().fetch_offsets("g", std::nullopt, false, std::string("a"), 1).error == ErrorCode::kStaleMemberEpoch);
  CHECK(f.c().fetch_offsets("g", std::nullopt, false, std::string("zz"), 2).error == ErrorCode::kUnknownMemberId);
  CHECK(f.c().fetch_offsets("g", std::nullopt, false, std::nullopt, -1).error == ErrorCode::kNone);  // an admin
}

TEST_CASE("consumer offsets: a consumer member's TxnOffsetCommit is checked by epoch", "[groups][kip848]") {
  GroupFixture f;
  Members m(f.c());
  auto kept = a_keeps_two_since_epoch_1(m);
  TxnOffsetCommitParams p;
  p.group_id = "g";
  p.producer_id = 7;
  p.producer_epoch = 0;
  p.member_id = "a";
  p.generation_id = 2;
  p.api_version = 5;
  for (int32_t part : kept) {
    p.offsets.push_back({{"foo", part}, OffsetAndMetadata{}});
    p.topic_ids.push_back(kFoo);
  }
  CHECK(first_error(f.c().commit_txn_offsets(p)) == ErrorCode::kNone);
  p.generation_id = 3;  // newer: STALE_MEMBER_EPOCH, which TxnOffsetCommit v5 spells ILLEGAL_GENERATION
  CHECK(first_error(f.c().commit_txn_offsets(p)) == ErrorCode::kIllegalGeneration);
  p.api_version = 6;
  CHECK(first_error(f.c().commit_txn_offsets(p)) == ErrorCode::kStaleMemberEpoch);
}

TEST_CASE("consumer offsets: assignment epochs survive a restart", "[groups][kip848][durability]") {
  GroupFixture f;
  Members m(f.c());
  auto kept = a_keeps_two_since_epoch_1(m);
  f.restart();
  CHECK(first_error(f.c().commit_offsets(commit("a", 1, kept))) == ErrorCode::kNone);
  auto one_more = kept;
  for (int32_t p : {0, 1, 2, 3}) one_more.insert(p);
  CHECK(first_error(f.c().commit_offsets(commit("a", 1, one_more))) == ErrorCode::kStaleMemberEpoch);
}
