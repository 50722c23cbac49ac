// The REST API's JSON around RegistryService: request bodies in, Confluent's
// entities out.
#include "apps/schema_registry/registry_json.h"

#include <catch2/catch.hpp>

using namespace skiff::schemareg;
using skiff::schema::SchemaType;

TEST_CASE("a RegisterSchemaRequest body is decoded", "[schemareg][json]") {
  const auto in = decode_schema_request(
      R"({"schema":"{\"type\":\"string\"}","schemaType":"JSON","references":[{"name":"a.json","subject":"a","version":2}],)"
      R"("id":5,"version":3,"metadata":{"properties":{"k":"v"}},"ruleSet":null,"unknown":[1]})");
  REQUIRE(in);
  CHECK(in->schema == R"({"type":"string"})");
  CHECK(*in->schema_type == "JSON");
  REQUIRE(in->references.size() == 1);
  CHECK(in->references[0].version == 2);
  CHECK(*in->id == 5);
  CHECK(*in->version == 3);
  CHECK(in->metadata->text == R"({"properties":{"k":"v"}})");
  CHECK_FALSE(in->rule_set);

  const auto plain = decode_schema_request(R"({"schema":"\"int\""})");
  REQUIRE(plain);
  CHECK_FALSE(plain->schema_type);
  CHECK(plain->references.empty());
  CHECK_FALSE(plain->id);
}

TEST_CASE("bodies that are not JSON are 400, members of the wrong type 422", "[schemareg][json]") {
  for (const char* body : {"", "nope", "[1]", "{\"schema\":", "\"s\""}) {
    const auto e = decode_schema_request(body);
    REQUIRE_FALSE(e);
    CHECK(e.error().http_status == 400);
    CHECK(e.error().error_code == 400);
  }
  for (const char* body : {R"({"schema":5})", R"({"schema":"x","version":"1"})", R"({"schema":"x","id":1.5})",
                           R"({"schema":"x","references":{}})", R"({"schema":"x","references":[{"name":1}]})"}) {
    const auto e = decode_schema_request(body);
    REQUIRE_FALSE(e);
    CHECK(e.error().error_code == 422);
  }
  CHECK(decode_mode_request("x").error().http_status == 400);
  CHECK(decode_config_request(R"({"compatibility":1})").error().error_code == 422);
}

TEST_CASE("config and mode bodies", "[schemareg][json]") {
  CHECK(*decode_config_request(R"({"compatibility":"FULL"})")->compatibility_level == "FULL");
  CHECK(*decode_config_request(R"({"compatibilityLevel":"NONE"})")->compatibility_level == "NONE");
  const auto c = decode_config_request(R"({"normalize":true,"defaultMetadata":{"a":1}})");
  REQUIRE(c);
  CHECK(*c->normalize);
  CHECK_FALSE(c->compatibility_level);
  CHECK(c->default_metadata->text == R"({"a":1})");
  CHECK(*decode_mode_request(R"({"mode":"READONLY"})") == "READONLY");
}

TEST_CASE("answers are Confluent's entities", "[schemareg][json]") {
  SubjectSchema s{"a", 2, 7, SchemaType::kAvro, {}, std::nullopt, std::nullopt, "\"int\"", false};
  CHECK(schema_json(s) == R"({"subject":"a","version":2,"id":7,"schema":"\"int\""})");
  CHECK(schema_string_json(s) == R"({"schema":"\"int\""})");
  CHECK(schema_string_json(s, 9) == R"({"schema":"\"int\"","maxId":9})");
  CHECK(register_json(s) == R"({"id":7})");
  s.type = SchemaType::kProtobuf;
  s.references = {{"b.proto", "b", 1}};
  s.metadata = RawJson{R"({"k":1})"};
  CHECK(
      schema_json(s) ==
      R"({"subject":"a","version":2,"id":7,"schemaType":"PROTOBUF","references":[{"name":"b.proto","subject":"b","version":1}],)"
      R"("metadata":{"k":1},"schema":"\"int\""})");
  CHECK(schemas_json({s}).front() == '[');
  ConfigRecord c;
  c.compatibility_level = "FULL";
  c.normalize = true;
  CHECK(config_json(c) == R"({"normalize":true,"compatibilityLevel":"FULL"})");
  CHECK(config_update_json(c) == R"({"normalize":true,"compatibility":"FULL"})");
  CHECK(mode_json(Mode::kReadOnlyOverride) == R"({"mode":"READONLY_OVERRIDE"})");
  CHECK(compatibility_json({true, {}}, false) == R"({"is_compatible":true})");
  CHECK(compatibility_json({false, {"m"}}, true) == R"({"is_compatible":false,"messages":["m"]})");
  CHECK(subject_versions_json({{"a", 1}}) == R"([{"subject":"a","version":1}])");
  CHECK(strings_json({"AVRO", "JSON"}) == R"(["AVRO","JSON"])");
  CHECK(ints_json({1, 2}) == "[1,2]");
  CHECK(error_json(errors::subject_not_found("x")) == R"({"error_code":40401,"message":"Subject 'x' not found."})");
}
