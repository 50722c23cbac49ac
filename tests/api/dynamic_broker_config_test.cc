// Dynamic broker configs through KafkaApis: IncrementalAlterConfigs and
// AlterConfigs on the BROKER resource (node "1" and the cluster default ""),
// applied live to topics without an override and to connection quotas,
// described with Kafka's sources and synonyms, durable across a restart.
#include <spdlog/spdlog.h>

#include "protocol/generated/alter_configs_request.h"
#include "protocol/generated/alter_configs_response.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "protocol/generated/incremental_alter_configs_request.h"
#include "protocol/generated/incremental_alter_configs_response.h"
#include "tests/api/api_harness.h"
#include "tests/api/handler_calls.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

using Op = std::tuple<std::string, int8_t, std::optional<std::string>>;  // name, operation, value

IncrementalAlterConfigsResponse::AlterConfigsResourceResponse alter(test::ApiHarness& h, const std::string& broker,
                                                                    const std::vector<Op>& ops,
                                                                    bool validate_only = false) {
  IncrementalAlterConfigsRequest req;
  IncrementalAlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = 4;
  res.resource_name = broker;
  for (auto& [name, op, value] : ops) {
    IncrementalAlterConfigsRequest::AlterableConfig c;
    c.name = name;
    c.config_operation = op;
    c.value = value;
    res.configs.push_back(c);
  }
  req.resources.push_back(res);
  req.validate_only = validate_only;
  auto r = h.call<IncrementalAlterConfigsResponse>(req, 1);
  REQUIRE(r.responses.size() == 1);
  return r.responses[0];
}

// "SOURCE:name=value" per synonym, in order.
std::vector<std::string> synonyms(const DescribeConfigsResponse::DescribeConfigsResourceResult& c) {
  std::vector<std::string> out;
  for (const auto& s : c.synonyms)
    out.push_back(std::to_string(s.source) + ":" + s.name + "=" + s.value.value_or("null"));
  return out;
}

void create_topic(test::ApiHarness& h, const std::string& name,
                  const std::map<std::string, std::string>& configs = {}) {
  auto req = test::create_topics_request(name, 1, 1, configs);
  REQUIRE(h.call<CreateTopicsResponse>(req, 7).topics.at(0).error_code == 0);
}

}  // namespace

TEST_CASE("broker log defaults change live for topics without an override, and survive a restart", "[api][dynamic]") {
  test::ApiHarness h({"message.max.bytes=3000000"});
  create_topic(h, "plain");
  create_topic(h, "own", {{"retention.ms", "777"}});
  REQUIRE(alter(h, "", {{"log.retention.ms", 0, "1000"}, {"message.max.bytes", 0, "5000"}}).error_code == 0);
  REQUIRE(alter(h, "1", {{"message.max.bytes", 0, "2000"}}).error_code == 0);
  auto check = [&] {
    CHECK(h.logs().get_log("plain", 0)->config()->retention_ms == 1000);
    CHECK(h.logs().get_log("own", 0)->config()->retention_ms == 777);          // its override wins
    CHECK(h.logs().get_log("plain", 0)->config()->max_message_bytes == 2000);  // per-broker > default
    auto b = test::describe_config(h, 4, "1");
    REQUIRE(b.error_code == 0);
    auto* mmb = test::find_config(b.configs, "message.max.bytes");
    REQUIRE(mmb);
    CHECK(mmb->value == "2000");
    CHECK(mmb->config_source == 2);  // DYNAMIC_BROKER_CONFIG
    CHECK_FALSE(mmb->read_only);
    CHECK(synonyms(*mmb) == std::vector<std::string>{"2:message.max.bytes=2000", "3:message.max.bytes=5000",
                                                     "4:message.max.bytes=3000000", "5:message.max.bytes=1048588"});
    CHECK(test::find_config(b.configs, "node.id")->read_only);
    auto d = test::describe_config(h, 4, "");  // the cluster default lists only what is set there
    REQUIRE(d.configs.size() == 2);
    CHECK(synonyms(*test::find_config(d.configs, "message.max.bytes")) ==
          std::vector<std::string>{"3:message.max.bytes=5000"});
    auto t = test::describe_config(h, 2, "plain");
    auto* ret = test::find_config(t.configs, "retention.ms");
    REQUIRE(ret);
    CHECK(ret->value == "1000");
    CHECK(ret->config_source == 3);  // DYNAMIC_DEFAULT_BROKER_CONFIG
  };
  check();
  h.restart();
  check();
  create_topic(h, "later");  // new topics inherit the dynamic defaults too
  CHECK(h.logs().get_log("later", 0)->config()->retention_ms == 1000);

  SECTION("deleting uncovers the next level, live") {
    REQUIRE(alter(h, "1", {{"message.max.bytes", 1, std::nullopt}}).error_code == 0);
    CHECK(h.logs().get_log("plain", 0)->config()->max_message_bytes == 5000);
    REQUIRE(alter(h, "", {{"message.max.bytes", 1, std::nullopt}}).error_code == 0);
    CHECK(h.logs().get_log("plain", 0)->config()->max_message_bytes == 3000000);
  }
  SECTION("AlterConfigs replaces every value of the resource") {
    AlterConfigsRequest req;
    AlterConfigsRequest::AlterConfigsResource res;
    res.resource_type = 4;
    res.resource_name = "";
    AlterConfigsRequest::AlterableConfig c;
    c.name = "log.retention.bytes";
    c.value = "123456";
    res.configs = {c};
    req.resources.push_back(res);
    CHECK(h.call<AlterConfigsResponse>(req, 1).responses.at(0).error_code == 0);
    auto cfg = h.logs().get_log("plain", 0)->config();
    CHECK(cfg->retention_bytes == 123456);
    CHECK(cfg->retention_ms == 604800000);  // log.retention.ms default value gone
  }
}

TEST_CASE("broker config changes are refused as Kafka 4.4 refuses them, changing nothing", "[api][dynamic]") {
  test::ApiHarness h;
  create_topic(h, "t");
  auto r = alter(h, "1", {{"node.id", 0, "3"}, {"log.retention.ms", 0, "1000"}});
  CHECK(r.error_code == 42);  // INVALID_REQUEST
  CHECK(r.error_message == "Cannot update these configs dynamically: [node.id]");
  r = alter(h, "", {{"log.retention.check.interval.ms", 0, "3"}});  // num.io.threads is dynamic now
  CHECK(r.error_message == "Cannot update these configs dynamically: [log.retention.check.interval.ms]");
  r = alter(h, "", {{"log.segment.bytes", 0, "5"}});
  CHECK(r.error_code == 42);
  CHECK(r.error_message.value_or("").rfind("Invalid value 5 for configuration log.segment.bytes: ", 0) == 0);
  r = alter(h, "2", {{"message.max.bytes", 0, "5"}});
  CHECK(r.error_code == 42);
  CHECK(r.error_message == "Unexpected broker id, expected 1 or empty string, but received 2");
  r = alter(h, "1", {{"message.max.bytes", 2, "5"}});  // APPEND on a number
  CHECK(r.error_message == "Config value append is not allowed for config key: message.max.bytes");
  CHECK(alter(h, "1", {{"log.retention.ms", 0, "1000"}}, /*validate_only=*/true).error_code == 0);
  CHECK(h.logs().get_log("t", 0)->config()->retention_ms == 604800000);
  CHECK(test::describe_config(h, 4, "").configs.empty());
}

TEST_CASE("connection limits and per-IP overrides change live", "[api][dynamic]") {
  test::ApiHarness h;
  CHECK(h.quotas().limit_for("10.0.0.1") == INT32_MAX);
  REQUIRE(alter(h, "", {{"max.connections.per.ip", 0, "5"}}).error_code == 0);
  REQUIRE(alter(h, "1", {{"max.connections.per.ip.overrides", 2, "10.0.0.2:7"}}).error_code == 0);
  REQUIRE(alter(h, "1", {{"max.connections.per.ip.overrides", 2, "10.0.0.3:1"}}).error_code == 0);
  CHECK(h.quotas().limit_for("10.0.0.1") == 5);
  CHECK(h.quotas().limit_for("10.0.0.2") == 7);
  CHECK(h.quotas().limit_for("10.0.0.3") == 1);
  auto a = h.quotas().try_acquire("10.0.0.3");
  CHECK(a);
  CHECK_FALSE(h.quotas().try_acquire("10.0.0.3"));
  REQUIRE(alter(h, "1", {{"max.connections.per.ip.overrides", 3, "10.0.0.3:1"}}).error_code == 0);
  CHECK(h.quotas().try_acquire("10.0.0.3"));
  REQUIRE(alter(h, "1", {{"max.connections", 0, "1"}}).error_code == 0);
  CHECK_FALSE(h.quotas().try_acquire("10.0.0.9"));
}

TEST_CASE("BROKER_LOGGER: levels described in log4j's names and changed live, as Kafka 4.4 answers", "[api][dynamic]") {
  test::ApiHarness h;
  auto level_of = [&](const std::string& logger) {
    auto d = test::describe_config(h, 8, "1");
    REQUIRE(d.error_code == 0);
    auto* e = test::find_config(d.configs, logger);
    REQUIRE(e);
    CHECK(e->config_source == 6);  // DYNAMIC_BROKER_LOGGER_CONFIG
    return e->value.value_or("");
  };
  auto names = test::describe_config(h, 8, "1").configs;
  REQUIRE(names.size() == 6);
  CHECK(names[0].name == "api");
  CHECK(names[1].name == "coordinator");
  CHECK(names[5].name == "storage");
  CHECK(level_of("root") == "INFO");

  auto set = [&](const std::vector<Op>& ops) {
    IncrementalAlterConfigsRequest req;
    IncrementalAlterConfigsRequest::AlterConfigsResource res;
    res.resource_type = 8;
    res.resource_name = "1";
    for (auto& [name, op, value] : ops) {
      IncrementalAlterConfigsRequest::AlterableConfig c;
      c.name = name;
      c.config_operation = op;
      c.value = value;
      res.configs.push_back(c);
    }
    req.resources.push_back(res);
    return h.call<IncrementalAlterConfigsResponse>(req, 1).responses.at(0);
  };
  REQUIRE(set({{"storage", 0, "TRACE"}}).error_code == 0);
  CHECK(level_of("storage") == "TRACE");
  CHECK(spdlog::get("storage")->level() == spdlog::level::trace);  // live
  REQUIRE(set({{"root", 0, "WARN"}}).error_code == 0);
  CHECK(level_of("api") == "WARN");
  CHECK(level_of("storage") == "TRACE");  // its own level stays
  REQUIRE(set({{"storage", 1, std::nullopt}}).error_code == 0);
  CHECK(level_of("storage") == "WARN");  // back to root's

  auto r = set({{"root", 0, "LOUD"}});
  CHECK(r.error_code == 40);
  CHECK(r.error_message ==
        "Cannot set the log level of root to LOUD as it is not a supported log level. Valid log "
        "levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN");
  r = set({{"root", 1, std::nullopt}});
  CHECK(r.error_code == 42);
  CHECK(r.error_message == "Removing the log level of the root logger is not allowed");
  r = set({{"no.such", 0, "DEBUG"}});
  CHECK(r.error_code == 40);
  CHECK(r.error_message == "Logger no.such does not exist!");
  CHECK(test::describe_config(h, 8, "2").error_code == 42);
  REQUIRE(set({{"root", 0, "INFO"}}).error_code == 0);  // leave the process as found
  CHECK(level_of("server") == "INFO");
}

TEST_CASE("dynamic broker configs: the stored records round-trip, a bad one is refused", "[api][dynamic]") {
  config::DynamicValues v;
  v.broker = {{"max.connections.per.ip.overrides", "127.0.0.1:5,::1:6"}, {"log.retention.ms", "1\t2"}};
  v.cluster = {{"log.retention.ms", "1000"}};
  auto records = server::encode_dynamic_values(v);
  CHECK(records.size() == 3);
  auto back = server::decode_dynamic_values(records);
  CHECK(back.broker == v.broker);
  CHECK(back.cluster == v.cluster);
  records[0][0] = 7;  // no such scope
  CHECK_THROWS_WITH(server::decode_dynamic_values(records), Catch::Contains("unknown scope 7"));
  CHECK_THROWS(server::decode_dynamic_values({records[1] + "x"}));
}

TEST_CASE("Kafka 4.4's dynamic keys Skiff lacks: accepted per broker, described as Kafka, kept", "[api][dynamic]") {
  // Kafka 4.4 (kafka-configs --entity-name 1 --add-config, then --describe):
  //   sasl.kerberos.min.time.before.relogin=70000 synonyms={DYNAMIC_BROKER_CONFIG:...=70000,
  //     DEFAULT_CONFIG:sasl.kerberos.min.time.before.relogin=60000}
  //   listener.name.plaintext.sasl.kerberos.min.time.before.relogin=1234 synonyms={DYNAMIC_BROKER_CONFIG:
  //     listener.name.plaintext...=1234, DYNAMIC_BROKER_CONFIG:sasl.kerberos...=70000, DEFAULT_CONFIG:...=60000}
  test::ApiHarness h;
  const std::string key = "sasl.kerberos.min.time.before.relogin";
  const std::string per_listener = "listener.name.plaintext." + key;
  REQUIRE(alter(h, "1", {{key, 0, "70000"}, {per_listener, 0, "1234"}}).error_code == 0);
  auto check = [&] {
    auto b = test::describe_config(h, 4, "1");
    auto* k = test::find_config(b.configs, key);
    REQUIRE(k);
    CHECK(k->value == "70000");
    CHECK(k->config_source == 2);
    CHECK_FALSE(k->read_only);
    CHECK(synonyms(*k) == std::vector<std::string>{"2:" + key + "=70000", "5:" + key + "=60000"});
    auto* l = test::find_config(b.configs, per_listener);
    REQUIRE(l);
    CHECK(l->value == "1234");
    CHECK(synonyms(*l) ==
          std::vector<std::string>{"2:" + per_listener + "=1234", "2:" + key + "=70000", "5:" + key + "=60000"});
  };
  check();
  h.restart();
  check();
  auto r = alter(h, "", {{key, 0, "70000"}});
  CHECK(r.error_code == 42);
  CHECK(r.error_message ==
        "Cannot update these configs at default cluster level, broker id must be specified: [" + key + "]");
  r = alter(h, "1", {{"ssl.keystore.location", 0, "/x"}});
  CHECK(r.error_message ==
        "These security configs can be dynamically updated only per-listener using the listener prefix: "
        "[ssl.keystore.location]");
  REQUIRE(alter(h, "", {{"listener.name.plaintext.max.connections", 0, "100"}}).error_code == 0);
  auto d = test::describe_config(h, 4, "");
  auto* mc = test::find_config(d.configs, "listener.name.plaintext.max.connections");
  REQUIRE(mc);
  CHECK(synonyms(*mc) == std::vector<std::string>{"3:listener.name.plaintext.max.connections=100"});
  // Kafka 4.4: foo.bar.baz=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:foo.bar.baz=null}
  REQUIRE(alter(h, "1", {{"foo.bar.baz", 0, "1"}}).error_code == 0);
  auto b = test::describe_config(h, 4, "1");
  auto* custom = test::find_config(b.configs, "foo.bar.baz");
  REQUIRE(custom);
  CHECK(custom->is_sensitive);
  CHECK(!custom->value);
  CHECK(synonyms(*custom) == std::vector<std::string>{"2:foo.bar.baz=null"});
  CHECK(alter(h, "1", {{"replica.lag.time.max.ms", 0, "1"}}).error_message ==
        "Cannot update these configs dynamically: [replica.lag.time.max.ms]");
}
