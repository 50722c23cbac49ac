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
  CHECK(check({{"streams.num.standby.replicas", "2"}, {"streams.initial.rebalance.delay.ms", "0"}}) == std::nullopt);
  CHECK(check({{"streams.num.standby.replicas", "3"}}) ==
        "streams.num.standby.replicas must be less than or equal to 2");
  CHECK(check({{"streams.session.timeout.ms", "44999"}}) ==
        "streams.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
  CHECK(check({{"streams.initial.rebalance.delay.ms", "-1"}}) ==
        "Invalid value -1 for configuration streams.initial.rebalance.delay.ms: Value must be at least 0");
  CHECK(check({{"errors.deadletterqueue.topic.name", "dlq.x"},
               {"errors.deadletterqueue.copy.record.enable", "true"}}) == std::nullopt);
  CHECK(check({{"errors.deadletterqueue.topic.name", "__x"}}) ==
        "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'");
  GroupConfig wide;  // bounds that overlap: the session timeout must stay above the heartbeat interval
  wide.consumer_min_session_timeout_ms = 1000;
  wide.consumer_min_heartbeat_interval_ms = 1000;
  wide.consumer_max_heartbeat_interval_ms = 60000;
  CHECK(check({{"consumer.heartbeat.interval.ms", "50000"}}, wide) ==
        "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
  wide.streams_min_session_timeout_ms = 1000;
  wide.streams_max_heartbeat_interval_ms = 60000;
  CHECK(check({{"streams.session.timeout.ms", "20000"}, {"streams.heartbeat.interval.ms", "20000"}}, wide) ==
        "streams.session.timeout.ms must be greater than streams.heartbeat.interval.ms");
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

TEST_CASE("group configs: the share-group keys, validated as Kafka 4.4 (GroupConfig)", "[groups][kip932][configs]") {
  CHECK(check({{"share.session.timeout.ms", "50000"},
               {"share.heartbeat.interval.ms", "6000"},
               {"share.record.lock.duration.ms", "20000"},
               {"share.delivery.count.limit", "3"},
               {"share.partition.max.record.locks", "3000"},
               {"share.auto.offset.reset", "earliest"},
               {"share.isolation.level", "read_committed"},
               {"share.renew.acknowledge.enable", "false"},
               {"share.assignment.interval.ms", "0"}}) == std::nullopt);
  CHECK(check({{"share.session.timeout.ms", "1000"}}) ==
        "share.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
  CHECK(check({{"share.heartbeat.interval.ms", "20000"}}) ==
        "share.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
  CHECK(check({{"share.record.lock.duration.ms", "500"}}) ==
        "Invalid value 500 for configuration share.record.lock.duration.ms: Value must be at least 1000");
  CHECK(check({{"share.record.lock.duration.ms", "10000"}}) ==
        "share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.");
  CHECK(check({{"share.delivery.count.limit", "1"}}) ==
        "Invalid value 1 for configuration share.delivery.count.limit: Value must be at least 2");
  CHECK(check({{"share.delivery.count.limit", "11"}}) ==
        "share.delivery.count.limit must be in the range 2 to 10 inclusive.");
  CHECK(check({{"share.partition.max.record.locks", "5000"}}) ==
        "share.partition.max.record.locks must be in the range 100 to 4000 inclusive.");
  CHECK(check({{"share.assignment.interval.ms", "20000"}}) ==
        "share.assignment.interval.ms must be in the range 0 to 15000 inclusive.");
  CHECK(check({{"share.auto.offset.reset", "by_duration:PT1H30M"}}) == std::nullopt);
  CHECK(check({{"share.auto.offset.reset", "LATEST"}}) == std::nullopt);
  CHECK(check({{"share.auto.offset.reset", "none"}}) ==
        "Invalid value none for configuration share.auto.offset.reset: Invalid value `none` for configuration "
        "share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format "
        "'by_duration:<PnDTnHnMn.nS>'.");
  CHECK(check({{"share.auto.offset.reset", "by_duration:-PT1H"}}).has_value());
  CHECK(check({{"share.auto.offset.reset", "by_duration:PT"}}).has_value());
  CHECK(check({{"share.isolation.level", "READ_COMMITTED"}}) ==
        "Invalid value READ_COMMITTED for configuration share.isolation.level: String must be one of: "
        "read_committed, read_uncommitted");
  CHECK(check({{"share.renew.acknowledge.enable", "yes"}}) ==
        "Invalid value yes for configuration share.renew.acknowledge.enable: Expected value to be either true or "
        "false");
  GroupConfig wide;
  wide.share_min_session_timeout_ms = 1000;
  wide.share_max_heartbeat_interval_ms = 60000;
  CHECK(check({{"share.heartbeat.interval.ms", "50000"}}, wide) ==
        "share.session.timeout.ms must be greater than share.heartbeat.interval.ms");
  CHECK(check({{"share.assignor.offload.enable", "false"}}) == std::nullopt);
}

TEST_CASE("group configs: Kafka 4.4's assignment and streams-assignor keys, checked as Kafka checks them",
          "[groups][kip1071][configs]") {
  CHECK(check({{"consumer.assignment.interval.ms", "0"},
               {"consumer.assignor.offload.enable", "false"},
               {"streams.assignment.interval.ms", "15000"},
               {"streams.assignor.offload.enable", "true"},
               {"streams.task.offset.interval.ms", "15000"},
               {"streams.num.warmup.replicas", "20"},
               {"streams.rack.aware.assignment.tags", " zone , rack "},
               {"streams.acceptable.recovery.lag", "9223372036854775807"},
               {"streams.assignor.name", "sticky"}}) == std::nullopt);
  CHECK(check({{"consumer.assignment.interval.ms", "15001"}}) ==
        "consumer.assignment.interval.ms must be in the range 0 to 15000 inclusive.");
  CHECK(check({{"streams.assignment.interval.ms", "-1"}}) ==
        "Invalid value -1 for configuration streams.assignment.interval.ms: Value must be at least 0");
  CHECK(check({{"streams.task.offset.interval.ms", "14999"}}) ==
        "streams.task.offset.interval.ms must be greater than or equal to 15000");
  CHECK(check({{"streams.task.offset.interval.ms", "0"}}) ==
        "Invalid value 0 for configuration streams.task.offset.interval.ms: Value must be at least 1");
  CHECK(check({{"streams.num.warmup.replicas", "21"}}) ==
        "streams.num.warmup.replicas must be less than or equal to 20");
  CHECK(check({{"streams.acceptable.recovery.lag", "x"}}) ==
        "Invalid value x for configuration streams.acceptable.recovery.lag: Not a number of type LONG");
  CHECK(check({{"streams.acceptable.recovery.lag", "-1"}}) ==
        "Invalid value -1 for configuration streams.acceptable.recovery.lag: Value must be at least 0");
  CHECK(check({{"streams.rack.aware.assignment.tags", "zone, zone"}}) ==
        "streams.rack.aware.assignment.tags must not contain duplicate tag keys.");
  // Checked before the values are parsed, as Kafka does.
  CHECK(check({{"streams.rack.aware.assignment.tags", "a,a"}, {"streams.num.warmup.replicas", "x"}}) ==
        "streams.rack.aware.assignment.tags must not contain duplicate tag keys.");
  CHECK(check({{"streams.assignor.name", "balanced"}}) ==
        "streams.assignor.name 'balanced' is not a registered task assignor. Registered assignors are: [sticky].");
  CHECK(check({{"consumer.assignor.offload.enable", "maybe"}}) ==
        "Invalid value maybe for configuration consumer.assignor.offload.enable: Expected value to be either true "
        "or false");
  CHECK(group::group_config_list(" a ,b,  c ") == std::vector<std::string>{"a", "b", "c"});
  CHECK(group::group_config_list("  ").empty());
  CHECK(group::group_config_list("a,") == std::vector<std::string>{"a", ""});
}

TEST_CASE("group configs: internal keys are described only when set, as Kafka's extractGroupConfigMap",
          "[groups][kip1071][configs]") {
  GroupConfig broker;
  const auto& keys = group::group_config_keys();
  auto key = [&](std::string_view name) {
    return *std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.name == name; });
  };
  CHECK(group::group_config_described(broker, key("streams.assignor.name"), false));
  CHECK(group::group_config_default(broker, "streams.assignor.name") == "sticky");
  CHECK(!group::group_config_described(broker, key("streams.task.offset.interval.ms"), false));
  CHECK(group::group_config_described(broker, key("streams.task.offset.interval.ms"), true));
  CHECK(!group::group_config_described(broker, key("consumer.assignor.offload.enable"), false));
  broker.explicit_internal_broker_keys["group.consumer.assignor.offload.enable"] = "false";
  CHECK(group::group_config_described(broker, key("consumer.assignor.offload.enable"), false));
  CHECK(group::group_config_default(broker, "consumer.assignor.offload.enable") == "false");
  broker.streams_rack_aware_assignment_tags = {"zone", "rack"};
  CHECK(group::group_config_default(broker, "streams.rack.aware.assignment.tags") == "zone,rack");
}

TEST_CASE("group configs: a share group's values in effect, for the share-partition side",
          "[groups][kip932][configs]") {
  GroupFixture f;
  auto& c = f.c();
  CHECK(c.share_record_lock_duration_ms("g") == 30000);
  CHECK(c.share_delivery_count_limit("g") == 5);
  CHECK(c.share_partition_max_record_locks("g") == 2000);
  CHECK(c.share_auto_offset_reset("g") == "latest");
  CHECK(!c.share_read_committed("g"));
  CHECK(c.share_renew_acknowledge_enable("g"));
  CHECK(c.share_session_timeout_ms("g") == 45000);
  CHECK(c.share_heartbeat_interval_ms("g") == 5000);
  REQUIRE(c.alter_group_config("g",
                               {{"share.record.lock.duration.ms", "20000"},
                                {"share.delivery.count.limit", "3"},
                                {"share.partition.max.record.locks", "300"},
                                {"share.auto.offset.reset", "By_Duration:PT10M"},
                                {"share.isolation.level", "read_committed"},
                                {"share.renew.acknowledge.enable", "FALSE"}},
                               false)
              .error == ErrorCode::kNone);
  CHECK(c.share_record_lock_duration_ms("g") == 20000);
  CHECK(c.share_delivery_count_limit("g") == 3);
  CHECK(c.share_partition_max_record_locks("g") == 300);
  CHECK(c.share_auto_offset_reset("g") == "by_duration:PT10M");
  CHECK(c.share_read_committed("g"));
  CHECK(!c.share_renew_acknowledge_enable("g"));
  CHECK(c.share_record_lock_duration_ms("other") == 30000);
  CHECK(c.share_dlq_topic("g").empty());
  REQUIRE(c.alter_group_config(
               "g",
               {{"errors.deadletterqueue.topic.name", "dlq.g"}, {"errors.deadletterqueue.copy.record.enable", "true"}},
               false)
              .error == ErrorCode::kNone);
  CHECK(c.share_dlq_topic("g") == "dlq.g");
  CHECK(c.share_dlq_copy_record("g"));
  auto bad = c.alter_group_config("g", {{"share.delivery.count.limit", "99"}}, false);
  CHECK(bad.error == ErrorCode::kInvalidConfig);
  CHECK(bad.message == "share.delivery.count.limit must be in the range 2 to 10 inclusive.");
}
