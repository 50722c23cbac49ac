// KIP-848's per-group dynamic configs (group_dynamic_config.h): Kafka 4.4's
// validation and messages, the values a group's members see from their next
// heartbeat, and durability across a restart.
#include <thread>

#include "coordinator/group/group_dynamic_config.h"
#include "tests/coordinator/group/consumer_group_support.h"
#include "tests/support/metadata_store.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::test;

namespace {

std::optional<std::string> check(const std::map<std::string, std::string>& v, const GroupConfig& b = GroupConfig{}) {
  return group::validate_group_configs(v, b);
}

}  // namespace

TEST_CASE("group configs: validated as Kafka 4.4, against the broker's bounds", "[groups][kip848][configs]") {
  CHECK(check({{"consumer.session.timeout.ms", "50000"}, {"consumer.heartbeat.interval.ms", "6000"}}) == std::nullopt);
  CHECK(check({{"consumer.session.timeout.ms", "1000"}}) ==
        "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
  CHECK(check({{"consumer.session.timeout.ms", "70000"}}) ==
        "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
  CHECK(check({{"consumer.heartbeat.interval.ms", "1"}}) ==
        "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
  CHECK(check({{"consumer.session.timeout.ms", "abc"}}) ==
        "Invalid value abc for configuration consumer.session.timeout.ms: Not a number of type INT");
  CHECK(check({{"bogus.key", "1"}}) == "Unknown group config name: bogus.key");
  CHECK(check({{"share.session.timeout.ms", "50000"}}) ==
        "Group config share.session.timeout.ms is for share groups, which this broker does not support.");
  CHECK(check({{"streams.num.standby.replicas", "1"}}) ==
        "Group config streams.num.standby.replicas is for streams groups, which this broker does not support.");
  CHECK(check({{"consumer.assignment.interval.ms", "10"}})
            ->starts_with("Group config consumer.assignment.interval.ms is not supported by this broker"));
  GroupConfig wide;  // bounds that overlap: the session timeout must stay above the heartbeat interval
  wide.consumer_min_session_timeout_ms = 1000;
  wide.consumer_min_heartbeat_interval_ms = 1000;
  wide.consumer_max_heartbeat_interval_ms = 60000;
  CHECK(check({{"consumer.heartbeat.interval.ms", "50000"}}, wide) ==
        "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
}

TEST_CASE("group configs: the records round-trip any group id", "[groups][kip848][configs]") {
  using group::GroupDynamicConfigs;
  std::map<std::string, GroupDynamicConfigs::Values> all{{"plain", {{"consumer.session.timeout.ms", "50000"}}},
                                                         {"tab\tnew\nline%25", {{"k", "v\r"}}}};
  CHECK(GroupDynamicConfigs::decode(GroupDynamicConfigs::encode(all)) == all);
  auto records = GroupDynamicConfigs::encode(all);
  CHECK_THROWS(GroupDynamicConfigs::decode({records[0].substr(0, records[0].size() - 1)}));
  CHECK_THROWS(GroupDynamicConfigs::decode({records[0], records[0]}));  // a group twice
  CHECK_THROWS(GroupDynamicConfigs::decode({records[0] + "x"}));
}

TEST_CASE("group configs: a group's heartbeat interval and session timeout apply at its next heartbeat",
          "[groups][kip848][configs]") {
  TempDir dir;
  auto store = test::open_metadata(dir.path());
  auto config = GroupFixture::test_config();
  config.consumer_min_session_timeout_ms = 100;
  config.consumer_min_heartbeat_interval_ms = 10;
  config.group_configs = &store->ns(metadata::kGroupConfigs);
  GroupFixture f(config);
  Members m(f.c());
  REQUIRE(m.join("a").heartbeat_interval_ms == 5000);
  auto r = f.c().alter_group_config(
      "g", {{"consumer.heartbeat.interval.ms", "80"}, {"consumer.session.timeout.ms", "200"}}, false);
  REQUIRE(r.error == ErrorCode::kNone);
  auto b = m.join("b");
  CHECK(b.heartbeat_interval_ms == 80);
  // a's next heartbeat arms its session with the group's 200 ms (not the broker's 45 s); then a is
  // silent and its partitions move to b.
  CHECK(m.beat("a", 1, parts({0, 1, 2, 3})).heartbeat_interval_ms == 80);
  consumer::Assignment owned = b.assignment.value_or(consumer::Assignment{});
  for (int i = 0; i < 40 && owned != parts({0, 1, 2, 3}); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    b = m.beat("b", b.member_epoch, owned);
    REQUIRE(b.error == ErrorCode::kNone);
    if (b.assignment) owned = *b.assignment;
  }
  CHECK(owned == parts({0, 1, 2, 3}));
  CHECK(f.c().alter_group_config("g", {{"consumer.session.timeout.ms", "99"}}, false).error ==
        ErrorCode::kInvalidConfig);

  f.restart();  // durable
  CHECK(f.c().group_config_overrides("g").at("consumer.heartbeat.interval.ms") == "80");
  CHECK(f.c().consumer_session_timeout_ms("g") == 200);
  CHECK(f.c().consumer_session_timeout_ms("other") == 45000);
  REQUIRE(f.c().alter_group_config("g", {}, false).error == ErrorCode::kNone);
  f.restart();
  CHECK(f.c().group_config_overrides("g").empty());
}
