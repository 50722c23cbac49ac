// The apache/kafka image's conventions (config/kafka_env.h): KAFKA_* names
// by Kafka's docker rule, KAFKA_LISTENERS derived from the advertised ones,
// CLUSTER_ID, TLS files under the secrets directory, Kafka's .properties
// files; and the KRaft keys of one combined node (config/kraft_keys.h),
// accepted when consistent and refused, naming the keys, when not.
#include "config/kafka_env.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "config/config_loader.h"
#include "config/properties_file.h"
#include "tests/support/temp_dir.h"

using namespace skiff::config;

namespace {

using Env = std::map<std::string, std::string>;

BrokerConfig load_env(Env env, std::optional<std::string> file = std::nullopt, std::string secrets = "/nonexistent") {
  ConfigSources s{std::move(file), std::move(env), {}};
  s.kafka_secrets_dir = std::move(secrets);
  return load_config(s);
}

std::string env_error(Env env, std::optional<std::string> file = std::nullopt, std::string secrets = "/nonexistent") {
  try {
    load_env(std::move(env), std::move(file), std::move(secrets));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool has_warning(const BrokerConfig& c, std::string_view part) {
  for (const auto& w : c.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

// What Testcontainers Java's KafkaContainer (for apache/kafka) sets, with the
// advertised listeners its start script exports.
Env testcontainers_env() {
  return {{"CLUSTER_ID", "4L6g3nShT-eMCtK--X86sw"},
          {"KAFKA_LISTENERS", "PLAINTEXT://0.0.0.0:9092,BROKER://0.0.0.0:9093,CONTROLLER://0.0.0.0:9094"},
          {"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "BROKER:PLAINTEXT,PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"},
          {"KAFKA_INTER_BROKER_LISTENER_NAME", "BROKER"},
          {"KAFKA_PROCESS_ROLES", "broker,controller"},
          {"KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER"},
          {"KAFKA_NODE_ID", "1"},
          {"KAFKA_CONTROLLER_QUORUM_VOTERS", "1@localhost:9094"},
          {"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1"},
          {"KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "1"},
          {"KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1"},
          {"KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1"},
          {"KAFKA_LOG_FLUSH_INTERVAL_MESSAGES", "9223372036854775807"},
          {"KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0"},
          {"KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://localhost:32768,BROKER://f00dcafe:9093"}};
}

}  // namespace

TEST_CASE("KAFKA_* names map to keys by Kafka's docker rule", "[config][kafka-env]") {
  CHECK(kafka_env_key("KAFKA_ADVERTISED_LISTENERS") == "advertised.listeners");
  CHECK(kafka_env_key("KAFKA_LOG_RETENTION_HOURS") == "log.retention.hours");
  // '_' in a key is written "__", '-' is "___".
  CHECK(kafka_env_key("KAFKA_LISTENER_NAME_SASL__SSL_PLAIN_SASL_JAAS_CONFIG") ==
        "listener.name.sasl_ssl.plain.sasl.jaas.config");
  CHECK(kafka_env_key("KAFKA_LISTENER_NAME_SSL___INTERNAL_SSL_CLIENT_AUTH") ==
        "listener.name.ssl-internal.ssl.client.auth");
  // The JVM's and the image's own variables, and non-KAFKA_ names, are no keys.
  CHECK_FALSE(kafka_env_key("KAFKA_HEAP_OPTS"));
  CHECK_FALSE(kafka_env_key("KAFKA_OPTS"));
  CHECK_FALSE(kafka_env_key("KAFKA_SSL_KEYSTORE_FILENAME"));
  CHECK_FALSE(kafka_env_key("KAFKA_"));
  CHECK_FALSE(kafka_env_key("SKIFF_NUM_PARTITIONS"));
  CHECK_FALSE(kafka_env_key("CLUSTER_ID"));
  for (std::string key :
       {"advertised.listeners", "group.initial.rebalance.delay.ms", "listener.name.sasl_ssl.plain.sasl.jaas.config",
        "listener.name.ssl-internal.ssl.client.auth"})
    CHECK(kafka_env_key(kafka_env_var_name(key)) == key);
}

TEST_CASE("KAFKA_* sets keys from the environment, below SKIFF_*", "[config][kafka-env]") {
  auto c = load_env({{"KAFKA_NUM_PARTITIONS", "3"},
                     {"KAFKA_LOG_RETENTION_MS", "1000"},
                     {"SKIFF_LOG_RETENTION_MS", "2000"},
                     {"KAFKA_HEAP_OPTS", "-Xmx1G"}});
  CHECK(c.num_partitions == 3);
  CHECK(c.effective.at("num.partitions").source == ConfigSource::kEnvironment);
  CHECK(c.log_retention_ms == 2000);
  CHECK_FALSE(has_warning(c, "HEAP"));
}

TEST_CASE("an unknown KAFKA_* key is warned about, and a bad value of a known one is an error", "[config][kafka-env]") {
  auto c = load_env({{"KAFKA_JMX_PORT", "9101"}, {"KAFKA_CONFLUENT_SUPPORT_METRICS_ENABLE", "false"}});
  CHECK(has_warning(c, "KAFKA_CONFLUENT_SUPPORT_METRICS_ENABLE"));
  CHECK_FALSE(has_warning(c, "JMX"));
  auto e = env_error({{"KAFKA_NUM_PARTITIONS", "many"}});
  CHECK_THAT(e, Catch::Contains("num.partitions") && Catch::Contains("many"));
}

TEST_CASE("KAFKA_LISTENERS is derived from KAFKA_ADVERTISED_LISTENERS when unset", "[config][kafka-env]") {
  auto c = load_env({{"KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://localhost:19092,INTERNAL://broker:29092"},
                     {"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT"}});
  REQUIRE(c.listeners.size() == 2);
  CHECK(c.listeners[0] == Listener{"PLAINTEXT", "0.0.0.0", 19092});
  CHECK(c.listeners[1] == Listener{"INTERNAL", "0.0.0.0", 29092});
  // Set, it is kept; SKIFF_LISTENERS also stops the derivation.
  auto kept = load_env({{"KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://localhost:19092"},
                        {"SKIFF_LISTENERS", "PLAINTEXT://127.0.0.1:19092"}});
  CHECK(kept.listeners[0] == Listener{"PLAINTEXT", "127.0.0.1", 19092});
  CHECK_THAT(env_error({{"KAFKA_ADVERTISED_LISTENERS", "localhost:9092"}}),
             Catch::Contains("KAFKA_ADVERTISED_LISTENERS") && Catch::Contains("derived"));
}

TEST_CASE("CLUSTER_ID is checked and kept for fresh log dirs", "[config][kafka-env]") {
  CHECK(load_env({{"CLUSTER_ID", "4L6g3nShT-eMCtK--X86sw"}}).kraft.cluster_id == "4L6g3nShT-eMCtK--X86sw");
  CHECK(load_env({}).kraft.cluster_id.empty());
  CHECK_THAT(env_error({{"CLUSTER_ID", "not-a-cluster-id"}}), Catch::Contains("CLUSTER_ID='not-a-cluster-id'"));
}

TEST_CASE("Testcontainers' KafkaContainer environment loads as one combined node", "[config][kafka-env]") {
  auto c = load_env(testcontainers_env());
  REQUIRE(c.listeners.size() == 3);
  CHECK(c.kraft.process_roles == std::vector<std::string>{"broker", "controller"});
  CHECK(c.kraft.is_controller_listener("CONTROLLER"));
  CHECK_FALSE(c.kraft.is_controller_listener("PLAINTEXT"));
  REQUIRE(c.kraft.quorum_voters.size() == 1);
  CHECK(c.kraft.quorum_voters[0].id == 1);
  CHECK(c.kraft.quorum_voters[0].port == 9094);
  CHECK(c.offsets_topic_num_partitions == 1);
  CHECK(c.group_initial_rebalance_delay_ms == 0);
  CHECK(c.kraft.cluster_id == "4L6g3nShT-eMCtK--X86sw");
}

TEST_CASE("inconsistent KRaft keys are refused, naming them", "[config][kafka-env]") {
  auto with = [](std::map<std::string, std::string> changes) {
    auto env = testcontainers_env();
    for (auto& [k, v] : changes) {
      if (v.empty())
        env.erase(k);
      else
        env[k] = v;
    }
    return env_error(env);
  };
  CHECK(with({}).empty());
  CHECK_THAT(with({{"KAFKA_PROCESS_ROLES", "broker"}}), Catch::Contains("process.roles=broker"));
  CHECK_THAT(with({{"KAFKA_PROCESS_ROLES", "broker,zookeeper"}}), Catch::Contains("unknown role"));
  CHECK_THAT(with({{"KAFKA_NODE_ID", "2"}}), Catch::Contains("voter 1 is not this node (node.id=2)"));
  CHECK_THAT(with({{"KAFKA_CONTROLLER_QUORUM_VOTERS", "1@a:9094,2@b:9094"}}), Catch::Contains("2 voters"));
  CHECK_THAT(with({{"KAFKA_CONTROLLER_QUORUM_VOTERS", "1@localhost:9999"}}), Catch::Contains("port 9999"));
  CHECK_THAT(with({{"KAFKA_CONTROLLER_QUORUM_VOTERS", "one@localhost"}}), Catch::Contains("controller.quorum.voters"));
  CHECK_THAT(with({{"KAFKA_CONTROLLER_QUORUM_VOTERS", ""}}), Catch::Contains("controller.quorum.voters"));
  CHECK_THAT(with({{"KAFKA_CONTROLLER_LISTENER_NAMES", "CTRL"}}), Catch::Contains("CTRL, which is not in 'listeners'"));
  CHECK_THAT(with({{"KAFKA_CONTROLLER_LISTENER_NAMES", ""}}), Catch::Contains("controller.listener.names"));
  CHECK_THAT(with({{"KAFKA_INTER_BROKER_LISTENER_NAME", "CONTROLLER"}}), Catch::Contains("is a controller listener"));
  CHECK_THAT(with({{"KAFKA_INTER_BROKER_LISTENER_NAME", "NOPE"}}), Catch::Contains("NOPE is not in 'listeners'"));
  CHECK_THAT(with({{"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "3"}}),
             Catch::Contains("offsets.topic.replication.factor=3") && Catch::Contains("set it to 1"));
  CHECK_THAT(with({{"KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "2"}}), Catch::Contains("transaction.state.log.min.isr=2"));
  // Without process.roles (Skiff's own configurations), a factor of 3 is accepted as before.
  CHECK(env_error({{"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "3"}}).empty());
}

TEST_CASE("TLS files and credentials come from the secrets directory", "[config][kafka-env]") {
  skiff::test::TempDir secrets("skiff-kafka-secrets");
  std::ofstream(secrets / "key_creds") << "s3cret\n";
  std::ofstream(secrets / "store_creds") << "changeit\n";
  Env env{{"KAFKA_SSL_KEYSTORE_FILENAME", "broker.pem"},
          {"KAFKA_SSL_KEY_CREDENTIALS", "key_creds"},
          {"KAFKA_SSL_KEYSTORE_CREDENTIALS", "store_creds"},
          {"KAFKA_SSL_TRUSTSTORE_FILENAME", "ca.pem"}};
  auto c = load_env(env, std::nullopt, secrets.path().string());
  CHECK(c.ssl.keystore_location == (secrets / "broker.pem").string());
  CHECK(c.ssl.truststore_location == (secrets / "ca.pem").string());
  CHECK(c.ssl.key_password == "s3cret");
  CHECK(c.ssl.keystore_password.empty());
  CHECK(has_warning(c, "KAFKA_SSL_KEYSTORE_CREDENTIALS ignored"));
  env["KAFKA_SSL_KEY_CREDENTIALS"] = "missing";
  CHECK_THAT(env_error(env, std::nullopt, secrets.path().string()),
             Catch::Contains("KAFKA_SSL_KEY_CREDENTIALS=missing: cannot read"));
}

TEST_CASE("Java .properties text", "[config][kafka-env]") {
  auto p = parse_properties(
      "# comment\n! also\n\n  process.roles=broker,controller\nnode.id : 1\nlog.dirs /tmp/a\n"
      "listeners=PLAINTEXT://:9092,\\\n    CONTROLLER://:9093\nsasl.jaas=a\\=b\\u00e9\\\\\r\nempty=\n");
  REQUIRE(p.size() == 6);
  CHECK(p[0] == std::pair<std::string, std::string>{"process.roles", "broker,controller"});
  CHECK(p[1] == std::pair<std::string, std::string>{"node.id", "1"});
  CHECK(p[2] == std::pair<std::string, std::string>{"log.dirs", "/tmp/a"});
  CHECK(p[3] == std::pair<std::string, std::string>{"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093"});
  CHECK(p[4] == std::pair<std::string, std::string>{"sasl.jaas", "a=b\xc3\xa9\\"});
  CHECK(p[5] == std::pair<std::string, std::string>{"empty", ""});
}

TEST_CASE("Kafka's server.properties is read as a config file, the environment above it", "[config][kafka-env]") {
  skiff::test::TempDir dir("skiff-kafka-props");
  auto path = (dir / "server.properties").string();
  // The apache/kafka image's docs example (file-input), as far as Skiff goes.
  std::ofstream(path) << "advertised.listeners=PLAINTEXT_HOST://localhost:9092,PLAINTEXT://broker:19092\n"
                         "controller.listener.names=CONTROLLER\ngroup.initial.rebalance.delay.ms=0\n"
                         "inter.broker.listener.name=PLAINTEXT\n"
                         "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,"
                         "PLAINTEXT_HOST:PLAINTEXT\nlog.dirs=/tmp/kraft-combined-logs\n"
                         "offsets.topic.replication.factor=1\nprocess.roles=broker\n"
                         "num.recovery.threads.per.data.dir=1\nreplica.lag.time.max.ms=30000\n";
  Env env{{"CLUSTER_ID", "4L6g3nShT-eMCtK--X86sw"},
          {"KAFKA_NODE_ID", "1"},
          {"KAFKA_CONTROLLER_QUORUM_VOTERS", "1@broker:29093"},
          {"KAFKA_LISTENERS", "PLAINTEXT_HOST://:9092,CONTROLLER://:29093,PLAINTEXT://:19092"},
          {"KAFKA_PROCESS_ROLES", "broker,controller"}};
  auto c = load_env(env, path);
  CHECK(c.log_dirs == std::vector<std::string>{"/tmp/kraft-combined-logs"});
  CHECK(c.effective.at("log.dirs").source == ConfigSource::kFile);
  CHECK(c.kraft.process_roles.size() == 2);  // the environment overrides the file
  CHECK(c.listeners.size() == 3);
  CHECK(has_warning(c, "replica.lag.time.max.ms"));  // a Kafka key Skiff does not know
  // A Kafka dynamic key Skiff takes with no effect (config/kafka_dynamic_keys.cc).
  CHECK_FALSE(has_warning(c, "num.recovery.threads.per.data.dir"));
  // The file alone says process.roles=broker: not one combined node.
  env.erase("KAFKA_PROCESS_ROLES");
  CHECK_THAT(env_error(env, path), Catch::Contains("process.roles=broker"));
}

TEST_CASE("a listener's own keys come from KAFKA_LISTENER_NAME_*, '_' in the name written '__'",
          "[config][kafka-env]") {
  const std::string jaas =
      "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";";
  auto c = load_env({{"KAFKA_LISTENERS", "SASL_PLAINTEXT://127.0.0.1:9092"},
                     {"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "SASL_PLAINTEXT:SASL_PLAINTEXT"},
                     {"KAFKA_SASL_ENABLED_MECHANISMS", "PLAIN"},
                     {"KAFKA_LISTENER_NAME_SASL__PLAINTEXT_PLAIN_SASL_JAAS_CONFIG", jaas}});
  CHECK(c.sasl_for("SASL_PLAINTEXT").jaas_config.at("PLAIN") == jaas);
  CHECK(c.effective.at("listener.name.sasl_plaintext.plain.sasl.jaas.config").source == ConfigSource::kEnvironment);
  // With single underscores it names no key (a warning), so PLAIN has no users: refused, naming the key.
  auto e = env_error({{"KAFKA_LISTENERS", "SASL_PLAINTEXT://127.0.0.1:9092"},
                      {"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "SASL_PLAINTEXT:SASL_PLAINTEXT"},
                      {"KAFKA_SASL_ENABLED_MECHANISMS", "PLAIN"},
                      {"KAFKA_LISTENER_NAME_SASL_PLAINTEXT_PLAIN_SASL_JAAS_CONFIG", jaas}});
  CHECK_THAT(e, Catch::Contains("listener.name.sasl_plaintext.plain.sasl.jaas.config is not set"));
}
