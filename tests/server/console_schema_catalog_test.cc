// RegistryCatalog (server/console_schema_catalog.h): the console's view of
// the Schema Registry over a real RegistryService with the real formats
// (schema::parse) and a fake `_schemas` log: subjects and versions as the
// Schemas page lists them, and values in Confluent's wire format decoded
// through their schema (Avro, Protobuf with message indexes, JSON Schema),
// unknown ids and unframed bytes left alone, bad payloads explained.
#include "server/console_schema_catalog.h"

#include <catch2/catch.hpp>

#include "fake_log.h"
#include "schema/schema_parse.h"

namespace skiff::server {
namespace {

using schemareg::testing::FakeLog;

struct Fixture {
  FakeLog log;
  schemareg::RegistryService service{log, schema::parse};
  RegistryCatalog catalog{service};

  int32_t reg(const std::string& subject, const std::string& text, const std::string& type = "AVRO") {
    schemareg::SchemaInput input;
    input.schema = text;
    input.schema_type = type;
    int32_t id = -1;
    service.register_schema(subject, input, false, [&](auto r) {
      REQUIRE(r.has_value());
      id = r->id;
    });
    return id;
  }
};

std::string framed(int32_t id, const std::string& payload) {
  std::string out{'\0', static_cast<char>(id >> 24), static_cast<char>(id >> 16), static_cast<char>(id >> 8),
                  static_cast<char>(id)};
  return out + payload;
}

constexpr const char* kReadingV1 =
    R"({"type":"record","name":"Reading","namespace":"t","fields":[{"name":"id","type":"long"},)"
    R"({"name":"place","type":"string"}]})";
constexpr const char* kReadingV2 =
    R"({"type":"record","name":"Reading","namespace":"t","fields":[{"name":"id","type":"long"},)"
    R"({"name":"place","type":"string"},{"name":"unit","type":"string","default":"C"}]})";

}  // namespace

TEST_CASE("console schema catalog: subjects and versions as the registry serves them", "[console][schemas]") {
  Fixture f;
  const int32_t v1 = f.reg("readings-value", kReadingV1);
  const int32_t v2 = f.reg("readings-value", kReadingV2);
  f.reg("orders-value", R"({"type":"object"})", "JSON");
  const auto page = f.catalog.subjects("", 10);
  REQUIRE(page.total == 2);
  REQUIRE(page.subjects.size() == 2);
  CHECK(page.subjects[0].name == "orders-value");
  CHECK(page.subjects[0].type == "JSON");
  CHECK(page.subjects[1].name == "readings-value");
  CHECK(page.subjects[1].versions == 2);
  CHECK(page.subjects[1].latest_version == 2);
  CHECK(page.subjects[1].latest_id == v2);
  CHECK(page.subjects[1].compatibility == "BACKWARD");
  CHECK(f.catalog.subjects("read", 10).total == 1);
  CHECK(f.catalog.subjects("", 1).subjects.size() == 1);
  CHECK(f.catalog.subjects("", 1).total == 2);

  const auto detail = f.catalog.subject("readings-value");
  REQUIRE(detail);
  CHECK(detail->compatibility == "BACKWARD");
  CHECK_FALSE(detail->compatibility_own);
  REQUIRE(detail->versions.size() == 2);
  CHECK(detail->versions[0].id == v1);
  CHECK(detail->versions[0].type == "AVRO");
  CHECK(detail->versions[1].schema.find("unit") != std::string::npos);
  CHECK_FALSE(f.catalog.subject("nope"));
}

TEST_CASE("console schema catalog: decodes Avro, Protobuf and JSON values", "[console][schemas]") {
  Fixture f;
  const int32_t avro = f.reg("readings-value", kReadingV1);
  // id 7 zig-zag = 0x0e; "attic" length 5 zig-zag = 0x0a
  auto d = f.catalog.decode(framed(avro, std::string("\x0e\x0a", 2) + "attic"));
  REQUIRE(d);
  CHECK(d->id == avro);
  CHECK(d->type == "AVRO");
  CHECK(d->type_name == "t.Reading");
  REQUIRE(d->json);
  CHECK(*d->json == R"({"id":7,"place":"attic"})");

  const int32_t proto = f.reg("p-value",
                              "syntax = \"proto3\";\npackage t;\nmessage A { int32 x = 1; }\n"
                              "message B { string name = 1; }\n",
                              "PROTOBUF");
  // message indexes [1] (count 1 = 0x02, index 1 = 0x02), then name = "hi"
  d = f.catalog.decode(framed(proto, std::string("\x02\x02\x0a\x02hi", 6)));
  REQUIRE(d);
  CHECK(d->type == "PROTOBUF");
  CHECK(d->type_name == "t.B");
  REQUIRE(d->json);
  CHECK(*d->json == R"({"name":"hi"})");

  const int32_t json = f.reg("j-value", R"({"type":"object"})", "JSON");
  d = f.catalog.decode(framed(json, R"({"a": [1, 2]})"));
  REQUIRE(d);
  CHECK(d->type == "JSON");
  REQUIRE(d->json);
  CHECK(*d->json == R"({"a": [1, 2]})");
}

TEST_CASE("console schema catalog: what it leaves alone and what it explains", "[console][schemas]") {
  Fixture f;
  const int32_t avro = f.reg("readings-value", kReadingV1);
  CHECK_FALSE(f.catalog.decode("plain text value"));
  CHECK_FALSE(f.catalog.decode(std::string("\0\0\0", 3)));
  CHECK_FALSE(f.catalog.decode(framed(avro + 100, "x")));                       // an id the registry does not know
  auto d = f.catalog.decode(framed(avro, std::string("\x0e\x0a", 2) + "att"));  // cut short
  REQUIRE(d);
  CHECK_FALSE(d->json);
  CHECK_FALSE(d->error.empty());
  d = f.catalog.decode(framed(avro, std::string("\x0e\x0a", 2) + "attic" + "zz"));  // trailing bytes
  REQUIRE(d);
  CHECK_FALSE(d->json);
  CHECK(d->error == "2 bytes follow the value, at byte offset 7");
  const int32_t json = f.reg("j-value", R"({"type":"object"})", "JSON");
  d = f.catalog.decode(framed(json, "{not json"));
  REQUIRE(d);
  CHECK(d->error == "the value is not a JSON document");
}

}  // namespace skiff::server
