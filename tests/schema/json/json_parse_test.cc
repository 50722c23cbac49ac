// Parsing JSON schemas: what Confluent refuses is a ParseError with a clear
// message; drafts from $schema; $ref inside the document and to registered
// references; hostile input bounded.
#include <catch2/catch.hpp>

#include "json_schema_support.h"

using namespace skiff::schema::json;
using namespace skiff::schema::json::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("json parse: text that is not JSON", "[schema][json]") {
  CHECK_THAT(parse_error("{\"type\":"), StartsWith("Invalid JSON schema: "));
  CHECK_THAT(parse_error("not json"), StartsWith("Invalid JSON schema: "));
  CHECK_THAT(parse_error(""), StartsWith("Invalid JSON schema: "));
  CHECK_THAT(parse_error("{\"title\":\"\xff\"}"), Contains("UTF-8"));
  CHECK_THAT(parse_error("{\"maximum\":1e99999999999}"), Contains("out of range"));
}

TEST_CASE("json parse: the root must be an object or a boolean", "[schema][json]") {
  CHECK(parse_error("\"string\"") == "Invalid JSON schema: expected an object or boolean at the root, found STRING");
  CHECK(parse_error("[]") == "Invalid JSON schema: expected an object or boolean at the root, found ARRAY");
  CHECK(parse_error("1") == "Invalid JSON schema: expected an object or boolean at the root, found NUMBER");
  CHECK(must_parse("true")->canonical() == "true");
  CHECK(must_parse("false")->canonical() == "false");
  CHECK(must_parse("{}")->canonical() == "{}");
}

TEST_CASE("json parse: keyword values of the wrong type", "[schema][json]") {
  CHECK(parse_error(R"({"type":"strin"})") == "Invalid JSON: #: unknown type: [strin]");
  CHECK(parse_error(R"({"type":5})") ==
        "Invalid JSON: #/type: expected type is one of JsonArray or String, found: Integer");
  CHECK(parse_error(R"({"type":["string",1]})") == "Invalid JSON: #/type/1: expected type: String, found: Integer");
  CHECK(parse_error(R"({"properties":{"a":{"minLength":"1"}}})") ==
        "Invalid JSON: #/properties/a/minLength: expected type: Integer, found: String");
  CHECK(parse_error(R"({"maxLength":1.5})") == "Invalid JSON: #/maxLength: expected type: Integer, found: BigDecimal");
  CHECK(parse_error(R"({"minItems":3000000000})") == "Invalid JSON: #/minItems: expected type: Integer, found: Long");
  CHECK(parse_error(R"({"properties":[]})") ==
        "Invalid JSON: #/properties: expected type: JsonObject, found: JsonArray");
  CHECK(parse_error(R"({"properties":{"a":1}})") ==
        "Invalid JSON: #/properties/a: expected type is one of Boolean or JsonObject, found: Integer");
  CHECK(parse_error(R"({"required":"a"})") == "Invalid JSON: #/required: expected type: JsonArray, found: String");
  CHECK(parse_error(R"({"required":["a",true]})") ==
        "Invalid JSON: #/required/1: expected type: String, found: Boolean");
  CHECK(parse_error(R"({"additionalProperties":"no"})") ==
        "Invalid JSON: #/additionalProperties: expected type is one of Boolean or JsonObject, found: String");
  CHECK(parse_error(R"({"anyOf":{}})") == "Invalid JSON: #/anyOf: expected type: JsonArray, found: JsonObject");
  CHECK(parse_error(R"({"enum":"a"})") == "Invalid JSON: #/enum: expected type: JsonArray, found: String");
  CHECK(parse_error(R"({"minimum":"0"})") == "Invalid JSON: #/minimum: expected type: Number, found: String");
  CHECK(parse_error(R"({"title":1})") == "Invalid JSON: #/title: expected type: String, found: Integer");
  CHECK(parse_error(R"({"$ref":1})") == "Invalid JSON: #/$ref: expected type: String, found: Integer");
  CHECK(parse_error(R"({"items":[{"type":"nope"}]})") == "Invalid JSON: #/items/0: unknown type: [nope]");
  CHECK(parse_error(R"({"uniqueItems":1})") == "Invalid JSON: #/uniqueItems: expected type: Boolean, found: Integer");
  CHECK(parse_error(R"({"$schema":4})") == "Invalid JSON: #/$schema: expected type: String, found: Integer");
  CHECK(parse_error(R"({"dependencies":{"a":1}})") ==
        "Invalid JSON: #/dependencies/a: expected type is one of Boolean or JsonArray or JsonObject, found: Integer");
}

TEST_CASE("json parse: the draft comes from $schema, draft-07 by default", "[schema][json]") {
  CHECK(loaded_draft(*must_parse("{}")) == "draft-07");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"http://json-schema.org/draft-04/schema#"})")) == "draft-04");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"https://json-schema.org/draft-06/schema"})")) == "draft-06");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"http://json-schema.org/draft-07/schema#"})")) == "draft-07");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"https://json-schema.org/draft/2019-09/schema"})")) == "draft 2019-09");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema"})")) == "draft 2020-12");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"http://example.com/custom"})")) == "draft-07");
  // everit reads drafts 4-7 by prefix (json-schema.org/schema is draft 4's).
  CHECK(loaded_draft(*must_parse(R"({"$schema":"http://json-schema.org/draft-04/schema#foo"})")) == "draft-04");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"http://json-schema.org/schema#"})")) == "draft-04");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema#"})")) == "draft 2020-12");
  CHECK(loaded_draft(*must_parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema#x"})")) == "draft-07");
}

TEST_CASE("json parse: keywords read per draft", "[schema][json]") {
  // draft-04: exclusiveMaximum is a boolean, const is unknown.
  must_parse(R"({"$schema":"http://json-schema.org/draft-04/schema#","maximum":3,"exclusiveMaximum":true,"const":1})");
  CHECK(parse_error(R"({"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMaximum":3})") ==
        "Invalid JSON: #/exclusiveMaximum: expected type: Boolean, found: Integer");
  CHECK(parse_error(R"({"exclusiveMaximum":true})") ==
        "Invalid JSON: #/exclusiveMaximum: expected type: Number, found: Boolean");
  // 2020-12: prefixItems and items; dependentRequired.
  must_parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[{"type":"string"}],
                 "items":false,"dependentRequired":{"a":["b"]},"unevaluatedProperties":false})");
  CHECK(parse_error(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","dependentRequired":{"a":[1]}})") ==
        "Invalid JSON: #/dependentRequired/a/0: expected type: String, found: Integer");
}

TEST_CASE("json parse: local $refs to definitions, $defs, pointers and ids", "[schema][json]") {
  must_parse(R"({"definitions":{"a":{"type":"string"}},"properties":{"x":{"$ref":"#/definitions/a"}}})");
  must_parse(R"({"$defs":{"a~b/c":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a~0b~1c"}}})");
  must_parse(R"({"definitions":{"a":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"}}})");
  must_parse(R"({"properties":{"x":{"$ref":"#"}}})");
  must_parse(R"({"$id":"http://x.test/root.json","definitions":{"a":{"$id":"item.json","type":"string"}},
                 "properties":{"x":{"$ref":"item.json"}}})");
  must_parse(R"({"definitions":{"a":{"$id":"#thing","type":"string"}},"properties":{"x":{"$ref":"#thing"}}})");
  CHECK(parse_error(R"({"properties":{"x":{"$ref":"#/definitions/missing"}}})") ==
        "Invalid JSON: #: key [definitions] not found");
  CHECK(parse_error(R"({"definitions":{},"properties":{"x":{"$ref":"#/definitions/missing"}}})") ==
        "Invalid JSON: #/definitions: key [missing] not found");
  CHECK(parse_error(R"({"properties":{"x":{"$ref":"#nowhere"}}})") ==
        "Invalid JSON: #/properties/x/$ref: could not resolve $ref '#nowhere': no such location");
  CHECK_THAT(parse_error(R"({"$ref":"http://elsewhere.test/s.json"})"),
             Contains("no schema reference is named 'http://elsewhere.test/s.json'"));
}

TEST_CASE("json parse: $refs to registered references by name", "[schema][json]") {
  const std::string address = R"({"type":"object","properties":{"street":{"type":"string"}},
                                  "definitions":{"zip":{"type":"string","maxLength":10}}})";
  auto s = must_parse(R"({"type":"object","properties":{"home":{"$ref":"address.json"},
                          "zip":{"$ref":"address.json#/definitions/zip"}}})",
                      {{"address.json", address}});
  CHECK(s->unresolved_names() == Names{"address.json"});
  // Resolved against the schema's $id, as Confluent registers them.
  must_parse(R"({"$id":"https://example.com/schemas/customer.json","properties":{"a":{"$ref":"address.json"}}})",
             {{"address.json", address}});
  must_parse(R"({"$id":"https://example.com/schemas/customer.json","properties":{"a":{"$ref":"address.json"}}})",
             {{"https://example.com/schemas/address.json", address}});
  // A reference's own references come first and are found by name too.
  must_parse(R"({"properties":{"a":{"$ref":"b.json"}}})",
             {{"c.json", R"({"type":"integer"})"}, {"b.json", R"({"properties":{"c":{"$ref":"c.json"}}})"}});
  CHECK_THAT(parse_error(R"({"$ref":"other.json"})", {{"address.json", address}}),
             Contains("no schema reference is named 'other.json'"));
  CHECK_THAT(parse_error(R"({"$ref":"bad.json"})", {{"bad.json", "{nope"}}), Contains("'bad.json' is not valid JSON"));
  CHECK_THAT(parse_error(R"({"$ref":"bad.json"})", {{"bad.json", R"({"type":7})"}}),
             Contains("bad.json#/type: expected type is one of JsonArray or String"));
  // Meta-schema references are known, not fetched.
  must_parse(R"({"properties":{"s":{"$ref":"http://json-schema.org/draft-07/schema#"}}})");
}

TEST_CASE("json parse: recursive $refs terminate", "[schema][json]") {
  must_parse(R"({"definitions":{"node":{"type":"object","properties":{"next":{"$ref":"#/definitions/node"},
                 "kids":{"type":"array","items":{"$ref":"#/definitions/node"}}}}},"$ref":"#/definitions/node"})");
  must_parse(
      R"({"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"$ref":"#/definitions/a"}},"$ref":"#/definitions/a"})");
  must_parse(R"({"$ref":"a.json"})", {{"a.json", R"({"properties":{"b":{"$ref":"b.json"}}})"},
                                      {"b.json", R"({"properties":{"a":{"$ref":"a.json"}}})"}});
}

TEST_CASE("json parse: hostile input is bounded", "[schema][json]") {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"not\":";
  CHECK_THAT(parse_error(deep), StartsWith("Invalid JSON schema"));
  std::string nested = "{}";
  for (int i = 0; i < 100; ++i) nested = "{\"not\":" + nested + "}";
  must_parse(nested);
  // A long chain of definitions referring to the next one loads without recursion.
  std::string defs = "{\"definitions\":{";
  for (int i = 0; i < 5000; ++i)
    defs += "\"d" + std::to_string(i) + "\":{\"properties\":{\"n\":{\"$ref\":\"#/definitions/d" +
            std::to_string(i + 1) + "\"}}},";
  defs += "\"d5000\":{}},\"$ref\":\"#/definitions/d0\"}";
  auto chain = must_parse(defs);
  CHECK(chain->incompatibilities(*chain).empty());
}

TEST_CASE("json compat: an over-large comparison is bounded and errs on incompatible", "[schema][json]") {
  auto union_of = [](int n, int from) {
    std::string s = "{\"anyOf\":[";
    for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::string("{\"const\":") + std::to_string(from + i) + "}";
    return s + "]}";
  };
  // 300 x 300 pairs are compared exactly.
  CHECK(must_parse(union_of(300, 0))->incompatibilities(*must_parse(union_of(300, 0))).empty());
  CHECK_FALSE(must_parse(union_of(300, 1))->incompatibilities(*must_parse(union_of(300, 0))).empty());
  // 1000 x 1000 are past the bound: incompatible, quickly.
  CHECK_FALSE(must_parse(union_of(1000, 5000))->incompatibilities(*must_parse(union_of(1000, 0))).empty());
}
