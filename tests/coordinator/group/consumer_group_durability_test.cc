// KIP-848's consumer groups are durable: their ConsumerGroup* records in
// __consumer_offsets bring back members, epochs, targets and current
// assignments after a restart and after kill -9 (what a heartbeat answered
// is on disk), and the tombstones of a leave or a DeleteGroups stay applied.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/coordinator/group/consumer_group_support.h"

using namespace skiff;
using namespace skiff::test;

namespace {

// a and b share "foo" (two partitions each), both reconciled at epoch 2.
void settle_two_members(GroupCoordinator& c, consumer::Assignment& a_parts, consumer::Assignment& b_parts) {
  Members m(c);
  m.join("a", "inst-a");
  m.join("b");
  auto a = m.beat("a", 1, parts({0, 1, 2, 3}));
  a_parts = *a.assignment;
  m.beat("a", 1, a_parts);
  b_parts = *m.beat("b", 2, consumer::Assignment{}).assignment;
}

void check_settled(GroupCoordinator& c, const consumer::Assignment& a_parts, const consumer::Assignment& b_parts) {
  auto d = c.describe_consumer_group("g");
  REQUIRE(d.error == ErrorCode::kNone);
  CHECK(d.group_epoch == 2);
  CHECK(d.assignment_epoch == 2);
  REQUIRE(d.members.size() == 2);
  CHECK(d.members[0].member_id == "a");
  CHECK(d.members[0].instance_id == "inst-a");
  CHECK(d.members[0].member_epoch == 2);
  CHECK(d.members[0].assigned == a_parts);
  CHECK(d.members[0].target == a_parts);
  CHECK(d.members[0].subscribed_names == std::vector<std::string>{"foo"});
  CHECK(d.members[1].member_epoch == 2);
  CHECK(d.members[1].assigned == b_parts);
  // The members carry on at their epochs: nobody is fenced, nothing moves.
  Members m(c);
  auto a = m.beat("a", 2, a_parts);
  CHECK(a.error == ErrorCode::kNone);
  CHECK(a.member_epoch == 2);  // the metadata hash came back: no epoch bump
  CHECK(m.beat("b", 2, b_parts).error == ErrorCode::kNone);
  CHECK(m.join("a2", "inst-a").error == ErrorCode::kUnreleasedInstanceId);  // the static id came back too
}

}  // namespace

TEST_CASE("consumer group: members, epochs and assignments survive a restart", "[groups][kip848][durability]") {
  GroupFixture f;
  consumer::Assignment a_parts, b_parts;
  settle_two_members(f.c(), a_parts, b_parts);
  f.restart();
  check_settled(f.c(), a_parts, b_parts);
}

TEST_CASE("consumer group: a leave and a DeleteGroups stay applied after a restart", "[groups][kip848][durability]") {
  GroupFixture f;
  consumer::Assignment a_parts, b_parts;
  settle_two_members(f.c(), a_parts, b_parts);
  Members m(f.c());
  REQUIRE(m.leave("b").error == ErrorCode::kNone);
  f.restart();
  auto d = f.c().describe_consumer_group("g");
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].member_id == "a");
  CHECK(d.group_epoch == 3);

  Members again(f.c());
  REQUIRE(again.leave("a", -1, "inst-a").error == ErrorCode::kNone);
  REQUIRE(f.c().delete_groups({"g"}) == std::vector<ErrorCode>{ErrorCode::kNone});
  f.restart();
  CHECK(f.c().describe_consumer_group("g").message == "Group g not found.");
  CHECK(f.c().list_groups().empty());
}

// A child process answers the heartbeats, then dies by SIGKILL (no
// destructor, no close): what the members were told is on disk.
TEST_CASE("consumer group state acknowledged by heartbeats survives kill -9", "[groups][kip848][durability]") {
  GroupFixture f;
  f.stop();
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    storage::LogManager logs(f.log_config());
    GroupCoordinator c(GroupFixture::test_config(), logs);
    consumer::Assignment a_parts, b_parts;
    settle_two_members(c, a_parts, b_parts);
    if (a_parts != parts({0, 1}) && a_parts != parts({2, 3})) _exit(1);
    kill(getpid(), SIGKILL);
    _exit(2);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  f.start();
  auto d = f.c().describe_consumer_group("g");
  REQUIRE(d.members.size() == 2);
  const auto a_parts = d.members[0].assigned;
  const auto b_parts = d.members[1].assigned;
  CHECK(consumer::partition_count(a_parts) == 2);
  CHECK(consumer::partition_count(b_parts) == 2);
  check_settled(f.c(), a_parts, b_parts);
}
