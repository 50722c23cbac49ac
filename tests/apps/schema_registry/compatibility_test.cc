// The seven levels over a format's check, with Confluent's messages.
#include "apps/schema_registry/compatibility.h"

#include <catch2/catch.hpp>

#include "fake_format.h"

using namespace skiff::schemareg;
using skiff::schema::SchemaType;

namespace {

std::unique_ptr<skiff::schema::ParsedSchema> fake(const std::string& text, SchemaType type = SchemaType::kAvro) {
  auto parsed = testing::parse_fake({type, text, {}, {}});
  return std::move(*parsed);
}

}  // namespace

TEST_CASE("level names are Confluent's, read in any case", "[schemareg][compat]") {
  CHECK(parse_level("backward_transitive") == CompatibilityLevel::kBackwardTransitive);
  CHECK(parse_level("FULL") == CompatibilityLevel::kFull);
  CHECK_FALSE(parse_level("SIDEWAYS"));
  CHECK(level_name(CompatibilityLevel::kForwardTransitive) == "FORWARD_TRANSITIVE");
  CHECK(level_name(kDefaultCompatibility) == "BACKWARD");
}

TEST_CASE("BACKWARD: the new schema reads the latest, with the old schema in the message", "[schemareg][compat]") {
  const auto v1 = fake("a:int");
  const auto v2 = fake("a:int b:string");  // b has no default: cannot read v1's data
  const auto lines = check_compatibility(CompatibilityLevel::kBackward, *v2, {{v1.get(), 1}});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] ==
        "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in the new "
        "schema has no default value and is missing in the old schema', additionalInfo:'b'}");
  CHECK(lines[1] == "{oldSchemaVersion: 1}");
  CHECK(lines[2] == "{oldSchema: 'a:int'}");
  CHECK(check_compatibility(CompatibilityLevel::kForward, *v2, {{v1.get(), 1}}).empty());
  CHECK(check_compatibility(CompatibilityLevel::kNone, *v2, {{v1.get(), 1}}).empty());
  CHECK(check_compatibility(CompatibilityLevel::kBackward, *v2, {}).empty());
}

TEST_CASE("FORWARD: the old schema is the reader, the words swap", "[schemareg][compat]") {
  const auto v1 = fake("a:int b:string");
  const auto v2 = fake("a:int");
  const auto lines = check_compatibility(CompatibilityLevel::kForward, *v2, {{v1.get(), 4}});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] ==
        "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in the old "
        "schema has no default value and is missing in the new schema', additionalInfo:'b'}");
  CHECK(lines[1] == "{oldSchemaVersion: 4}");
}

TEST_CASE("FULL: both directions, the old schema appended once", "[schemareg][compat]") {
  const auto v1 = fake("a:int");
  const auto v2 = fake("a:long");
  const auto lines = check_compatibility(CompatibilityLevel::kFull, *v2, {{v1.get(), 1}});
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].find("in the old schema does not match with the new schema") != std::string::npos);
  CHECK(lines[1].find("in the new schema does not match with the old schema") != std::string::npos);
  CHECK(lines[2] == "{oldSchemaVersion: 1}");
  CHECK(lines[3] == "{oldSchema: 'a:int'}");
}

TEST_CASE("transitive levels check every version newest first, the plain ones only the latest", "[schemareg][compat]") {
  const auto v1 = fake("a:int");
  const auto v2 = fake("a:int b:int=0");
  const auto v3 = fake("b:int=0");
  const auto v4 = fake("b:int a:int=1");  // reads v2, v3 (b there) but not v1 (no b)
  const std::vector<PreviousSchema> prev{{v1.get(), 1}, {v2.get(), 2}, {v3.get(), 3}};
  CHECK(check_compatibility(CompatibilityLevel::kBackward, *v4, prev).empty());
  const auto lines = check_compatibility(CompatibilityLevel::kBackwardTransitive, *v4, prev);
  REQUIRE(lines.size() == 3);
  CHECK(lines[1] == "{oldSchemaVersion: 1}");
  CHECK(check_compatibility(CompatibilityLevel::kFullTransitive, *v4, prev).size() >= 3);
}

TEST_CASE("another type is incompatible with one line, the registry adds its trailer", "[schemareg][compat]") {
  const auto v1 = fake("a:int", SchemaType::kJson);
  const auto v2 = fake("a:int");
  CHECK(check_compatibility(CompatibilityLevel::kBackward, *v2, {{v1.get(), 1}}) ==
        std::vector<std::string>{"Incompatible because of different schema type"});
  CHECK(registry_compatibility(CompatibilityLevel::kFull, true, *v2, {{v1.get(), 1}}) ==
        std::vector<std::string>{"Incompatible because of different schema type",
                                 "{validateFields: 'true', compatibility: 'FULL'}"});
  CHECK(registry_compatibility(CompatibilityLevel::kFull, false, *v2, {}).empty());
}

TEST_CASE("a long old schema is truncated in the message", "[schemareg][compat]") {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "f" + std::to_string(i) + ":int ";
  const auto v1 = fake(text);
  const auto v2 = fake("z:int");
  const auto lines = check_compatibility(CompatibilityLevel::kBackward, *v2, {{v1.get(), 1}});
  REQUIRE(lines.size() == 3);
  CHECK(lines[2].substr(0, 24) == "{oldSchema: <truncated> ");
  CHECK(lines[2].size() == 10 * 1024 + 30);
}

TEST_CASE("fill_roles fills Confluent's two %s as String.format does", "[schemareg][compat]") {
  CHECK(skiff::schema::fill_roles("in the %s schema and the %s schema", "old", "new") ==
        "in the old schema and the new schema");
  CHECK(skiff::schema::fill_roles("100%% of the %s schema, %s, %s", "new", "old") == "100% of the new schema, old, %s");
}
