// Dynamic broker configs: precedence (per-broker > cluster default > static >
// default), Kafka's refusals, listener veto, persistence text and reload.
#include "config/dynamic_broker_config.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config/config_def.h"
#include "config/config_loader.h"

using namespace skiff::config;

namespace {

BrokerConfig static_with(std::vector<std::string> overrides) {
  return load_config({std::nullopt, {}, std::move(overrides)});
}

}  // namespace

TEST_CASE("dynamic values layer over static ones as Kafka: broker > default > static > default") {
  DynamicBrokerConfig d(static_with({"log.retention.ms=5000"}));
  CHECK(d.current()->log_retention_ms == 5000);
  REQUIRE_FALSE(d.alter(DynamicScope::kDefault, {{"log.retention.ms", "4000"}, {"message.max.bytes", "2000"}}, false));
  CHECK(d.current()->log_retention_ms == 4000);
  CHECK(d.current()->effective.at("log.retention.ms").source == ConfigSource::kDynamicDefault);
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"log.retention.ms", "3000"}}, false));
  CHECK(d.current()->log_retention_ms == 3000);
  CHECK(d.current()->message_max_bytes == 2000);
  CHECK(d.current()->effective.at("log.retention.ms").source == ConfigSource::kDynamicBroker);
  // Removing the per-broker value uncovers the cluster default, then the static value.
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {}, false));
  CHECK(d.current()->log_retention_ms == 4000);
  REQUIRE_FALSE(d.alter(DynamicScope::kDefault, {}, false));
  CHECK(d.current()->log_retention_ms == 5000);
  CHECK(d.current()->message_max_bytes == 1048588);
  CHECK(d.static_config().log_retention_ms == 5000);
}

TEST_CASE("a key that is not dynamic is refused with Kafka's error naming it, changing nothing") {
  DynamicBrokerConfig d(static_with({}));
  for (const char* key : {"node.id", "num.partitions", "log.dirs", "replica.lag.time.max.ms", "skiff.log.level",
                          "log.retention.check.interval.ms"}) {
    auto e = d.alter(DynamicScope::kDefault, {{key, "3"}, {"message.max.bytes", "2000"}}, false);
    REQUIRE(e);
    CHECK(e->kind == DynamicError::kInvalidRequest);
    CHECK(e->message == std::string("Cannot update these configs dynamically: [") + key + "]");
  }
  CHECK(d.current()->message_max_bytes == 1048588);
  CHECK(d.values().cluster.empty());
}

TEST_CASE("values are checked by the static table's own rules") {
  DynamicBrokerConfig d(static_with({}));
  auto e = d.alter(DynamicScope::kBroker, {{"log.segment.bytes", "5"}}, false);
  REQUIRE(e);
  CHECK(e->kind == DynamicError::kInvalidRequest);
  CHECK(e->message.rfind("Invalid value 5 for configuration log.segment.bytes: ", 0) == 0);
  CHECK(d.alter(DynamicScope::kBroker, {{"log.message.timestamp.type", "Sometime"}}, false));
  CHECK(d.alter(DynamicScope::kBroker, {{"max.connections.per.ip.overrides", "host:x"}}, false));
  CHECK(d.alter(DynamicScope::kBroker, {{"max.connections", "1\n2"}}, false));
  CHECK(d.values().broker.empty());
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"log.message.timestamp.type", "logappendtime"}}, false));
  CHECK(d.current()->log_message_timestamp_type == "LogAppendTime");
}

TEST_CASE("every dynamic row not marked no_effect is one Skiff applies live") {
  std::vector<std::string> dynamic;
  for (const auto& def : config_defs())
    if (def.dynamic && !def.no_effect) dynamic.push_back(def.name);
  CHECK(dynamic ==
        std::vector<std::string>{"num.network.threads",  // server/dynamic_config_wiring.cc: wire_thread_pools
                                 "num.io.threads", "max.connections", "max.connections.per.ip",
                                 "max.connections.per.ip.overrides", "log.segment.bytes", "log.roll.ms",
                                 "log.roll.hours",  // dynamic_broker_config.cc: apply_time_precedence
                                 "log.retention.ms", "log.retention.minutes", "log.retention.hours",
                                 "log.retention.bytes", "log.flush.interval.messages", "log.flush.interval.ms",
                                 "log.index.interval.bytes", "log.index.size.max.bytes",
                                 "log.preallocate",  // LogManager::set_defaults: from the next new segment
                                 "message.max.bytes", "log.message.timestamp.type",
                                 "replica.alter.log.dirs.io.max.bytes.per.second",  // ReplicaDirMover::set_rate
                                 // Accepted for kafka-reassign-partitions, no effect on one node (README).
                                 "leader.replication.throttled.rate", "follower.replication.throttled.rate",
                                 // server/remote_reads_port.cc: looked up on every remote read
                                 "remote.fetch.max.wait.ms", "remote.list.offsets.request.timeout.ms",
                                 "remote.log.manager.fetch.max.bytes.per.second"});
}

TEST_CASE("listeners may veto, validate_only and a failed persist change nothing, apply runs after persist") {
  DynamicBrokerConfig d(static_with({}));
  std::vector<std::string> events;
  DynamicValues stored;
  d.add_listener([&](const BrokerConfig& next, bool apply) -> std::string {
    events.push_back(std::string(apply ? "apply " : "check ") + std::to_string(next.message_max_bytes));
    return next.message_max_bytes == 7 ? "seven is refused" : "";
  });
  bool disk_ok = true;
  d.set_persist([&](const DynamicValues& values) -> std::string {
    events.push_back("persist");
    if (!disk_ok) return "disk full";
    stored = values;
    return {};
  });
  auto e = d.alter(DynamicScope::kBroker, {{"message.max.bytes", "7"}}, false);
  REQUIRE(e);
  CHECK(e->message == "seven is refused");
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"message.max.bytes", "8"}}, true));
  disk_ok = false;
  e = d.alter(DynamicScope::kBroker, {{"message.max.bytes", "9"}}, false);
  REQUIRE(e);
  CHECK(e->kind == DynamicError::kStorage);
  CHECK(d.current()->message_max_bytes == 1048588);
  disk_ok = true;
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"message.max.bytes", "10"}}, false));
  CHECK(events ==
        std::vector<std::string>{"check 7", "check 8", "check 9", "persist", "check 10", "persist", "apply 10"});

  // What was persisted comes back on the next start, with its sources.
  DynamicBrokerConfig again(static_with({}));
  CHECK(again.load(stored).empty());
  CHECK(again.current()->message_max_bytes == 10);
  CHECK(again.current()->effective.at("message.max.bytes").source == ConfigSource::kDynamicBroker);
}

TEST_CASE("stored values no longer valid are dropped with a warning") {
  DynamicValues v;
  v.broker["max.connections.per.ip.overrides"] = "127.0.0.1:5,::1:6";
  v.cluster["log.retention.ms"] = "1000";
  v.cluster["num.partitions"] = "3";     // not dynamic
  v.cluster["log.segment.bytes"] = "5";  // below the minimum
  DynamicBrokerConfig d(static_with({}));
  auto warnings = d.load(v);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("log.segment.bytes=5 dropped") != std::string::npos);
  CHECK(warnings[1].find("num.partitions=3 dropped") != std::string::npos);
  CHECK(d.current()->log_retention_ms == 1000);
  CHECK(d.current()->max_connections_per_ip_overrides.at("::1") == 6);
}

TEST_CASE("retention and roll time keys: the finest unit set at any level wins, as Kafka") {
  constexpr int64_t kHour = int64_t{3600} * 1000, kMinute = int64_t{60} * 1000;
  DynamicBrokerConfig d(static_with({}));
  REQUIRE_FALSE(d.alter(DynamicScope::kDefault, {{"log.retention.hours", "2"}, {"log.roll.hours", "3"}}, false));
  CHECK(d.current()->log_retention_ms == 2 * kHour);
  CHECK(d.current()->log_roll_ms == 3 * kHour);
  // minutes beats hours, even when hours is set at the more specific level.
  REQUIRE_FALSE(d.alter(DynamicScope::kDefault, {{"log.retention.minutes", "30"}, {"log.roll.hours", "3"}}, false));
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"log.retention.hours", "5"}}, false));
  CHECK(d.current()->log_retention_ms == 30 * kMinute);
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"log.retention.hours", "5"}, {"log.retention.ms", "1234"}}, false));
  CHECK(d.current()->log_retention_ms == 1234);
  // Removing the finer keys uncovers the coarser ones; -1 hours is forever.
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"log.retention.hours", "-1"}}, false));
  REQUIRE_FALSE(d.alter(DynamicScope::kDefault, {{"log.roll.hours", "3"}}, false));
  CHECK(d.current()->log_retention_ms == -1);
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {}, false));
  CHECK(d.current()->log_retention_ms == int64_t{7} * 24 * kHour);
  CHECK(d.current()->log_roll_ms == 3 * kHour);

  // A static log.retention.ms wins over a dynamic log.retention.hours (Kafka merges the layers, then
  // takes the finest key present).
  DynamicBrokerConfig s(static_with({"log.retention.ms=5000", "log.roll.hours=1"}));
  REQUIRE_FALSE(s.alter(DynamicScope::kBroker, {{"log.retention.hours", "9"}, {"log.roll.ms", "777"}}, false));
  CHECK(s.current()->log_retention_ms == 5000);
  CHECK(s.current()->log_roll_ms == 777);
}

namespace {

struct KafkaDynamicKey {
  std::string type, scope, prefix;
};

// tests/config/kafka-4.4-dynamic-broker-configs.tsv, recorded from Kafka's
// jars by tools/record_kafka_dynamic_broker_configs.sh.
std::map<std::string, KafkaDynamicKey> kafka_dynamic_keys() {
  std::ifstream in(SKIFF_KAFKA_DYNAMIC_CONFIGS);
  REQUIRE(in.good());
  std::map<std::string, KafkaDynamicKey> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string key;
    KafkaDynamicKey k;
    std::getline(fields, key, '\t');
    std::getline(fields, k.type, '\t');
    std::getline(fields, k.scope, '\t');
    std::getline(fields, k.prefix, '\t');
    out[key] = k;
  }
  return out;
}

}  // namespace

TEST_CASE("the dynamic broker keys are Kafka 4.4's, at Kafka's scopes") {
  const auto kafka = kafka_dynamic_keys();
  CHECK(kafka.size() == 110);
  std::set<std::string> ours;
  for (const auto& def : config_defs())
    if (def.dynamic) ours.insert(def.name);
  for (const auto& [key, k] : kafka) {
    INFO(key);
    CHECK(ours.count(key) == 1);
    CHECK(per_broker_only(key) == (k.scope == "per-broker"));
    CHECK(listener_prefix_only(key) == (k.prefix == "listener-only"));
  }
  // Skiff's extras: the coarser units of log.retention.ms and log.roll.ms.
  const std::set<std::string> extras = {"log.retention.hours", "log.retention.minutes", "log.roll.hours"};
  for (const auto& key : ours) {
    INFO(key);
    CHECK((kafka.count(key) == 1 || extras.count(key) == 1));
  }
}

TEST_CASE("Kafka's dynamic keys Skiff lacks are validated as Kafka, stored and change nothing") {
  DynamicBrokerConfig d(static_with({}));
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"sasl.kerberos.min.time.before.relogin", "70000"}}, false));
  CHECK(d.values().broker.at("sasl.kerberos.min.time.before.relogin") == "70000");
  CHECK(d.current()->effective.at("sasl.kerberos.min.time.before.relogin").source == ConfigSource::kDynamicBroker);
  // Kafka 4.4's answers (kafka-configs --entity-type brokers --alter).
  auto bad = d.alter(DynamicScope::kBroker, {{"sasl.kerberos.min.time.before.relogin", "abc"}}, false);
  REQUIRE(bad);
  CHECK(bad->message ==
        "Invalid value abc for configuration sasl.kerberos.min.time.before.relogin: Not a number of type LONG");
  auto cluster = d.alter(DynamicScope::kDefault, {{"sasl.kerberos.min.time.before.relogin", "70000"}}, false);
  REQUIRE(cluster);
  CHECK(cluster->message ==
        "Cannot update these configs at default cluster level, broker id must be specified: "
        "[sasl.kerberos.min.time.before.relogin]");
  auto unprefixed = d.alter(DynamicScope::kBroker, {{"ssl.keystore.location", "/x"}}, false);
  REQUIRE(unprefixed);
  CHECK(unprefixed->message ==
        "These security configs can be dynamically updated only per-listener using the listener prefix: "
        "[ssl.keystore.location]");
  CHECK(d.alter(DynamicScope::kBroker, {{"min.insync.replicas", "0"}}, false)->message ==
        "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1");
  // Per listener: validated as the base key; at the cluster default only the three Kafka allows there.
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker,
                        {{"listener.name.plaintext.sasl.kerberos.min.time.before.relogin", "1234"},
                         {"listener.name.ssl.ssl.keystore.location", "/x.pem"}},
                        false));
  CHECK(d.alter(DynamicScope::kBroker, {{"listener.name.plaintext.sasl.kerberos.min.time.before.relogin", "x"}}, false)
            ->message ==
        "Invalid value x for configuration sasl.kerberos.min.time.before.relogin: Not a number of "
        "type LONG");
  REQUIRE_FALSE(d.alter(DynamicScope::kDefault, {{"listener.name.plaintext.max.connections", "100"}}, false));
  CHECK(d.current()->max_connections == static_with({}).max_connections);  // stored, not applied
  CHECK(d.alter(DynamicScope::kDefault, {{"listener.name.plaintext.sasl.kerberos.service.name", "kafka"}}, false));
  // A no-effect key leaves the running value alone.
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"listeners", "PLAINTEXT://:1"}}, false));
  CHECK(d.current()->listeners == static_with({}).listeners);
}

TEST_CASE("a key Kafka does not define is stored as given, as Kafka stores a plugin's") {
  DynamicBrokerConfig d(static_with({}));
  REQUIRE_FALSE(d.alter(DynamicScope::kBroker, {{"foo.bar.baz", "1"}, {"listener.name.plaintext.foo", "x"}}, false));
  CHECK(d.values().broker.at("foo.bar.baz") == "1");
  CHECK(d.current()->effective.at("foo.bar.baz").source == ConfigSource::kDynamicBroker);
  CHECK(custom_dynamic_key("my.reporter.endpoint"));
  CHECK_FALSE(custom_dynamic_key("replica.lag.time.max.ms"));  // Kafka's, not dynamic
  CHECK_FALSE(custom_dynamic_key("num.partitions"));           // Skiff's, not dynamic
  // Kafka 4.4: "Cannot update these configs at default cluster level, ..." for any listener key.
  CHECK(d.alter(DynamicScope::kDefault, {{"listener.name.plaintext.foo", "x"}}, false));
  REQUIRE_FALSE(d.alter(DynamicScope::kDefault, {{"foo.bar.baz", "2"}}, false));
}
