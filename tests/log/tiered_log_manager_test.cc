// LogManager with the broker's side of the topic checks
// (LogManagerConfig::remote_storage_system_enabled, topic_key_defaults):
// topics with remote.storage.enable=true are created, altered and loaded
// when the broker's tiered storage is on, refused with Kafka's message when
// it is off, and a stored one loads with remote storage off in effect (as
// Kafka: logged, the key kept) when the system was turned off since.
#include <catch2/catch.hpp>

#include "log/log_manager.h"
#include "test_util.h"

using namespace skiff::storage;
using skiff::storage::test::TempDir;

namespace {

using Configs = std::map<std::string, std::string>;

LogManagerConfig config(const TempDir& d, bool system_enabled) {
  LogManagerConfig c;
  c.log_dirs.push_back(d / "logs");
  c.remote_storage_system_enabled = system_enabled;
  c.topic_key_defaults = {{"remote.copy.lag.ms", "0"}, {"remote.copy.lag.bytes", "-1"}};
  return c;
}

constexpr const char* kDisabled =
    "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.";

}  // namespace

TEST_CASE("log manager: remote.storage.enable with the broker's tiered storage on", "[log][tiered]") {
  TempDir d;
  {
    LogManager logs(config(d, true));
    auto made = logs.create_topic("t", 2, {{"remote.storage.enable", "true"}, {"local.retention.ms", "1000"}});
    REQUIRE(made);
    CHECK(made->config->remote_storage_enable);
    CHECK(logs.get_log("t", 1)->config()->tiering_active());
    // Kafka's checks with the broker's side: the broker's retention.ms bounds local retention.
    auto bad = logs.create_topic(
        "u", 1, {{"remote.storage.enable", "true"}, {"retention.ms", "100"}, {"local.retention.ms", "1000"}});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message ==
          "Invalid value 1000 for configuration local.retention.ms: Value must not be more than retention.ms property "
          "value: 100");
    CHECK_FALSE(logs.create_topic("c", 1, {{"remote.storage.enable", "true"}, {"cleanup.policy", "compact"}}));
    // Turning it off needs remote.log.delete.on.disable (the topic's config before counts).
    auto off = logs.alter_topic_config("t", {{"remote.storage.enable", "false"}});
    REQUIRE_FALSE(off);
    CHECK_THAT(off.error().message, Catch::StartsWith("It is invalid to disable remote storage without deleting"));
    REQUIRE(logs.alter_topic_config("t", {{"remote.storage.enable", "true"}, {"local.retention.ms", "500"}}));
    CHECK(logs.get_log("t", 0)->config()->local_retention_ms == 500);
    REQUIRE(logs.create_topic("plain", 1));
    REQUIRE(logs.alter_topic_config("plain", {{"remote.storage.enable", "true"}}));
    CHECK(logs.get_log("plain", 0)->config()->remote_storage_enable);
    CHECK(logs.new_topic_config({{"remote.storage.enable", "true"}})->remote_storage_enable);
    // A broker default change keeps it.
    LogConfig defaults = logs.defaults();
    defaults.retention_ms = 3600000;
    REQUIRE(logs.set_defaults(defaults));
    CHECK(logs.get_log("t", 0)->config()->remote_storage_enable);
    logs.shutdown();
  }
  LogManager again(config(d, true));  // loads with it on
  CHECK(again.get_log("t", 0)->config()->remote_storage_enable);
  CHECK(again.topic("t")->overrides.at("remote.storage.enable") == "true");
}

TEST_CASE("log manager: remote.storage.enable with the broker's tiered storage off", "[log][tiered]") {
  TempDir d;
  {
    LogManager logs(config(d, false));
    auto r = logs.create_topic("t", 1, {{"remote.storage.enable", "true"}});
    REQUIRE_FALSE(r);
    CHECK(r.error().message == kDisabled);
    CHECK_FALSE(logs.new_topic_config({{"remote.storage.enable", "true"}}));
    REQUIRE(logs.create_topic("t", 1));
    auto a = logs.alter_topic_config("t", {{"remote.storage.enable", "true"}});
    REQUIRE_FALSE(a);
    CHECK(a.error().message == kDisabled);
    CHECK(logs.alter_topic_config("t", {{"remote.storage.enable", "false"}}));
    logs.shutdown();
  }
  {  // made while the system was on ...
    LogManager logs(config(d, true));
    REQUIRE(logs.create_topic("r", 1, {{"remote.storage.enable", "true"}}));
    logs.shutdown();
  }
  // ... loads with the system off: kept and described, not in effect (Kafka
  // logs "You have to delete all topics with the property
  // remote.storage.enable=true before disabling tiered storage cluster-wide").
  LogManager logs(config(d, false));
  auto log = logs.get_log("r", 0);
  REQUIRE(log);
  CHECK_FALSE(log->config()->remote_storage_enable);
  CHECK(logs.topic("r")->overrides.at("remote.storage.enable") == "true");
  CHECK(log->config()->effective_values().at("remote.storage.enable") == "true");
  // A broker default change is not blocked by it.
  LogConfig defaults = logs.defaults();
  defaults.retention_ms = 3600000;
  REQUIRE(logs.set_defaults(defaults));
  CHECK_FALSE(logs.get_log("r", 0)->config()->remote_storage_enable);
  CHECK(logs.get_log("r", 0)->config()->retention_ms == 3600000);
  // Another change of it: Kafka's refusal, until it is turned off with its data deleted.
  auto again = logs.alter_topic_config("r", {{"remote.storage.enable", "true"}, {"retention.ms", "5"}});
  REQUIRE_FALSE(again);
  CHECK(again.error().message == kDisabled);
  CHECK_FALSE(logs.alter_topic_config("r", {{"remote.storage.enable", "false"}}));
  CHECK(logs.alter_topic_config("r", {{"remote.storage.enable", "false"}, {"remote.log.delete.on.disable", "true"}}));
}
