// The v2 API over a real KafkaApis in-process (tests/api/api_harness.h), no
// HTTP: produce and read back through consumer instances (assigned, and
// subscribed as group members: one alone, then two sharing the partitions),
// commits, metadata and Kafka's errors in Confluent's codes.
#include <catch2/catch.hpp>
#include <thread>

#include "apps/rest_proxy/v2_formats.h"
#include "apps/rest_proxy/v2_routes.h"
#include "common/base64.h"
#include "common/json.h"
#include "common/json_writer.h"
#include "common/kafka_hash.h"
#include "protocol/generated/create_topics_response.h"
#include "server/rest_proxy_formats.h"
#include "tests/api/api_harness.h"
#include "tests/apps/schema_registry/fake_log.h"

namespace skiff::restproxy {
namespace {

class V2InProcess {
 public:
  explicit V2InProcess(const std::shared_ptr<EmbeddedFormats>& formats = nullptr) {
    RestKafka kafka{harness_.apis(), sender_, "PLAINTEXT"};
    consumers_ = std::make_unique<ConsumerInstances>(kafka, formats, limits_);
    consumers_->start(std::chrono::milliseconds(100));
    services_ = std::make_unique<V2Services>(V2Services{kafka, *consumers_, formats});
    auto created = harness_.call<protocol::CreateTopicsResponse>(test::create_topics_request("t", 3, 1), 7);
    REQUIRE(created.topics.at(0).error_code == 0);
  }
  ~V2InProcess() { consumers_.reset(); }  // leaves the groups while Kafka is there

  network::HttpResponse call(const std::string& method, const std::vector<std::string>& path,
                             const std::string& body = "", const std::string& type = "application/vnd.kafka.v2+json",
                             std::map<std::string, std::string> query = {}) {
    network::HttpRequest req;
    req.method = method;
    req.body = body;
    req.content_type = type;
    req.query = std::move(query);
    RestCall c{req, path, "User:ANONYMOUS", "", "http://proxy", limits_};
    auto r = dispatch_v2(*services_, c);
    REQUIRE(r);
    return *r;
  }
  JsonValue ok(const network::HttpResponse& r, int status = 200) {
    INFO(r.body);
    REQUIRE(r.status == status);
    if (status == 204) return {};
    auto v = parse_json(r.body);
    REQUIRE(v);
    return *v;
  }
  // GET records `rounds` times, no checks (for another thread: Catch's
  // assertions are the main thread's).
  void poll_unchecked(const std::string& name, int rounds) {
    for (int i = 0; i < rounds; ++i) {
      network::HttpRequest req;
      req.method = "GET";
      req.query = {{"timeout", "200"}};
      const std::vector<std::string> path{"consumers", "g", "instances", name, "records"};
      RestCall c{req, path, "User:ANONYMOUS", "", "http://proxy", limits_};
      (void)dispatch_v2(*services_, c);
    }
  }
  // GET records until `count` arrived or `rounds` polls were made.
  std::vector<JsonValue> poll(const std::string& name, size_t count, int rounds = 40) {
    std::vector<JsonValue> got;
    for (int i = 0; i < rounds && got.size() < count; ++i) {
      auto batch = ok(call("GET", {"consumers", "g", "instances", name, "records"}, "", "", {{"timeout", "200"}}));
      for (auto& r : batch.array) got.push_back(std::move(r));
    }
    return got;
  }

 private:
  test::ApiHarness harness_;
  client::InProcessSender sender_;
  RestLimits limits_;
  std::unique_ptr<ConsumerInstances> consumers_;
  std::unique_ptr<V2Services> services_;
};

std::string produce_body(int n) {
  std::string body = R"({"records": [)";
  for (int i = 0; i < n; ++i) {
    if (i) body += ",";
    body += R"({"key": ")" + base64_encode("k" + std::to_string(i)) + R"(", "value": ")" +
            base64_encode("v" + std::to_string(i)) + R"("})";
  }
  return body + "]}";
}

constexpr const char* kBinary = "application/vnd.kafka.binary.v2+json";

}  // namespace

TEST_CASE("v2 in-process: produced records land by murmur2 and read back through an assigned instance",
          "[rest_proxy]") {
  V2InProcess p;
  auto produced = p.ok(p.call("POST", {"topics", "t"}, produce_body(9), kBinary));
  const auto& offsets = produced.find("offsets")->array;
  REQUIRE(offsets.size() == 9);
  for (int i = 0; i < 9; ++i) {
    CHECK(offsets[i].find("partition")->number == kafka_key_partition("k" + std::to_string(i), 3));
    CHECK(offsets[i].find("error_code")->kind == JsonValue::Kind::kNull);
  }
  CHECK(produced.find("value_schema_id")->kind == JsonValue::Kind::kNull);

  p.ok(p.call("POST", {"consumers", "g"}, R"({"name": "m", "format": "binary"})"));
  p.ok(p.call("POST", {"consumers", "g", "instances", "m", "assignments"},
              R"({"partitions": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1},
                                 {"topic": "t", "partition": 2}]})"),
       204);
  p.ok(p.call("POST", {"consumers", "g", "instances", "m", "positions", "beginning"},
              R"({"partitions": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1},
                                 {"topic": "t", "partition": 2}]})"),
       204);
  const auto got = p.poll("m", 9);
  REQUIRE(got.size() == 9);
  std::set<std::string> pairs;
  for (const auto& r : got) {
    pairs.insert(*base64_decode(r.find("key")->string) + "=" + *base64_decode(r.find("value")->string));
    const auto k = *base64_decode(r.find("key")->string);
    CHECK(r.find("partition")->number == kafka_key_partition(k, 3));
  }
  CHECK(pairs.size() == 9);
  CHECK(pairs.count("k4=v4") == 1);

  // Commit all consumed, then read the commits back.
  p.ok(p.call("POST", {"consumers", "g", "instances", "m", "offsets"}));
  auto committed = p.ok(p.call("GET", {"consumers", "g", "instances", "m", "offsets"},
                               R"({"partitions": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1},
                                                  {"topic": "t", "partition": 2}]})"));
  int64_t total = 0;
  for (const auto& o : committed.find("offsets")->array) total += static_cast<int64_t>(o.find("offset")->number);
  CHECK(total == 9);
}

TEST_CASE("v2 in-process: a subscribed instance joins its group and reads from the earliest", "[rest_proxy]") {
  V2InProcess p;
  p.ok(p.call("POST", {"topics", "t"}, produce_body(6), kBinary));
  p.ok(p.call("POST", {"consumers", "g"}, R"({"name": "a", "auto.offset.reset": "earliest"})"));
  p.ok(p.call("POST", {"consumers", "g", "instances", "a", "subscription"}, R"({"topics": ["t"]})"), 204);
  CHECK(p.poll("a", 6).size() == 6);
  auto assigned = p.ok(p.call("GET", {"consumers", "g", "instances", "a", "assignments"}));
  CHECK(assigned.find("partitions")->array.size() == 3);

  // A second member: the group rebalances, each gets part of the partitions.
  p.ok(p.call("POST", {"consumers", "g"}, R"({"name": "b", "auto.offset.reset": "earliest"})"));
  p.ok(p.call("POST", {"consumers", "g", "instances", "b", "subscription"}, R"({"topics": ["t"]})"), 204);
  std::thread second([&] { p.poll_unchecked("b", 30); });
  size_t mine = 3;
  for (int i = 0; i < 100 && mine == 3; ++i) {
    p.poll("a", 1000, 1);
    mine = p.ok(p.call("GET", {"consumers", "g", "instances", "a", "assignments"})).find("partitions")->array.size();
  }
  second.join();
  const size_t theirs =
      p.ok(p.call("GET", {"consumers", "g", "instances", "b", "assignments"})).find("partitions")->array.size();
  CHECK(mine + theirs == 3);
  CHECK(mine >= 1);
  CHECK(theirs >= 1);
  p.ok(p.call("DELETE", {"consumers", "g", "instances", "b"}), 204);
}

TEST_CASE("v2 in-process: metadata and Kafka's errors in Confluent's codes", "[rest_proxy]") {
  V2InProcess p;
  auto topics = p.ok(p.call("GET", {"topics"}));
  REQUIRE(topics.kind == JsonValue::Kind::kArray);
  bool found = false;
  for (const auto& t : topics.array) found = found || t.string == "t";
  CHECK(found);
  auto topic = p.ok(p.call("GET", {"topics", "t"}));
  CHECK(topic.find("partitions")->array.size() == 3);
  CHECK(topic.find("configs")->find("cleanup.policy") != nullptr);
  auto partition = p.ok(p.call("GET", {"topics", "t", "partitions", "2"}));
  CHECK(partition.find("partition")->number == 2);
  CHECK(partition.find("replicas")->array.at(0).find("leader")->boolean);
  CHECK(p.ok(p.call("GET", {"brokers"})).find("brokers")->array.size() == 1);

  auto r = p.call("POST", {"topics", "nope"}, produce_body(1), kBinary);
  CHECK(r.status == 404);
  CHECK(r.body == R"({"error_code":40401,"message":"Topic not found."})");
  r = p.call("GET", {"topics", "t", "partitions", "3"});
  CHECK(r.status == 404);
  CHECK(parse_json(r.body)->find("error_code")->number == 40402);
  r = p.call("POST", {"topics", "t"}, R"({"records": [{"value": {"a": 1}}]})", "application/vnd.kafka.avro.v2+json");
  CHECK(parse_json(r.body)->find("error_code")->number == 42202);
  r = p.call("POST", {"topics", "t"}, R"({"value_schema_id": 1, "records": [{"value": 1}]})",
             "application/vnd.kafka.avro.v2+json");
  CHECK(parse_json(r.body)->find("error_code")->number == 42207);  // no registry
}

namespace {

// Produces `records` in `type` with `schemas` (JSON members), then reads
// the topic from the start through an instance of `format`: its records.
std::vector<JsonValue> round_trip(V2InProcess& p, const std::string& type, const std::string& format,
                                  const std::string& schemas, const std::string& records, size_t count) {
  auto produced = p.ok(p.call("POST", {"topics", "t"}, "{" + schemas + R"(, "records": )" + records + "}",
                              "application/vnd.kafka." + type + ".v2+json"));
  CHECK(produced.find("value_schema_id")->kind == JsonValue::Kind::kNumber);
  p.ok(p.call("POST", {"consumers", "g"}, R"({"name": ")" + format + R"(", "format": ")" + format + R"("})"));
  const std::string all = R"({"partitions": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1},
                                              {"topic": "t", "partition": 2}]})";
  p.ok(p.call("POST", {"consumers", "g", "instances", format, "assignments"}, all), 204);
  p.ok(p.call("POST", {"consumers", "g", "instances", format, "positions", "beginning"}, all), 204);
  return p.poll(format, count);
}

}  // namespace

TEST_CASE("v2 in-process: the schema formats through the registry, registered, framed and read back", "[rest_proxy]") {
  schemareg::testing::FakeLog log;
  schemareg::RegistryService registry(log);
  V2InProcess p(std::make_shared<server::RegistryFormats>(registry));
  const std::string order =
      R"({\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},)"
      R"({\"name\":\"item\",\"type\":\"string\"}]})";
  auto got = round_trip(p, "avro", "avro", R"("key_schema": "\"string\"", "value_schema": ")" + order + "\"",
                        R"([{"key": "a", "value": {"id": 1, "item": "x"}}])", 1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].find("key")->string == "a");
  CHECK(got[0].find("value")->find("id")->number == 1);
  CHECK(got[0].find("value")->find("item")->string == "x");
  auto latest = registry.get_version("t-value", "latest", false);
  REQUIRE(latest);
  CHECK(registry.get_version("t-key", "latest", false));

  // By id, and values the schema does not take.
  auto r = p.call("POST", {"topics", "t"},
                  R"({"value_schema_id": )" + std::to_string(latest->id) + R"(, "records": [{"value": {"id": "no"}}]})",
                  "application/vnd.kafka.avro.v2+json");
  CHECK(r.status == 422);
  CHECK(parse_json(r.body)->find("error_code")->number == 42207);
  r = p.call("POST", {"topics", "t"}, R"({"value_schema_id": 999, "records": [{"value": 1}]})",
             "application/vnd.kafka.avro.v2+json");
  CHECK(parse_json(r.body)->find("error_code")->number == 42207);
  r = p.call("POST", {"topics", "t"}, R"({"value_schema": "{not avro", "records": [{"value": 1}]})",
             "application/vnd.kafka.avro.v2+json");
  CHECK(parse_json(r.body)->find("error_code")->number == 42205);
}

TEST_CASE("v2 in-process: jsonschema and protobuf values read back as JSON", "[rest_proxy]") {
  schemareg::testing::FakeLog log;
  schemareg::RegistryService registry(log);
  V2InProcess p(std::make_shared<server::RegistryFormats>(registry));
  auto got = round_trip(p, "jsonschema", "jsonschema",
                        R"("value_schema": "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}}}")",
                        R"([{"value": {"id": 3}}])", 1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].find("value")->find("id")->number == 3);
  CHECK(registry.get_version("t-value", "latest", false)->type == schema::SchemaType::kJson);
}

TEST_CASE("v2 in-process: protobuf values read back as JSON", "[rest_proxy]") {
  schemareg::testing::FakeLog log;
  schemareg::RegistryService registry(log);
  V2InProcess p(std::make_shared<server::RegistryFormats>(registry));
  auto got =
      round_trip(p, "protobuf", "protobuf",
                 R"("value_schema": "syntax = \"proto3\";\nmessage Order {\n  int64 id = 1;\n  string item = 2;\n}\n")",
                 R"([{"value": {"id": 5, "item": "hat"}}])", 1);
  REQUIRE(got.size() == 1);
  INFO(skiff::compact_json(got[0]));
  CHECK(got[0].find("value")->find("item")->string == "hat");
}

}  // namespace skiff::restproxy
