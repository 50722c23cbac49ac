// Configuration: defaults, precedence (file < environment < command line),
// and one test per kind of validation error.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/cpu_count.h"
#include "config/config_def.h"
#include "config/config_loader.h"
#include "tests/support/temp_dir.h"

using namespace skiff::config;
using skiff::usable_cpus;

namespace {

struct TempYaml {
  explicit TempYaml(const std::string& text) : path(dir.path() / "skiff.yaml") { std::ofstream(path) << text; }
  skiff::test::TempDir dir{"skiff-config-test"};
  std::filesystem::path path;
};

BrokerConfig load(std::optional<std::string> file, std::map<std::string, std::string> env = {},
                  std::vector<std::string> overrides = {}) {
  return load_config({std::move(file), std::move(env), std::move(overrides)});
}

std::string load_error(std::optional<std::string> file, std::map<std::string, std::string> env = {},
                       std::vector<std::string> overrides = {}) {
  try {
    load(std::move(file), std::move(env), std::move(overrides));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("defaults are Kafka's, thread pools sized to the CPUs up to Kafka's", "[config]") {
  auto c = load(std::nullopt);
  const int cpus = usable_cpus();
  CHECK(c.num_network_threads == std::clamp(cpus / 2, 1, 3));  // Kafka's 3 from 6 CPUs on
  CHECK(c.num_io_threads == std::clamp(2 * cpus, 2, 8));       // Kafka's 8 from 4 CPUs on
  CHECK(c.queued_max_requests == 500);
  CHECK(c.network_coalesce_us == 500);  // Skiff's own: Kafka has no such key
  CHECK(c.socket_request_max_bytes == 100 * 1024 * 1024);
  CHECK(c.connections_max_idle_ms == 600000);
  CHECK(c.log_segment_bytes == 1LL << 30);
  CHECK(c.log_retention_ms == 7LL * 24 * 3600 * 1000);
  REQUIRE(c.listeners.size() == 1);
  CHECK(c.listeners[0] == Listener{"PLAINTEXT", "localhost", 9092});
  CHECK(c.effective.at("num.io.threads").source == ConfigSource::kDefault);
}

TEST_CASE("precedence: defaults < file < environment < command line", "[config]") {
  TempYaml f(
      "num.io.threads: 4\n"
      "num.network.threads: 2\n"
      "queued.max.requests: 100\n"
      "log.dirs:\n  - /tmp/a\n  - /tmp/b\n");
  std::map<std::string, std::string> env{
      {"SKIFF_NUM_NETWORK_THREADS", "5"}, {"SKIFF_QUEUED_MAX_REQUESTS", "200"}, {"PATH", "/usr/bin"}};
  auto c = load(f.path.string(), env, {"queued.max.requests=300"});
  CHECK(c.num_io_threads == 4);
  CHECK(c.effective.at("num.io.threads").source == ConfigSource::kFile);
  CHECK(c.num_network_threads == 5);
  CHECK(c.effective.at("num.network.threads").source == ConfigSource::kEnvironment);
  CHECK(c.queued_max_requests == 300);
  CHECK(c.effective.at("queued.max.requests").source == ConfigSource::kCommandLine);
  CHECK(c.log_dirs == std::vector<std::string>{"/tmp/a", "/tmp/b"});
  CHECK(c.num_partitions == 1);
}

TEST_CASE("environment variable names", "[config]") {
  CHECK(env_var_name("advertised.listeners") == "SKIFF_ADVERTISED_LISTENERS");
  auto c = load(std::nullopt, {{"SKIFF_ADVERTISED_LISTENERS", "PLAINTEXT://broker.example:19092"}});
  REQUIRE(c.advertised_listeners.size() == 1);
  CHECK(c.advertised_listeners[0] == Listener{"PLAINTEXT", "broker.example", 19092});
}

TEST_CASE("listeners: several, IPv6, wildcard", "[config]") {
  auto c = load(std::nullopt, {},
                {"listeners=PLAINTEXT://0.0.0.0:9092,INTERNAL://[::1]:9093,EXTERNAL://:9094",
                 "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT"});
  REQUIRE(c.listeners.size() == 3);
  CHECK(c.listeners[1] == Listener{"INTERNAL", "::1", 9093});
  CHECK(c.listeners[2] == Listener{"EXTERNAL", "", 9094});
  CHECK(c.listeners[1].to_string() == "INTERNAL://[::1]:9093");
}

TEST_CASE("retention: the most precise key wins", "[config]") {
  CHECK(load(std::nullopt, {}, {"log.retention.hours=1"}).log_retention_ms == 3600000);
  CHECK(load(std::nullopt, {}, {"log.retention.minutes=2", "log.retention.hours=1"}).log_retention_ms == 120000);
  CHECK(load(std::nullopt, {}, {"log.retention.ms=5", "log.retention.hours=1"}).log_retention_ms == 5);
  CHECK(load(std::nullopt, {}, {"log.retention.hours=-1"}).log_retention_ms == -1);
}

TEST_CASE("per-IP overrides parse host:n pairs", "[config]") {
  auto c = load(std::nullopt, {}, {"max.connections.per.ip.overrides=127.0.0.1:5, example.com:7"});
  CHECK(c.max_connections_per_ip_overrides == std::map<std::string, int32_t>{{"127.0.0.1", 5}, {"example.com", 7}});
}

TEST_CASE("validation errors name the key, the value and what is allowed", "[config]") {
  SECTION("unknown key in the file") {
    TempYaml f("num.io.threadz: 4\n");
    auto e = load_error(f.path.string());
    CHECK_THAT(e, Catch::Contains("Unknown configuration 'num.io.threadz'"));
  }
  SECTION("unknown key on the command line") {
    CHECK_THAT(load_error(std::nullopt, {}, {"bogus.key=1"}), Catch::Contains("'bogus.key'"));
  }
  SECTION("an unknown SKIFF_ environment variable is a warning, not an error") {
    auto c = load(std::nullopt, {{"SKIFF_NUM_IO_THREADZ", "1"}});
    REQUIRE(c.warnings.size() == 1);
    CHECK_THAT(c.warnings[0], Catch::Contains("SKIFF_NUM_IO_THREADZ"));
  }
  SECTION("wrong type") {
    auto e = load_error(std::nullopt, {}, {"num.io.threads=many"});
    CHECK_THAT(e, Catch::Contains("'many'") && Catch::Contains("'num.io.threads'") && Catch::Contains("[1, 1024]"));
  }
  SECTION("out of range, and the bound itself") {
    CHECK_THAT(load_error(std::nullopt, {}, {"skiff.network.coalesce.us=-1"}), Catch::Contains("[0, 100000]"));
    CHECK(load(std::nullopt, {}, {"skiff.network.coalesce.us=0"}).network_coalesce_us == 0);
  }
  SECTION("boolean") {
    auto e = load_error(std::nullopt, {}, {"auto.create.topics.enable=yes"});
    CHECK_THAT(e, Catch::Contains("auto.create.topics.enable") && Catch::Contains("true or false"));
  }
  SECTION("out of range") {
    auto e = load_error(std::nullopt, {{"SKIFF_NUM_NETWORK_THREADS", "0"}});
    CHECK_THAT(e, Catch::Contains("'0'") && Catch::Contains("num.network.threads") && Catch::Contains("environment"));
  }
  SECTION("log.segment.bytes: at least 1 MiB, as Kafka 4.4") {
    CHECK_THAT(load_error(std::nullopt, {}, {"log.segment.bytes=65536"}),
               Catch::Contains("log.segment.bytes") && Catch::Contains("1048576"));
    CHECK(load(std::nullopt, {}, {"log.segment.bytes=1048576"}).log_segment_bytes == 1048576);
  }
  SECTION("integer overflow") {
    CHECK_THAT(load_error(std::nullopt, {}, {"queued.max.requests=99999999999"}),
               Catch::Contains("queued.max.requests"));
  }
  SECTION("unparsable listener") {
    CHECK_THAT(load_error(std::nullopt, {}, {"listeners=localhost:9092"}),
               Catch::Contains("'listeners'") && Catch::Contains("NAME://host:port"));
    CHECK_THAT(load_error(std::nullopt, {}, {"listeners=PLAINTEXT://localhost:99999"}), Catch::Contains("[0, 65535]"));
    CHECK_THAT(load_error(std::nullopt, {}, {"listeners=PLAINTEXT://::1:9092"}), Catch::Contains("[addr]:port"));
  }
  SECTION("listener without a security protocol") {
    CHECK_THAT(load_error(std::nullopt, {}, {"listeners=SSL://localhost:9093"}),
               Catch::Contains("listener.security.protocol.map"));
  }
  SECTION("advertised listener naming no listener, or a wildcard") {
    CHECK_THAT(load_error(std::nullopt, {}, {"advertised.listeners=OTHER://h:1"}),
               Catch::Contains("names no listener"));
    CHECK_THAT(load_error(std::nullopt, {}, {"advertised.listeners=PLAINTEXT://0.0.0.0:9092"}),
               Catch::Contains("cannot connect"));
  }
  SECTION("bad override syntax") {
    CHECK_THAT(load_error(std::nullopt, {}, {"num.io.threads"}), Catch::Contains("key=value"));
  }
  SECTION("enumerations") {
    CHECK_THAT(load_error(std::nullopt, {}, {"log.message.timestamp.type=Wallclock"}),
               Catch::Contains("CreateTime, LogAppendTime"));
  }
  SECTION("file problems") {
    CHECK_THAT(load_error("/nonexistent/skiff.yaml"), Catch::Contains("Cannot read config file"));
    TempYaml bad("num.io.threads: [1, {a: b}\n");
    CHECK_THAT(load_error(bad.path.string()), Catch::Contains("not valid YAML"));
    TempYaml nested("log:\n  dirs: /x\n");
    CHECK_THAT(load_error(nested.path.string()), Catch::Contains("Unknown configuration 'log'"));
    TempYaml map_value("log.dirs: {a: b}\n");
    CHECK_THAT(load_error(map_value.path.string()), Catch::Contains("got a map"));
  }
}

TEST_CASE("describe_config lists every key with its source", "[config]") {
  auto c = load(std::nullopt, {}, {"num.io.threads=3"});
  auto text = describe_config(c);
  CHECK_THAT(text, Catch::Contains("num.io.threads") && Catch::Contains("command line"));
  CHECK_THAT(text, Catch::Contains("log.dirs") && Catch::Contains("default"));
}

TEST_CASE("log cleaner keys: Kafka's names and defaults, cleanup policy list", "[config]") {
  auto c = load(std::nullopt);
  CHECK(c.log_cleaner_enable);
  CHECK(c.log_cleaner_threads == 1);
  CHECK(c.log_cleaner_dedupe_buffer_size == 134217728);
  CHECK(c.log_cleaner_io_buffer_size == 524288);
  CHECK(c.log_cleaner_backoff_ms == 15000);
  CHECK(c.log_cleaner_delete_retention_ms == 86400000);
  CHECK(c.log_cleanup_policy == "delete");
  CHECK(load(std::nullopt, {}, {"log.cleanup.policy=Compact, delete"}).log_cleanup_policy == "compact,delete");
  CHECK(load_error(std::nullopt, {}, {"log.cleanup.policy=shred"}).find("log.cleanup.policy") != std::string::npos);
  CHECK(load_error(std::nullopt, {}, {"log.cleaner.threads=-1"}).find("log.cleaner.threads") != std::string::npos);
  CHECK(c.log_cleaner_io_buffer_load_factor == 0.9);
  CHECK(c.log_cleaner_io_max_bytes_per_second == 1.7976931348623157e308);
  CHECK(load(std::nullopt, {}, {"log.cleaner.io.max.bytes.per.second=1048576.5"}).log_cleaner_io_max_bytes_per_second ==
        1048576.5);
  CHECK(load_error(std::nullopt, {}, {"log.cleaner.io.max.bytes.per.second=fast"}).find("log.cleaner.io.max") !=
        std::string::npos);
  CHECK(load_error(std::nullopt, {}, {"log.cleaner.io.buffer.load.factor=1.5"}).find("load.factor") !=
        std::string::npos);
}

TEST_CASE("group.share.*: Kafka 4.4's defaults, bounds and cross-key rules (KIP-932)", "[config]") {
  auto c = load(std::nullopt);
  CHECK(c.group_share_session_timeout_ms == 45000);
  CHECK(c.group_share_heartbeat_interval_ms == 5000);
  CHECK(c.group_share_max_size == 200);
  CHECK(c.group_share_assignment_interval_ms == 1000);
  CHECK(c.group_share_record_lock_duration_ms == 30000);
  CHECK(c.group_share_min_record_lock_duration_ms == 15000);
  CHECK(c.group_share_max_record_lock_duration_ms == 60000);
  CHECK(c.group_share_delivery_count_limit == 5);
  CHECK(c.group_share_partition_max_record_locks == 2000);
  CHECK(c.group_share_max_share_sessions == 2000);
  CHECK(c.group_share_assignors == std::vector<std::string>{"simple"});
  CHECK(!c.errors_deadletterqueue_auto_create_topics_enable);
  CHECK(c.errors_deadletterqueue_topic_name_prefix == "dlq.");
  c = load(std::nullopt, {},
           {"group.share.assignors=org.apache.kafka.coordinator.group.assignor.SimpleAssignor",
            "group.share.delivery.count.limit=10", "group.share.max.size=7"});
  CHECK(c.group_share_assignors == std::vector<std::string>{"simple"});
  CHECK(c.group_share_delivery_count_limit == 10);
  CHECK(c.group_share_max_size == 7);
  CHECK(load_error(std::nullopt, {}, {"group.share.max.size=1001"}).find("[1, 1000]") != std::string::npos);
  CHECK(load_error(std::nullopt, {}, {"group.share.assignors=simple,simple"}).find("exactly one assignor") !=
        std::string::npos);
  CHECK(load_error(std::nullopt, {}, {"group.share.record.lock.duration.ms=10000"}) ==
        "group.share.record.lock.duration.ms must be greater than or equal to "
        "group.share.min.record.lock.duration.ms");
  CHECK(
      load_error(std::nullopt, {}, {"group.share.max.delivery.count.limit=5", "group.share.delivery.count.limit=6"}) ==
      "group.share.max.delivery.count.limit must be greater than or equal to group.share.delivery.count.limit");
  CHECK(load_error(std::nullopt, {}, {"group.share.max.size=1000", "group.share.max.share.sessions=999"}) ==
        "group.share.max.share.sessions must be greater than or equal to group.share.max.size");
}

TEST_CASE("group.consumer.*: Kafka's defaults, values and cross-key rules", "[config]") {
  auto c = load(std::nullopt);
  CHECK(c.group_consumer_session_timeout_ms == 45000);
  CHECK(c.group_consumer_min_session_timeout_ms == 45000);
  CHECK(c.group_consumer_max_session_timeout_ms == 60000);
  CHECK(c.group_consumer_heartbeat_interval_ms == 5000);
  CHECK(c.group_consumer_max_heartbeat_interval_ms == 15000);
  CHECK(c.group_consumer_assignors == std::vector<std::string>{"uniform", "range"});
  CHECK(c.group_consumer_migration_policy == "bidirectional");
  c = load(std::nullopt, {},
           {"group.consumer.assignors=range, org.apache.kafka.coordinator.group.assignor.UniformAssignor",
            "group.consumer.migration.policy=UPGRADE", "group.consumer.max.size=3"});
  CHECK(c.group_consumer_assignors == std::vector<std::string>{"range", "uniform"});
  CHECK(c.group_consumer_migration_policy == "upgrade");
  CHECK(c.group_consumer_max_size == 3);
  CHECK(load_error(std::nullopt, {}, {"group.consumer.assignors=sticky"}).find("unknown assignor 'sticky'") !=
        std::string::npos);
  CHECK(load_error(std::nullopt, {}, {"group.consumer.migration.policy=sideways"}).find("expected one of") !=
        std::string::npos);
  CHECK(load_error(std::nullopt, {}, {"group.consumer.session.timeout.ms=30000"}) ==
        "group.consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms");
  CHECK(load_error(std::nullopt, {}, {"group.consumer.max.heartbeat.interval.ms=4000"}) ==
        "group.consumer.max.heartbeat.interval.ms must be greater than or equal to "
        "group.consumer.min.heartbeat.interval.ms");
  CHECK(load_error(std::nullopt, {},
                   {"group.consumer.min.session.timeout.ms=1000", "group.consumer.session.timeout.ms=4000",
                    "group.consumer.min.heartbeat.interval.ms=1000", "group.consumer.heartbeat.interval.ms=4000"}) ==
        "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms");
}

TEST_CASE("authorizer keys: Kafka's StandardAuthorizer enables ours, super.users is ','-separated", "[config]") {
  auto none = load(std::nullopt);
  CHECK(none.authorizer_class_name.empty());
  CHECK(none.super_users.empty());
  CHECK_FALSE(none.allow_everyone_if_no_acl_found);
  auto c = load(std::nullopt, {},
                {"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                 "super.users= User:admin ;User:ops;;", "allow.everyone.if.no.acl.found=true"});
  CHECK(c.authorizer_class_name == "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
  CHECK(c.super_users == std::vector<std::string>{"User:admin", "User:ops"});
  CHECK(c.allow_everyone_if_no_acl_found);
  CHECK_THAT(load_error(std::nullopt, {}, {"authorizer.class.name=kafka.security.authorizer.AclAuthorizer"}),
             Catch::Contains("removed in Kafka 4.0") &&
                 Catch::Contains("org.apache.kafka.metadata.authorizer.StandardAuthorizer"));
  CHECK_THAT(load_error(std::nullopt, {}, {"authorizer.class.name=com.example.MyAuthorizer"}),
             Catch::Contains("unknown authorizer class 'com.example.MyAuthorizer'"));
  CHECK_THAT(load_error(std::nullopt, {}, {"super.users=admin"}),
             Catch::Contains("expected a string in format principalType:principalName but got admin"));
}

TEST_CASE("http.listeners: default, several, empty, and where the value came from", "[config]") {
  auto c = load(std::nullopt);
  REQUIRE(c.http_listeners.size() == 1);
  CHECK(c.http_listeners[0] == Listener{"http", "127.0.0.1", 8095});
  CHECK(c.effective.at("http.listeners").source == ConfigSource::kDefault);
  c = load(std::nullopt, {{"SKIFF_HTTP_LISTENERS", "HTTP://0.0.0.0:0, http://[::1]:8096"}});
  REQUIRE(c.http_listeners.size() == 2);
  CHECK(c.http_listeners[0] == Listener{"http", "0.0.0.0", 0});
  CHECK(c.http_listeners[1] == Listener{"http", "::1", 8096});
  CHECK(c.effective.at("http.listeners").source == ConfigSource::kEnvironment);
  c = load(std::nullopt, {}, {"http.listeners="});
  CHECK(c.http_listeners.empty());
  CHECK(c.effective.at("http.listeners").source == ConfigSource::kCommandLine);
}

TEST_CASE("http.listeners: a bad value says what is allowed", "[config]") {
  CHECK_THAT(load_error(std::nullopt, {}, {"http.listeners=ftp://127.0.0.1:8443"}),
             Catch::Contains("'http.listeners'") && Catch::Contains("only http:// and https://"));
  CHECK_THAT(load_error(std::nullopt, {}, {"schema.registry.listeners=tls://127.0.0.1:8081"}),
             Catch::Contains("'schema.registry.listeners'") && Catch::Contains("scheme 'tls' is not served"));
  CHECK_THAT(load_error(std::nullopt, {}, {"http.listeners=http://127.0.0.1:65536"}), Catch::Contains("[0, 65535]"));
  CHECK_THAT(load_error(std::nullopt, {}, {"http.listeners=127.0.0.1:8095"}),
             Catch::Contains("is not http://host:port or https://host:port"));
  CHECK_THAT(load_error(std::nullopt, {}, {"http.listeners=http://127.0.0.1"}), Catch::Contains("missing ':port'"));
}

TEST_CASE("group.streams.*: Kafka 4.4's defaults, bounds and startup checks (KIP-1071)", "[config]") {
  auto c = load(std::nullopt);
  CHECK(c.group_streams_session_timeout_ms == 45000);
  CHECK(c.group_streams_min_session_timeout_ms == 45000);
  CHECK(c.group_streams_max_session_timeout_ms == 60000);
  CHECK(c.group_streams_heartbeat_interval_ms == 5000);
  CHECK(c.group_streams_min_heartbeat_interval_ms == 5000);
  CHECK(c.group_streams_max_heartbeat_interval_ms == 15000);
  CHECK(c.group_streams_max_size == INT32_MAX);
  CHECK(c.group_streams_num_standby_replicas == 0);
  CHECK(c.group_streams_max_standby_replicas == 2);
  CHECK(c.group_streams_initial_rebalance_delay_ms == 0);
  CHECK(c.group_streams_num_warmup_replicas == 2);
  CHECK(c.group_streams_acceptable_recovery_lag == 10000);
  auto set = load(std::nullopt, {},
                  {"group.streams.num.standby.replicas=1", "group.streams.initial.rebalance.delay.ms=1500",
                   "group.streams.assignors=org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor",
                   "group.streams.rack.aware.assignment.tags=zone,rack"});
  CHECK(set.group_streams_num_standby_replicas == 1);
  CHECK(set.group_streams_initial_rebalance_delay_ms == 1500);
  CHECK(set.group_streams_rack_aware_assignment_tags == std::vector<std::string>{"zone", "rack"});
  CHECK(load_error(std::nullopt, {}, {"group.streams.num.standby.replicas=3"}) ==
        "group.streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas");
  CHECK(load_error(std::nullopt, {}, {"group.streams.session.timeout.ms=30000"}) ==
        "group.streams.session.timeout.ms must be greater than or equal to group.streams.min.session.timeout.ms");
  CHECK(load_error(std::nullopt, {}, {"group.streams.max.heartbeat.interval.ms=4000"}) ==
        "group.streams.max.heartbeat.interval.ms must be greater than or equal to "
        "group.streams.min.heartbeat.interval.ms");
  CHECK(load_error(std::nullopt, {},
                   {"group.streams.min.session.timeout.ms=1000", "group.streams.session.timeout.ms=4000",
                    "group.streams.min.heartbeat.interval.ms=1000", "group.streams.heartbeat.interval.ms=4000"}) ==
        "group.streams.heartbeat.interval.ms must be less than group.streams.session.timeout.ms");
  CHECK(load_error(std::nullopt, {}, {"group.streams.num.warmup.replicas=21"}) ==
        "group.streams.num.warmup.replicas must be less than or equal to group.streams.max.warmup.replicas");
  CHECK_THAT(load_error(std::nullopt, {}, {"group.streams.assignors=balanced"}),
             Catch::Contains("unknown task assignor 'balanced'"));
  CHECK_THAT(load_error(std::nullopt, {}, {"group.streams.rack.aware.assignment.tags=zone,zone"}),
             Catch::Contains("must not contain duplicate tag keys"));
  CHECK_THAT(load_error(std::nullopt, {}, {"group.streams.num.standby.replicas=-1"}),
             Catch::Contains("group.streams.num.standby.replicas"));
}
