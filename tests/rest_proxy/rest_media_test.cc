// Confluent's content types (apps/rest_proxy/rest_media.h): which request
// types are known and their embedded format, and Accept negotiation for v2
// and v3 (406 when nothing acceptable).
#include "apps/rest_proxy/rest_media.h"

#include <catch2/catch.hpp>

using namespace skiff::restproxy;

TEST_CASE("rest_media: Confluent's request types and their embedded formats", "[rest_proxy]") {
  auto binary = parse_media_type("application/vnd.kafka.binary.v2+json");
  REQUIRE(binary);
  CHECK(binary->format == EmbeddedFormat::kBinary);
  CHECK(binary->v2);
  CHECK(parse_media_type("application/vnd.kafka.json.v2+json")->format == EmbeddedFormat::kJson);
  CHECK(parse_media_type("application/vnd.kafka.avro.v2+json")->format == EmbeddedFormat::kAvro);
  CHECK(parse_media_type("application/vnd.kafka.jsonschema.v2+json")->format == EmbeddedFormat::kJsonSchema);
  CHECK(parse_media_type("application/vnd.kafka.protobuf.v2+json")->format == EmbeddedFormat::kProtobuf);
  CHECK(parse_media_type("application/vnd.kafka.v2+json")->format == EmbeddedFormat::kNone);
  auto json = parse_media_type(" Application/JSON ; charset=UTF-8");
  REQUIRE(json);
  CHECK(json->name == "application/json");
  CHECK_FALSE(json->v2);
  CHECK_FALSE(parse_media_type("text/plain"));
  CHECK_FALSE(parse_media_type("application/vnd.kafka.xml.v2+json"));
  CHECK_FALSE(parse_media_type(""));
  CHECK(std::string(format_name(EmbeddedFormat::kJsonSchema)) == "jsonschema");
}

TEST_CASE("rest_media: Accept negotiation picks v2's type or application/json, else 406", "[rest_proxy]") {
  CHECK(negotiate_v2("") == std::string(kV2Json));
  CHECK(negotiate_v2("*/*") == std::string(kV2Json));
  CHECK(negotiate_v2("application/json") == std::string(kJson));
  CHECK(negotiate_v2("application/vnd.kafka.v2+json, application/json;q=0.5") == std::string(kV2Json));
  CHECK(negotiate_v2("application/vnd.kafka.v2+json;q=0.2, application/json") == std::string(kJson));
  CHECK(negotiate_v2("application/*") == std::string(kV2Json));
  CHECK_FALSE(negotiate_v2("text/html"));
  CHECK_FALSE(negotiate_v2("application/json;q=0"));
  CHECK(accepts_json(""));
  CHECK(accepts_json("text/html, */*;q=0.1"));
  CHECK(accepts_json("application/json"));
  CHECK_FALSE(accepts_json("text/html"));
  CHECK_FALSE(accepts_json("application/vnd.kafka.v2+json"));
}
