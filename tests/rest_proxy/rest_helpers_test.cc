// The REST proxy's small helpers: Kafka errors as Confluent's statuses and
// codes (rest_kafka_errors.h), instants as java.time.Instant prints them and
// ISO-8601 read back (v3_records.h), JSON values as compact text, path
// segments percent-decoded and which requests stream their body
// (rest_proxy_app.h), the error body (rest_errors.h).
#include <catch2/catch.hpp>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/rest_kafka_errors.h"
#include "apps/rest_proxy/rest_proxy_app.h"
#include "apps/rest_proxy/v3_records.h"
#include "common/json_writer.h"

using namespace skiff;
using namespace skiff::restproxy;

TEST_CASE("rest_kafka_errors: Kafka codes map to Confluent's status and error code", "[rest_proxy]") {
  struct Case {
    int16_t code;
    int status, rest;
  } cases[] = {{29, 403, 40301}, {31, 403, 40301}, {30, 403, 40301}, {3, 404, 40403},  {69, 404, 40404},
               {36, 400, 40002}, {37, 400, 40002}, {40, 400, 40002}, {10, 400, 40002}, {7, 500, 50003},
               {15, 500, 50003}, {89, 429, 42901}, {8, 503, 50302},  {-1, 500, 50002}, {58, 401, 40101}};
  for (const auto& c : cases) {
    auto e = kafka_rest_error(c.code, std::nullopt);
    INFO("code " << c.code);
    CHECK(e.status == c.status);
    CHECK(e.error_code == c.rest);
  }
  CHECK(std::string(kafka_rest_error(29, std::string("denied")).what()) == "denied");
  CHECK(std::string(kafka_rest_error(3, std::nullopt).what()) == "UNKNOWN_TOPIC_OR_PARTITION");
  CHECK_NOTHROW(throw_kafka_error(0));
  CHECK_THROWS_AS(throw_kafka_error(29), RestError);
}

TEST_CASE("v3 records: instants print as Instant does and ISO-8601 reads back", "[rest_proxy]") {
  CHECK(iso_instant(0) == "1970-01-01T00:00:00Z");
  CHECK(iso_instant(1612552482123) == "2021-02-05T19:14:42.123Z");
  CHECK(iso_instant(1612552482000) == "2021-02-05T19:14:42Z");
  CHECK(parse_iso_instant("2021-02-05T19:14:42.123Z") == 1612552482123);
  CHECK(parse_iso_instant("2021-02-05T19:14:42Z") == 1612552482000);
  CHECK(parse_iso_instant("2021-02-05T20:14:42.5+01:00") == 1612552482500);
  CHECK_FALSE(parse_iso_instant("2021-02-05 19:14:42Z"));
  CHECK_FALSE(parse_iso_instant("yesterday"));
  CHECK_FALSE(parse_iso_instant("2021-02-05T19:14:42Zjunk"));
}

TEST_CASE("v3 records: JSON values as compact text, numbers as written", "[rest_proxy]") {
  auto v = parse_json(R"( { "a" : [1.50, true, null, "x\"y"], "b": {"c": -12345678901234567890} } )");
  REQUIRE(v);
  CHECK(skiff::compact_json(*v) == R"({"a":[1.50,true,null,"x\"y"],"b":{"c":-12345678901234567890}})");
}

TEST_CASE("rest proxy: path segments, streamed bodies and the error body", "[rest_proxy]") {
  auto parts = skiff::network::path_segments("/v3/clusters/c1/topics/a%2Fb/records");
  REQUIRE(parts);
  CHECK(*parts == std::vector<std::string>{"v3", "clusters", "c1", "topics", "a/b", "records"});
  CHECK_FALSE(skiff::network::path_segments("/v3/%zz"));
  network::HttpRequest head;
  head.method = "POST";
  head.path = "/v3/clusters/c1/topics/t/records";
  CHECK(streams_body(head));
  head.method = "GET";
  CHECK_FALSE(streams_body(head));
  head.method = "POST";
  head.path = "/topics/t";
  CHECK_FALSE(streams_body(head));
  auto r = error_response(RestError(404, 40401, "Topic not found."), "application/json");
  CHECK(r.status == 404);
  CHECK(r.content_type == "application/json");
  CHECK(r.body == R"({"error_code":40401,"message":"Topic not found."})");
}
