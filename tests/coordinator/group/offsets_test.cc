// GroupCoordinator: committed offsets — commit validation, fetch, delete,
// expiry, and what survives a restart.
#include "log/batch_builder.h"
#include "log/log.h"
#include "tests/coordinator/group/group_fixture.h"

using namespace skiff;
using namespace skiff::test;

namespace {

OffsetCommitParams commit(const std::string& group, const std::vector<std::pair<TopicPartition, int64_t>>& offsets,
                          int32_t generation = -1, std::string member = "") {
  OffsetCommitParams p;
  p.group_id = group;
  p.generation_id = generation;
  p.member_id = std::move(member);
  for (const auto& [tp, off] : offsets) {
    OffsetAndMetadata o;
    o.offset = off;
    o.leader_epoch = 3;
    o.metadata = "meta-" + std::to_string(off);
    o.commit_timestamp = 1000;
    p.offsets.push_back({tp, o});
  }
  return p;
}

std::optional<OffsetAndMetadata> fetched(GroupCoordinator& c, const std::string& group, const TopicPartition& tp) {
  auto r = c.fetch_offsets(group, std::vector<TopicPartition>{tp});
  REQUIRE(r.offsets.size() == 1);
  return r.offsets[0].committed;
}

}  // namespace

TEST_CASE("a commit from outside group management creates the group", "[groups][offsets]") {
  GroupFixture f;
  auto errs = f.c().commit_offsets(commit("g", {{{"t", 0}, 5}, {{"t", 1}, 9}}));
  CHECK(errs == std::vector<ErrorCode>{ErrorCode::kNone, ErrorCode::kNone});
  auto o = fetched(f.c(), "g", {"t", 1});
  REQUIRE(o);
  CHECK(o->offset == 9);
  CHECK(o->leader_epoch == 3);
  CHECK(o->metadata == "meta-9");
  CHECK_FALSE(fetched(f.c(), "g", {"t", 2}));
  CHECK_FALSE(fetched(f.c(), "other", {"t", 0}));
  auto all = f.c().fetch_offsets("g", std::nullopt);
  CHECK(all.offsets.size() == 2);
  auto groups = f.c().list_groups();
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].state == "Empty");
  CHECK(groups[0].protocol_type.empty());
}

TEST_CASE("commit validation against the group's generation and members", "[groups][offsets]") {
  auto cfg = GroupFixture::test_config();
  cfg.offset_metadata_max_bytes = 10;
  GroupFixture f(cfg);
  CHECK(f.c().commit_offsets(commit("g", {{{"t", 0}, 1}}, 1, "m"))[0] == ErrorCode::kIllegalGeneration);
  auto j = f.join(join_params("g"));
  // Generation known, assignment not yet: REBALANCE_IN_PROGRESS.
  CHECK(f.c().commit_offsets(commit("g", {{{"t", 0}, 1}}, 1, j.member_id))[0] == ErrorCode::kRebalanceInProgress);
  REQUIRE(f.start_sync("g", 1, j.member_id).get().error == ErrorCode::kNone);
  CHECK(f.c().commit_offsets(commit("g", {{{"t", 0}, 1}}, 1, j.member_id))[0] == ErrorCode::kNone);
  CHECK(f.c().commit_offsets(commit("g", {{{"t", 0}, 1}}, 0, j.member_id))[0] == ErrorCode::kIllegalGeneration);
  CHECK(f.c().commit_offsets(commit("g", {{{"t", 0}, 1}}, 1, "nobody"))[0] == ErrorCode::kUnknownMemberId);
  // A simple commit while the group has members.
  CHECK(f.c().commit_offsets(commit("g", {{{"t", 0}, 1}}))[0] == ErrorCode::kUnknownMemberId);
  auto big = commit("g", {{{"t", 0}, 2}, {{"t", 1}, 3}}, 1, j.member_id);
  big.offsets[0].second.metadata = std::string(11, 'x');
  auto errs = f.c().commit_offsets(big);
  CHECK(errs[0] == ErrorCode::kOffsetMetadataTooLarge);
  CHECK(errs[1] == ErrorCode::kNone);
  CHECK(fetched(f.c(), "g", {"t", 0})->offset == 1);
}

TEST_CASE("offsets and groups survive a restart", "[groups][offsets][durability]") {
  GroupFixture f;
  auto [a, gen] = f.stable_single("g");
  REQUIRE(f.c().commit_offsets(commit("g", {{{"t", 0}, 42}}, gen, a))[0] == ErrorCode::kNone);
  REQUIRE(f.c().commit_offsets(commit("g", {{{"t", 0}, 43}}, gen, a))[0] == ErrorCode::kNone);
  REQUIRE(f.c().commit_offsets(commit("simple", {{{"u", 3}, 7}}))[0] == ErrorCode::kNone);
  f.restart();
  auto o = fetched(f.c(), "g", {"t", 0});
  REQUIRE(o);
  CHECK(o->offset == 43);
  CHECK(o->metadata == "meta-43");
  CHECK(o->leader_epoch == 3);
  CHECK(fetched(f.c(), "simple", {"u", 3})->offset == 7);
  auto d = f.c().describe_group("g");
  CHECK(d.state == "Empty");  // members are not kept across restarts
  CHECK(d.protocol_type == "consumer");
  CHECK(f.c().list_groups().size() == 2);
  // The next generation follows the stored one.
  auto j = f.join(join_params("g"));
  CHECK(j.generation_id == gen + 1);
}

// Issue 57: a commit written to __consumer_offsets (fsynced before its
// answer) must never point past the durable end of its partition, or after a
// power cut the group skips whatever is written there later.
TEST_CASE("a commit makes its partition durable up to the committed offset first", "[groups][offsets][durability]") {
  GroupFixture f;
  REQUIRE(f.logs->create_topic("t", 2));
  auto log = f.logs->get_log("t", 0);
  REQUIRE(log);
  for (int i = 0; i < 3; ++i) {
    auto b = storage::make_test_batch(4, 100, 1000 + i, static_cast<uint64_t>(i));
    REQUIRE(log->append(b));
  }
  REQUIRE(log->log_end_offset().value == 12);
  REQUIRE(log->recovery_point().value == 0);  // default settings: nothing flushed yet
  CHECK(f.c().commit_offsets(commit("g", {{{"t", 0}, 5}}))[0] == ErrorCode::kNone);
  CHECK(log->recovery_point().value >= 5);
  // Past the end: the partition is made durable to its end; the commit stands.
  auto more = storage::make_test_batch(2, 100, 2000, 9);
  REQUIRE(log->append(more));
  CHECK(f.c().commit_offsets(commit("g", {{{"t", 0}, 100}, {{"t", 1}, 0}, {{"absent", 0}, 7}})) ==
        std::vector<ErrorCode>(3, ErrorCode::kNone));
  CHECK(log->recovery_point().value == 14);
  CHECK(fetched(f.c(), "g", {"t", 0})->offset == 100);
}

TEST_CASE("DeleteGroups removes empty groups and their offsets, durably", "[groups][admin]") {
  GroupFixture f;
  REQUIRE(f.c().commit_offsets(commit("empty", {{{"t", 0}, 1}}))[0] == ErrorCode::kNone);
  auto [a, gen] = f.stable_single("busy");
  auto r = f.c().delete_groups({"empty", "busy", "none"});
  CHECK(r == std::vector<ErrorCode>{ErrorCode::kNone, ErrorCode::kNonEmptyGroup, ErrorCode::kGroupIdNotFound});
  CHECK(f.c().describe_group("empty").state == "Dead");
  CHECK_FALSE(fetched(f.c(), "empty", {"t", 0}));
  f.restart();
  CHECK_FALSE(fetched(f.c(), "empty", {"t", 0}));
  CHECK(f.c().list_groups().size() == 1);  // "busy" (now Empty)
}

TEST_CASE("OffsetDelete refuses partitions of subscribed topics", "[groups][admin]") {
  GroupFixture f;
  CHECK(f.c().delete_offsets("none", {{"t", 0}}).error == ErrorCode::kGroupIdNotFound);
  auto [a, gen] = f.stable_single("g");  // subscribed to "topic"
  REQUIRE(f.c().commit_offsets(commit("g", {{{"topic", 0}, 1}, {{"other", 0}, 2}}, gen, a))[0] == ErrorCode::kNone);
  auto r = f.c().delete_offsets("g", {{"topic", 0}, {"other", 0}});
  CHECK(r.error == ErrorCode::kNone);
  CHECK(r.partitions == std::vector<ErrorCode>{ErrorCode::kGroupSubscribedToTopic, ErrorCode::kNone});
  CHECK(fetched(f.c(), "g", {"topic", 0}));
  CHECK_FALSE(fetched(f.c(), "g", {"other", 0}));
  f.c().leave_group("g", {{a, std::nullopt}});
  CHECK(f.c().delete_offsets("g", {{"topic", 0}}).partitions[0] == ErrorCode::kNone);
  f.restart();
  CHECK_FALSE(fetched(f.c(), "g", {"topic", 0}));
}

TEST_CASE("offsets of empty groups expire after offsets.retention.ms", "[groups][offsets][retention]") {
  auto cfg = GroupFixture::test_config();
  cfg.offsets_retention_ms = 1000;
  GroupFixture f(cfg);
  auto p = commit("simple", {{{"t", 0}, 1}});  // commit timestamp 1000
  REQUIRE(f.c().commit_offsets(p)[0] == ErrorCode::kNone);
  auto [a, gen] = f.stable_single("active");
  REQUIRE(f.c().commit_offsets(commit("active", {{{"t", 0}, 5}}, gen, a))[0] == ErrorCode::kNone);
  auto explicit_retention = commit("explicit", {{{"t", 0}, 1}});
  explicit_retention.offsets[0].second.expire_timestamp = 5000;
  REQUIRE(f.c().commit_offsets(explicit_retention)[0] == ErrorCode::kNone);

  CHECK(f.c().expire_offsets(1500) == 0);
  CHECK(f.c().expire_offsets(2000) == 1);                 // "simple": commit + retention
  CHECK(f.c().describe_group("simple").state == "Dead");  // and the empty group goes
  CHECK(f.c().expire_offsets(10'000'000'000'000) == 1);   // "explicit"; "active" has a member
  CHECK(fetched(f.c(), "active", {"t", 0}));
  f.restart();
  CHECK_FALSE(fetched(f.c(), "simple", {"t", 0}));
  CHECK(f.c().list_groups().size() == 1);
}
