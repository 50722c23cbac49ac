// Compatibility of JSON schemas as Confluent decides it (writer = the
// previous schema, reader = the new one): types, objects under open, closed
// and partially open content models, required, additionalProperties,
// dependencies; the message text.
#include <catch2/catch.hpp>

#include "json_schema_support.h"

using namespace skiff::schema::json;
using namespace skiff::schema::json::test;
using Catch::Matchers::VectorContains;

namespace {

std::string object(const std::string& props, const std::string& extra = "") {
  return R"({"type":"object","properties":{)" + props + "}" + (extra.empty() ? "" : "," + extra) + "}";
}

const std::string kA = R"("a":{"type":"string"})";

}  // namespace

TEST_CASE("json compat: identical schemas are compatible", "[schema][json]") {
  const std::string s = object(kA + R"(,"n":{"type":"integer","maximum":5})", R"("required":["a"])");
  CHECK(breaking(s, s).empty());
  CHECK(all_changes(s, s).empty());
}

TEST_CASE("json compat: the message is Confluent's, placeholders for the registry", "[schema][json]") {
  auto w = must_parse(object(kA));
  auto r = must_parse(object(R"("a":{"type":"integer"})"));
  CHECK(r->incompatibilities(*w) ==
        Names{"{errorType:\"TYPE_CHANGED\", description:\"A type at path '#/properties/a' is different between the "
              "%s schema and the %s schema'}"});
  auto req = must_parse(object(kA, R"("required":["a"])"));
  CHECK(req->incompatibilities(*w) ==
        Names{"{errorType:\"REQUIRED_ATTRIBUTE_ADDED\", description:\"The keyword at path '#/required/a' in the %s "
              "schema is not present in the %s schema'}"});
  auto items = must_parse(R"({"type":"array","items":{"type":"string"}})");
  auto array = must_parse(R"({"type":"array"})");
  CHECK(items->incompatibilities(*array) == Names{"{errorType:\"SCHEMA_ADDED\", description:\"'}"});
}

TEST_CASE("json compat: the registry fills the roles as Confluent does", "[schema][json]") {
  const std::string m =
      "{errorType:\"X\", description:\"The %s schema has a property at path '#/a' missing in the %s schema'}";
  CHECK(skiff::schema::fill_roles(m, "new", "old") ==
        "{errorType:\"X\", description:\"The new schema has a property at path '#/a' missing in the old schema'}");
  CHECK(skiff::schema::fill_roles(m, "old", "new") ==
        "{errorType:\"X\", description:\"The old schema has a property at path '#/a' missing in the new schema'}");
  CHECK(skiff::schema::fill_roles("{errorType:\"SCHEMA_ADDED\", description:\"'}", "new", "old") ==
        "{errorType:\"SCHEMA_ADDED\", description:\"'}");
}

TEST_CASE("json compat: a writer of another schema type", "[schema][json]") {
  struct Other : skiff::schema::ParsedSchema {
    skiff::schema::SchemaType type() const override { return skiff::schema::SchemaType::kAvro; }
    std::string canonical() const override { return "\"string\""; }
    std::string normalized() const override { return "\"string\""; }
    std::vector<std::string> incompatibilities(const ParsedSchema&) const override { return {}; }
    skiff::Expected<skiff::schema::DecodedValue, std::string> decode(std::string_view) const override {
      return skiff::schema::DecodedValue{};
    }
  } avro;
  CHECK(must_parse("{}")->incompatibilities(avro) == Names{"Incompatible because of different schema type"});
}

TEST_CASE("json compat: types changed, extended, narrowed", "[schema][json]") {
  CHECK(breaking(R"({"type":"string"})", R"({"type":"integer"})") == Names{"TYPE_CHANGED"});
  CHECK(all_changes(R"({"type":"integer"})", R"({"type":"number"})") == Names{"TYPE_EXTENDED@#/"});
  CHECK(breaking(R"({"type":"integer"})", R"({"type":"number"})").empty());
  CHECK(breaking(R"({"type":"number"})", R"({"type":"integer"})") == Names{"TYPE_NARROWED"});
  // A union that still holds the old type is a sum type extended; losing a member is a change.
  CHECK(all_changes(R"({"type":"string"})", R"({"type":["string","null"]})") == Names{"SUM_TYPE_EXTENDED@#/"});
  CHECK(breaking(R"({"type":"string"})", R"({"type":["string","null"]})").empty());
  CHECK(breaking(R"({"type":["string","null"]})", R"({"type":"string"})") == Names{"TYPE_CHANGED"});
  CHECK(breaking(R"({"type":["string","null"]})", R"({"type":["null","string","integer"]})").empty());
  // Anything reads into an empty schema; nothing was written with false.
  CHECK(breaking(R"({"type":"string"})", "{}").empty());
  CHECK(breaking(R"({"type":"string"})", "true").empty());
  CHECK(breaking("{}", R"({"type":"string"})") == Names{"TYPE_CHANGED"});
  CHECK(breaking("false", R"({"type":"string"})").empty());
  // Kafka Connect's bytes, whatever their JSON types.
  CHECK(breaking(R"({"type":"string","connect.type":"bytes"})", R"({"type":"number","connect.type":"bytes"})").empty());
  CHECK(breaking(R"({"type":"string","connect.type":"bytes"})", R"({"type":"number"})") == Names{"TYPE_CHANGED"});
}

TEST_CASE("json compat: annotations only are compatible", "[schema][json]") {
  const auto changes = all_changes(R"({"$id":"a","title":"t","description":"d","default":"x","type":"string"})",
                                   R"({"$id":"b","title":"u","description":"e","default":"y","type":"string"})");
  CHECK(changes == Names{"ID_CHANGED@#/", "TITLE_CHANGED@#/", "DESCRIPTION_CHANGED@#/", "DEFAULT_CHANGED@#/"});
  CHECK(breaking(R"({"title":"t","type":"string"})", R"({"title":"u","type":"string"})").empty());
}

TEST_CASE("json compat: property added to an open content model", "[schema][json]") {
  const std::string w = object(kA);
  CHECK(all_changes(w, object(kA + R"(,"b":{"type":"string"})")) ==
        Names{"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL@#/properties/b"});
  CHECK(breaking(w, object(kA + R"(,"b":{"type":"string"})")) ==
        Names{"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"});
  CHECK(breaking(w, object(kA + R"(,"b":{"type":"string"})"), CompatibilityPolicy::kLenient).empty());
  CHECK(breaking(w, object(kA + R"(,"b":{})")).empty());
  CHECK(all_changes(w, object(kA + R"(,"b":{})")) ==
        Names{"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL@#/properties/b"});
  CHECK(breaking(w, object(kA + R"(,"b":{"type":"string"})", R"("required":["b"])")) ==
        Names{"REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"});
  CHECK(breaking(w, object(kA + R"(,"b":{"type":"string"})", R"("required":["b"])"), CompatibilityPolicy::kLenient) ==
        Names{"REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"});
  const std::string with_default = object(kA + R"(,"b":{"type":"string","default":"x"})", R"("required":["b"])");
  CHECK(breaking(w, with_default) == Names{"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL"});
  CHECK(breaking(w, with_default, CompatibilityPolicy::kLenient).empty());
}

TEST_CASE("json compat: property added to a closed content model", "[schema][json]") {
  const std::string closed = R"("additionalProperties":false)";
  const std::string w = object(kA, closed);
  CHECK(all_changes(w, object(kA + R"(,"b":{"type":"string"})", closed)) ==
        Names{"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL@#/properties/b"});
  CHECK(breaking(w, object(kA + R"(,"b":{"type":"string"})", closed)).empty());
  CHECK(breaking(w, object(kA + R"(,"b":{"type":"string"})", closed + R"(,"required":["b"])")) ==
        Names{"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"});
  CHECK(breaking(w, object(kA + R"(,"b":{"type":"string","default":"x"})", closed + R"(,"required":["b"])")).empty());
}

TEST_CASE("json compat: property removed", "[schema][json]") {
  const std::string w = object(kA + R"(,"b":{"type":"string"})");
  CHECK(all_changes(w, object(kA)) == Names{"PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL@#/properties/b"});
  CHECK(breaking(w, object(kA)).empty());
  const std::string closed = R"("additionalProperties":false)";
  CHECK(breaking(object(kA + R"(,"b":{"type":"string"})", closed), object(kA, closed)) ==
        Names{"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"});
  CHECK(breaking(object(kA + R"(,"b":{"type":"string"})", closed), object(kA, closed), CompatibilityPolicy::kLenient)
            .empty());
  CHECK(all_changes(object(kA + R"(,"b":false)", closed), object(kA, closed)) ==
        Names{"PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL@#/properties/b"});
}

TEST_CASE("json compat: partially open content models", "[schema][json]") {
  const std::string strings = R"("additionalProperties":{"type":"string"})";
  // Removed from the reader, which still takes it as an additional property.
  CHECK(all_changes(object(kA + R"(,"b":{"type":"string"})", strings), object(kA, strings)) ==
        Names{"PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL@#/properties/b"});
  CHECK(breaking(object(kA + R"(,"b":{"type":"integer"})", strings), object(kA, strings)) ==
        Names{"TYPE_CHANGED", "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"});
  // Added to the reader where the writer took it as an additional property.
  CHECK(all_changes(object(kA, strings), object(kA + R"(,"b":{"type":"string"})", strings)) ==
        Names{"PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL@#/properties/b",
              "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL@#/properties/b"});
  CHECK(breaking(object(kA, strings), object(kA + R"(,"b":{"type":"integer"})", strings)) ==
        Names{"TYPE_CHANGED", "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"});
  // patternProperties make the model partially open for the names they match.
  const std::string pattern = R"("patternProperties":{"^s_":{"type":"string"}})";
  CHECK(breaking(object(kA, pattern), object(kA + R"(,"s_x":{"type":"string"})", pattern)).empty());
  CHECK(breaking(object(kA, pattern), object(kA + R"(,"s_x":{"type":"integer"})", pattern)) ==
        Names{"TYPE_CHANGED", "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"});
  CHECK(breaking(object(kA, pattern), object(kA + R"(,"other":{"type":"integer"})", pattern)).empty());
}

TEST_CASE("json compat: required added and removed", "[schema][json]") {
  const std::string w = object(kA);
  CHECK(breaking(w, object(kA, R"("required":["a"])")) == Names{"REQUIRED_ATTRIBUTE_ADDED"});
  CHECK(all_changes(w, object(R"("a":{"type":"string","default":"x"})", R"("required":["a"])")) ==
        Names{"REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED@#/required/a", "DEFAULT_CHANGED@#/properties/a"});
  CHECK(breaking(w, object(R"("a":{"type":"string","default":"x"})", R"("required":["a"])")).empty());
  CHECK(all_changes(object(kA, R"("required":["a"])"), w) == Names{"REQUIRED_ATTRIBUTE_REMOVED@#/required/a"});
  CHECK(breaking(object(kA, R"("required":["a"])"), w).empty());
}

TEST_CASE("json compat: additionalProperties", "[schema][json]") {
  const std::string w = object(kA);
  CHECK(all_changes(object(kA, R"("additionalProperties":false)"), w) ==
        Names{"ADDITIONAL_PROPERTIES_ADDED@#/additionalProperties"});
  CHECK(breaking(object(kA, R"("additionalProperties":false)"), w).empty());
  CHECK(breaking(w, object(kA, R"("additionalProperties":false)")) == Names{"ADDITIONAL_PROPERTIES_REMOVED"});
  CHECK(breaking(w, object(kA, R"("additionalProperties":false)"), CompatibilityPolicy::kLenient).empty());
  CHECK(breaking(w, object(kA, R"("additionalProperties":{"type":"string"})")) ==
        Names{"ADDITIONAL_PROPERTIES_NARROWED"});
  CHECK(all_changes(object(kA, R"("additionalProperties":{"type":"string"})"), w) ==
        Names{"ADDITIONAL_PROPERTIES_EXTENDED@#/additionalProperties"});
  CHECK(breaking(object(kA, R"("additionalProperties":{"type":"string"})"),
                 object(kA, R"("additionalProperties":{"type":"integer"})")) == Names{"TYPE_CHANGED"});
}

TEST_CASE("json compat: min and max properties", "[schema][json]") {
  const std::string w = object(kA, R"("minProperties":1,"maxProperties":5)");
  CHECK(breaking(w, object(kA, R"("minProperties":0,"maxProperties":6)")).empty());
  CHECK(all_changes(w, object(kA, R"("minProperties":0,"maxProperties":6)")) ==
        Names{"MAX_PROPERTIES_INCREASED@#/maxProperties", "MIN_PROPERTIES_DECREASED@#/minProperties"});
  CHECK(breaking(w, object(kA, R"("minProperties":2,"maxProperties":4)")) ==
        Names{"MAX_PROPERTIES_DECREASED", "MIN_PROPERTIES_INCREASED"});
  CHECK(breaking(object(kA), w) == Names{"MAX_PROPERTIES_ADDED", "MIN_PROPERTIES_ADDED"});
  CHECK(all_changes(w, object(kA)) ==
        Names{"MAX_PROPERTIES_REMOVED@#/maxProperties", "MIN_PROPERTIES_REMOVED@#/minProperties"});
}

TEST_CASE("json compat: dependencies", "[schema][json]") {
  const std::string w = object(kA, R"("dependencies":{"a":["b"]})");
  CHECK(breaking(w, object(kA, R"("dependencies":{"a":["b","c"]})")) == Names{"DEPENDENCY_ARRAY_EXTENDED"});
  CHECK(all_changes(object(kA, R"("dependencies":{"a":["b","c"]})"), w) ==
        Names{"DEPENDENCY_ARRAY_NARROWED@#/dependencies/a"});
  CHECK(breaking(object(kA, R"("dependencies":{"a":["b","c"]})"), w).empty());
  CHECK(breaking(w, object(kA, R"("dependencies":{"a":["c"]})")) == Names{"DEPENDENCY_ARRAY_CHANGED"});
  CHECK(breaking(object(kA), w) == Names{"DEPENDENCY_ARRAY_ADDED"});
  CHECK(breaking(w, object(kA)).empty());
  const std::string schema_dep = object(kA, R"("dependencies":{"a":{"required":["b"]}})");
  CHECK(breaking(object(kA), schema_dep) == Names{"DEPENDENCY_SCHEMA_ADDED"});
  CHECK(all_changes(schema_dep, object(kA)) == Names{"DEPENDENCY_SCHEMA_REMOVED@#/dependencies/a"});
  // 2019-09's dependentRequired is read as dependencies.
  const std::string v2019 = R"("$schema":"https://json-schema.org/draft/2019-09/schema")";
  CHECK(breaking(object(kA, v2019 + R"(,"dependentRequired":{"a":["b"]})"),
                 object(kA, v2019 + R"(,"dependentRequired":{"a":["b","c"]})")) == Names{"DEPENDENCY_ARRAY_EXTENDED"});
}

TEST_CASE("json compat: differences come in Confluent's (Java HashSet) order", "[schema][json]") {
  // Document order b, a; Java's HashSet walks "a" (bucket 1) before "b" (bucket 2).
  CHECK(all_changes(object(R"("b":{"type":"string"},"a":{"type":"string"})"),
                    object(R"("b":{"type":"integer"},"a":{"type":"integer"})")) ==
        Names{"TYPE_CHANGED@#/properties/a", "TYPE_CHANGED@#/properties/b"});
  // Required is checked before properties, properties before additionalProperties.
  CHECK(breaking(object(R"("x":{"type":"string"})"),
                 object(R"("x":{"type":"integer"})", R"("required":["x"],"additionalProperties":false)")) ==
        Names{"REQUIRED_ATTRIBUTE_ADDED", "TYPE_CHANGED", "ADDITIONAL_PROPERTIES_REMOVED"});
}

TEST_CASE("json compat: schemas Confluent's Java serializer and Connect generate", "[schema][json]") {
  // KafkaJsonSchemaSerializer (mbknor-jackson-jsonSchema): closed objects, optional fields as oneOf null.
  const std::string v1 = R"({"$schema":"http://json-schema.org/draft-07/schema#","title":"User","type":"object",
    "additionalProperties":false,"properties":{"name":{"type":"string"},
    "age":{"oneOf":[{"type":"null","title":"Not included"},{"type":"integer"}]}},"required":["name"]})";
  const std::string v2 = R"({"$schema":"http://json-schema.org/draft-07/schema#","title":"User","type":"object",
    "additionalProperties":false,"properties":{"name":{"type":"string"},
    "age":{"oneOf":[{"type":"null","title":"Not included"},{"type":"integer"}]},
    "email":{"oneOf":[{"type":"null","title":"Not included"},{"type":"string"}]}},"required":["name"]})";
  CHECK(breaking(v1, v2).empty());  // an optional field added to a closed model
  CHECK(breaking(v2, v1) == Names{"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"});
  // JsonSchemaConverter: connect.* annotations, optional fields as oneOf null.
  const std::string c1 = R"({"type":"object","title":"Value","properties":{
    "id":{"type":"integer","connect.index":0,"connect.type":"int64"},
    "note":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"string"}]}}})";
  const std::string c2 = R"({"type":"object","title":"Value","properties":{
    "id":{"type":"integer","connect.index":0,"connect.type":"int64"},
    "note":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"string"},{"type":"integer"}]}}})";
  CHECK(breaking(c1, c2).empty());
  CHECK(breaking(c2, c1) == Names{"SUM_TYPE_NARROWED"});
}
