// Tiered storage's topic rules (log/topic_config_def.h,
// validate_topic_configs with a TopicConfigContext) as Kafka 4.4's
// LogConfig.validate makes them, with Kafka's messages (read from Kafka
// 4.4.0's LogConfig): remote storage only with the broker's system enabled,
// only on delete-policy topics, local retention within retention, copy lags
// within local retention, read-only remote data, and turning it off only
// with remote.log.delete.on.disable.
#include <catch2/catch.hpp>

#include "log/topic_config_def.h"

using namespace skiff::storage;

namespace {

using Configs = std::map<std::string, std::string>;

std::string check(const Configs& overrides, const TopicConfigContext& ctx) {
  auto r = validate_topic_configs(overrides, ctx);
  return r ? "OK" : r.error().message;
}

TopicConfigContext enabled(Configs broker_defaults = {}, Configs existing = {}) {
  TopicConfigContext ctx;
  ctx.remote_storage_system_enabled = true;
  ctx.broker_defaults = std::move(broker_defaults);
  ctx.existing = std::move(existing);
  return ctx;
}

constexpr const char* kDisabled =
    "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.";
constexpr const char* kCompacted =
    "Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.";

}  // namespace

TEST_CASE("remote storage needs the broker's tiered storage", "[log][config][tiered]") {
  const Configs remote = {{"remote.storage.enable", "true"}};
  CHECK(check(remote, TopicConfigContext{}) == kDisabled);
  CHECK(check(remote, enabled()) == "OK");
  CHECK(check({{"remote.storage.enable", "TRUE"}}, TopicConfigContext{}) == kDisabled);
  // The context-free check is a broker without tiered storage, as before.
  auto r = validate_topic_configs(remote);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == kDisabled);
  CHECK(r.error().code == LogErrc::kInvalidConfig);
  CHECK(validate_topic_configs({{"remote.storage.enable", "false"}}));
  // Value errors come first, as in Kafka (each value, then the joint rules).
  CHECK(check({{"remote.storage.enable", "yes"}}, enabled()) ==
        "Invalid value yes for configuration remote.storage.enable: Expected value to be either true or false");
}

TEST_CASE("remote storage only on delete-policy topics", "[log][config][tiered]") {
  CHECK(check({{"remote.storage.enable", "true"}, {"cleanup.policy", "compact"}}, enabled()) == kCompacted);
  CHECK(check({{"remote.storage.enable", "true"}, {"cleanup.policy", "compact,delete"}}, enabled()) == kCompacted);
  CHECK(check({{"remote.storage.enable", "true"}, {"cleanup.policy", "delete,delete"}}, enabled()) == kCompacted);
  CHECK(check({{"remote.storage.enable", "true"}, {"cleanup.policy", "delete"}}, enabled()) == "OK");
  CHECK(check({{"remote.storage.enable", "true"}, {"cleanup.policy", ""}}, enabled()) == "OK");
  // The broker's log.cleanup.policy is the topic's when it sets none.
  CHECK(check({{"remote.storage.enable", "true"}}, enabled({{"cleanup.policy", "compact"}})) == kCompacted);
  // An existing compacted topic (its overrides after the alter keep compact).
  CHECK(check({{"cleanup.policy", "compact"}, {"remote.storage.enable", "true"}},
              enabled({}, {{"cleanup.policy", "compact"}})) == kCompacted);
  // A compacted topic without remote storage is fine with the system enabled.
  CHECK(check({{"cleanup.policy", "compact"}}, enabled()) == "OK");
}

TEST_CASE("local retention within retention, as Kafka's topic check", "[log][config][tiered]") {
  const Configs remote = {{"remote.storage.enable", "true"}};
  auto with = [&](Configs extra) {
    Configs c = remote;
    c.insert(extra.begin(), extra.end());
    return c;
  };
  CHECK(check(with({{"retention.bytes", "1000"}, {"local.retention.bytes", "1001"}}), enabled()) ==
        "Invalid value 1001 for configuration local.retention.bytes: Value must not be more than retention.bytes "
        "property value: 1000");
  CHECK(check(with({{"retention.bytes", "1000"}, {"local.retention.bytes", "-1"}}), enabled()) ==
        "Invalid value -1 for configuration local.retention.bytes: Value must not be -1 as retention.bytes value is "
        "set as 1000.");
  CHECK(check(with({{"retention.ms", "60000"}, {"local.retention.ms", "60001"}}), enabled()) ==
        "Invalid value 60001 for configuration local.retention.ms: Value must not be more than retention.ms property "
        "value: 60000");
  CHECK(check(with({{"retention.ms", "60000"}, {"local.retention.ms", "-1"}}), enabled()) ==
        "Invalid value -1 for configuration local.retention.ms: Value must not be -1 as retention.ms value is set as "
        "60000.");
  CHECK(check(with({{"retention.ms", "60000"}, {"local.retention.ms", "60000"}}), enabled()) == "OK");
  CHECK(check(with({{"retention.ms", "60000"}, {"local.retention.ms", "-2"}}), enabled()) == "OK");
  // Unlimited retention (retention.bytes -1 by default, retention.ms -1): any local retention.
  CHECK(check(with({{"local.retention.bytes", "5000000"}}), enabled()) == "OK");
  CHECK(check(with({{"retention.ms", "-1"}, {"local.retention.ms", "-1"}}), enabled()) == "OK");
  // The broker's defaults count: log.retention.ms 1000 and a topic local.retention.ms of 5000.
  CHECK(check(with({{"local.retention.ms", "5000"}}), enabled({{"retention.ms", "1000"}})) ==
        "Invalid value 5000 for configuration local.retention.ms: Value must not be more than retention.ms property "
        "value: 1000");
  // ... and log.local.retention.ms as the topic's local.retention.ms.
  CHECK(check(with({{"retention.ms", "1000"}}), enabled({{"local.retention.ms", "2000"}})) ==
        "Invalid value 2000 for configuration local.retention.ms: Value must not be more than retention.ms property "
        "value: 1000");
  // Without remote storage on the topic, nothing joins them.
  CHECK(check({{"retention.ms", "1000"}, {"local.retention.ms", "5000"}}, enabled()) == "OK");
}

TEST_CASE("copy lags within the effective local retention", "[log][config][tiered]") {
  CHECK(check({{"remote.storage.enable", "true"}, {"local.retention.bytes", "1000"}, {"remote.copy.lag.bytes", "1001"}},
              enabled()) ==
        "Invalid value 1001 for configuration remote.copy.lag.bytes: Value must not exceed local.retention.bytes "
        "(effective value: 1000)");
  CHECK(
      check({{"remote.storage.enable", "true"}, {"retention.ms", "5000"}, {"remote.copy.lag.ms", "6000"}}, enabled()) ==
      "Invalid value 6000 for configuration remote.copy.lag.ms: Value must not exceed local.retention.ms (effective "
      "value: 5000)");
  CHECK(check({{"remote.storage.enable", "true"}, {"retention.ms", "5000"}, {"remote.copy.lag.ms", "-1"}}, enabled()) ==
        "OK");
  CHECK(check({{"remote.storage.enable", "true"}, {"remote.copy.lag.bytes", "1000000"}}, enabled()) == "OK");
}

TEST_CASE("remote.log.copy.disable: local retention equal to retention", "[log][config][tiered]") {
  CHECK(check({{"remote.storage.enable", "true"},
               {"remote.log.copy.disable", "true"},
               {"retention.bytes", "1000"},
               {"local.retention.bytes", "500"}},
              enabled()) ==
        "When `remote.log.copy.disable` is set to true, the `local.retention.bytes` and `retention.bytes` must be set "
        "to the identical value because there will be no more logs copied to the remote storage.");
  CHECK(check({{"remote.storage.enable", "true"},
               {"remote.log.copy.disable", "true"},
               {"retention.ms", "1000"},
               {"local.retention.ms", "500"}},
              enabled()) ==
        "When `remote.log.copy.disable` is set to true, the `local.retention.ms` and `retention.ms` must be set to the "
        "identical value because there will be no more logs copied to the remote storage.");
  CHECK(check({{"remote.storage.enable", "true"}, {"remote.log.copy.disable", "true"}}, enabled()) == "OK");
}

TEST_CASE("turning remote storage off needs remote.log.delete.on.disable", "[log][config][tiered]") {
  const Configs was_on = {{"remote.storage.enable", "true"}};
  const std::string refused =
      "It is invalid to disable remote storage without deleting remote data. If you want to keep the remote data and "
      "turn to read only, please set `remote.storage.enable=true,remote.log.copy.disable=true`. If you want to "
      "disable remote storage and delete all remote data, please set "
      "`remote.storage.enable=false,remote.log.delete.on.disable=true`.";
  CHECK(check({{"remote.storage.enable", "false"}}, enabled({}, was_on)) == refused);
  CHECK(check({}, enabled({}, was_on)) == refused);  // the override deleted: false again
  CHECK(check({{"remote.storage.enable", "false"}, {"remote.log.delete.on.disable", "true"}}, enabled({}, was_on)) ==
        "OK");
  CHECK(check({{"remote.storage.enable", "true"}, {"remote.log.copy.disable", "true"}}, enabled({}, was_on)) == "OK");
  // Was off: nothing to turn off.
  CHECK(check({{"remote.storage.enable", "false"}}, enabled({}, {{"remote.storage.enable", "false"}})) == "OK");
  // Kafka applies it whether or not the system is enabled.
  TopicConfigContext off;
  off.existing = was_on;
  CHECK(check({{"retention.ms", "1000"}}, off) == refused);
}

TEST_CASE("stored remote storage with the system disabled: Kafka's startup error", "[log][config][tiered]") {
  auto r = validate_stored_topic_remote_storage({{"remote.storage.enable", "true"}}, false);
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "You have to delete all topics with the property remote.storage.enable=true before disabling tiered storage "
        "cluster-wide");
  CHECK(validate_stored_topic_remote_storage({{"remote.storage.enable", "true"}}, true));
  CHECK(validate_stored_topic_remote_storage({{"remote.storage.enable", "false"}}, false));
  CHECK(validate_stored_topic_remote_storage({}, false));
}

TEST_CASE("the compaction lag rule is unchanged by the context", "[log][config][tiered]") {
  const std::string conflict = "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)";
  CHECK(check({{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}}, enabled()) == conflict);
  CHECK(check({{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}}, TopicConfigContext{}) == conflict);
}
