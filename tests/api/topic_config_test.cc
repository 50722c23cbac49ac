// Topic configs through the protocol: CreateTopics, IncrementalAlterConfigs
// and AlterConfigs accept every key Kafka 4.4 defines and refuse the others
// with INVALID_CONFIG naming the key; DescribeConfigs describes all 37 keys a
// Kafka 4.4 broker describes; a MirrorMaker-2-like sync sets them all back.
#include <catch2/catch.hpp>

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

CreateTopicsResponse::CreatableTopicResult create(test::ApiHarness& h, const std::string& name,
                                                  const std::map<std::string, std::string>& configs) {
  auto req = test::create_topics_request(name, 1, 1, configs);
  req.timeout_ms = 1000;
  return h.call<CreateTopicsResponse>(req, 7).topics.at(0);
}

// A topic's described configs (with synonyms and documentation); the
// describe itself must succeed.
std::vector<test::ConfigEntry> describe(test::ApiHarness& h, const std::string& topic) {
  auto r = test::describe_config(h, 2, topic);
  REQUIRE(r.error_code == 0);
  return r.configs;
}

IncrementalAlterConfigsResponse::AlterConfigsResourceResponse set_all(
    test::ApiHarness& h, const std::string& topic, const std::vector<std::pair<std::string, std::string>>& kv) {
  IncrementalAlterConfigsRequest req;
  IncrementalAlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = 2;
  res.resource_name = topic;
  for (const auto& [k, v] : kv) {
    IncrementalAlterConfigsRequest::AlterableConfig c;
    c.name = k;
    c.config_operation = 0;
    c.value = v;
    res.configs.push_back(c);
  }
  req.resources.push_back(res);
  return h.call<IncrementalAlterConfigsResponse>(req, 1).responses.at(0);
}

}  // namespace

TEST_CASE("DescribeConfigs describes every topic key of Kafka 4.4", "[api][admin][config]") {
  test::ApiHarness h;
  REQUIRE(create(h, "all", {}).error_code == 0);
  auto all = describe(h, "all");
  CHECK(all.size() == 37);  // what a Kafka 4.4 broker describes for a topic without overrides
  for (const char* k : {"errors.deadletterqueue.group.enable", "max.decompressed.message.bytes",
                        "remote.copy.lag.bytes", "remote.copy.lag.ms"}) {
    INFO(k);
    REQUIRE(test::find_config(all, k));
    CHECK(test::find_config(all, k)->config_source == 5);  // DEFAULT_CONFIG
  }
  CHECK(test::find_config(all, "max.decompressed.message.bytes")->value == "2147483639");
  CHECK(test::find_config(all, "max.decompressed.message.bytes")->config_type == 3);  // INT
  CHECK(test::find_config(all, "remote.copy.lag.ms")->config_type == 5);              // LONG
  CHECK(test::find_config(all, "min.cleanable.dirty.ratio")->config_type == 6);       // DOUBLE
  CHECK(test::find_config(all, "remote.copy.lag.ms")->documentation.value_or("").find("no effect") !=
        std::string::npos);
  CHECK(test::find_config(all, "retention.ms")->documentation.value_or("").find("no effect") == std::string::npos);
  REQUIRE(!test::find_config(all, "segment.bytes")->synonyms.empty());
  CHECK(test::find_config(all, "segment.bytes")->synonyms.back().name == "log.segment.bytes");
  CHECK(test::find_config(all, "flush.ms")->synonyms.empty());         // as Kafka: log.flush.interval.ms has no default
  CHECK(test::find_config(all, "internal.segment.bytes") == nullptr);  // internal: described only when set
}

TEST_CASE("Unknown and invalid topic configs: INVALID_CONFIG naming the key", "[api][admin][config]") {
  test::ApiHarness h;
  auto r = create(h, "small", {{"segment.bytes", "65536"}});
  CHECK(r.error_code == 40);
  CHECK(r.error_message == "Invalid value 65536 for configuration segment.bytes: Value must be at least 1048576");
  for (const char* gone : {"message.downconversion.enable", "message.timestamp.difference.max.ms", "no.such.key"}) {
    r = create(h, "gone", {{gone, "1"}});
    CHECK(r.error_code == 40);
    CHECK(r.error_message == std::string("Unknown topic config name: ") + gone);
  }
  CHECK(h.logs().topic("gone") == std::nullopt);
  auto ok = create(h, "ok", {{"remote.copy.lag.ms", "5"}, {"errors.deadletterqueue.group.enable", "true"}});
  REQUIRE(ok.error_code == 0);
  auto described = describe(h, "ok");
  CHECK(test::find_config(described, "remote.copy.lag.ms")->value == "5");
  CHECK(test::find_config(described, "remote.copy.lag.ms")->config_source == 1);  // TOPIC_CONFIG

  auto alt = set_all(h, "ok", {{"message.downconversion.enable", "true"}});
  CHECK(alt.error_code == 40);
  CHECK(alt.error_message == "Unknown topic config name: message.downconversion.enable");
  alt = set_all(h, "ok", {{"cleanup.policy", "compact,bogus"}});
  CHECK(alt.error_code == 40);
  CHECK(alt.error_message ==
        "Invalid value bogus for configuration cleanup.policy: String must be one of: compact, delete");

  AlterConfigsRequest legacy;
  AlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = 2;
  res.resource_name = "ok";
  AlterConfigsRequest::AlterableConfig c;
  c.name = "message.timestamp.difference.max.ms";
  c.value = "10";
  res.configs = {c};
  legacy.resources.push_back(res);
  auto lr = h.call<AlterConfigsResponse>(legacy, 2).responses.at(0);
  CHECK(lr.error_code == 40);
  CHECK(lr.error_message.value_or("").find("message.timestamp.difference.max.ms") != std::string::npos);
  CHECK(test::find_config(describe(h, "ok"), "remote.copy.lag.ms")->value == "5");  // nothing changed
}

TEST_CASE("MirrorMaker-2-like sync: setting every described key succeeds", "[api][admin][config]") {
  test::ApiHarness h;
  REQUIRE(create(h, "mm2", {}).error_code == 0);
  std::vector<std::pair<std::string, std::string>> kv;
  for (const auto& e : describe(h, "mm2")) kv.emplace_back(e.name, e.value.value_or(""));
  REQUIRE(kv.size() == 37);
  auto r = set_all(h, "mm2", kv);
  CHECK(r.error_code == 0);
  CHECK(r.error_message == std::nullopt);
  auto after = describe(h, "mm2");
  CHECK(after.size() == 37);
  for (const auto& e : after) CHECK(e.config_source == 1);  // all TOPIC_CONFIG now
  h.restart();
  CHECK(describe(h, "mm2").size() == 37);
  CHECK(h.logs().topic("mm2")->overrides.size() == 37);
}

TEST_CASE("Tiered storage topic rules through CreateTopics and alters", "[api][admin][config][tiered]") {
  SECTION("system disabled: remote storage refused as by Kafka without tiered storage") {
    test::ApiHarness h;
    auto r = create(h, "t", {{"remote.storage.enable", "true"}});
    CHECK(r.error_code == 40);
    CHECK(r.error_message ==
          "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log "
          "storage.");
  }
  SECTION("system enabled: Kafka's joint rules with the broker's defaults") {
    test::ApiHarness h({"log.retention.ms=100000"}, [](config::BrokerConfig& c) { c.tiered_storage.enabled = true; });
    auto r = create(h, "compacted", {{"remote.storage.enable", "true"}, {"cleanup.policy", "compact"}});
    CHECK(r.error_code == 40);
    CHECK(r.error_message ==
          "Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.");
    r = create(h, "local", {{"remote.storage.enable", "true"}, {"local.retention.ms", "200000"}});
    CHECK(r.error_code == 40);
    CHECK(r.error_message ==
          "Invalid value 200000 for configuration local.retention.ms: Value must not be more than retention.ms "
          "property value: 100000");
    CHECK(h.logs().topic("local") == std::nullopt);
    // An existing compacted topic cannot turn remote storage on (IncrementalAlterConfigs keeps its policy).
    REQUIRE(create(h, "c", {{"cleanup.policy", "compact"}}).error_code == 0);
    auto alt = set_all(h, "c", {{"remote.storage.enable", "true"}});
    CHECK(alt.error_code == 40);
    CHECK(alt.error_message ==
          "Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.");
  }
}
