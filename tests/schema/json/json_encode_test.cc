// JSON Schema values validated and written (schema/json/json_validate.h,
// the JSON format's ParsedSchema::encode): the verdicts and payloads
// everit-json-schema and Jackson gave (tools/encode_oracle/gen.sh,
// encode_vectors.txt), decode(encode(x)) == x, errors naming the place, and
// hostile values and schemas refused within the limits.
#include <re2/re2.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "common/json.h"
#include "schema/json/json_schema.h"
#include "schema/json/json_validate.h"

using skiff::parse_json;
using skiff::schema::ParsedSchema;
using skiff::schema::SchemaSource;
using skiff::schema::SchemaType;

namespace {

struct JsRef {
  std::string name, text;
};

std::unique_ptr<ParsedSchema> js_parse(const std::string& text, const std::vector<JsRef>& refs = {}) {
  SchemaSource source;
  source.type = SchemaType::kJson;
  source.text = text;
  for (const JsRef& r : refs) {
    source.references.push_back({r.name, r.name, 1});
    source.resolved.push_back({r.name, r.text});
  }
  auto parsed = skiff::schema::parse_json_schema(source);
  if (!parsed) FAIL("parse failed: " << parsed.error().message);
  return std::move(*parsed);
}

std::string js_encode(const ParsedSchema& schema, const std::string& value) {
  auto json = parse_json(value, 128);
  REQUIRE(json);
  auto r = schema.encode(*json);
  return r ? *r : "error " + r.error();
}

struct JsVector {
  std::vector<JsRef> refs;
  std::string schema, value, expected;
};

std::vector<JsVector> js_vectors() {
  std::ifstream in(SKIFF_JSON_ENCODE_VECTORS);
  std::vector<JsVector> out;
  std::vector<JsRef> refs, current;
  std::string schema, value, line;
  while (std::getline(in, line)) {
    if (line.rfind("ref ", 0) == 0) {
      const size_t space = line.find(' ', 4);
      refs.push_back({line.substr(4, space - 4), line.substr(space + 1)});
    } else if (line.rfind("schema ", 0) == 0) {
      schema = line.substr(7), current = std::move(refs), refs.clear();
    } else if (line.rfind("value ", 0) == 0) {
      value = line.substr(6);
    } else if (line.rfind("=> ", 0) == 0) {
      out.push_back({current, schema, value, line.substr(3)});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("json encode: everit's verdicts and Jackson's text for every vector", "[json]") {
  const auto vectors = js_vectors();
  REQUIRE(vectors.size() > 100);
  int errors = 0;
  for (const auto& v : vectors) {
    auto schema = js_parse(v.schema, v.refs);
    INFO(v.schema << "\n" << v.value << "\n" << v.expected);
    const std::string got = js_encode(*schema, v.value);
    if (v.expected.rfind("error ", 0) == 0) {
      ++errors;
      CHECK(got.rfind("error the value does not match the schema: #", 0) == 0);
      // One of the places everit names is among ours.
      bool named = false;
      for (size_t at = v.expected.find('#'); at != std::string::npos; at = v.expected.find("; #", at + 1)) {
        const size_t start = v.expected.find('#', at);
        const std::string place = v.expected.substr(start, v.expected.find(':', start) - start);
        named = named || got.find(place + ":") != std::string::npos;
      }
      CHECK(named);
    } else {
      CHECK(got == v.expected);
    }
  }
  CHECK(errors > 50);
}

TEST_CASE("json encode: decode(encode(x)) is x", "[json]") {
  auto schema = js_parse(R"({"type":"object","properties":{"a":{"type":"array","items":{"type":"number"}}}})");
  const std::string x = R"({"a":[1,2.5,-3E+2],"b":{"c":"h\u00e9","d":null,"e":true}})";
  auto payload = schema->encode(*parse_json(x));
  REQUIRE(payload);
  CHECK(*payload == R"({"a":[1,2.5,-3E+2],"b":{"c":"hé","d":null,"e":true}})");
  auto back = schema->decode(*payload);
  REQUIRE(back);
  CHECK(back->json == *payload);
  CHECK(js_encode(*schema, back->json) == *payload);
}

TEST_CASE("json encode: errors name the place", "[json]") {
  auto schema = js_parse(R"({"type":"object","properties":{"items":{"type":"array","items":{"type":"object",)"
                         R"("properties":{"id":{"type":"integer"},"a/b":{"type":"string"}},"required":["id"]}}}})");
  CHECK(js_encode(*schema, R"({"items":[{"id":1},{"id":"x"}]})") ==
        "error the value does not match the schema: #/items/1/id: expected type: Integer, found: String");
  CHECK(js_encode(*schema, R"({"items":[{}]})") ==
        "error the value does not match the schema: #/items/0: required key [id] not found");
  CHECK(js_encode(*schema, R"({"items":[{"id":1,"a/b":2}]})") ==
        "error the value does not match the schema: #/items/0/a~1b: expected type: String, found: Integer");
}

TEST_CASE("json encode: formats, where they differ from everit's", "[json]") {
  auto schema = js_parse(R"({"properties":{"h":{"format":"hostname"},"e":{"format":"email"}}})");
  // everit looks the top-level domain up in IANA's list; these pass here.
  CHECK(js_encode(*schema, R"({"h":"x.local"})") == R"({"h":"x.local"})");
  CHECK(js_encode(*schema, R"({"e":"a@example.invalidtld"})") == R"({"e":"a@example.invalidtld"})");
  CHECK(js_encode(*schema, R"({"h":"a_b.com"})").rfind("error", 0) == 0);
}

TEST_CASE("json encode: patterns compiled once, and no more than the cache holds", "[json]") {
  skiff::schema::json::PatternCache cache;
  std::unique_ptr<re2::RE2> scratch;
  const auto* first = cache.get("^a+$", scratch);
  REQUIRE(first != nullptr);
  CHECK(cache.get("^a+$", scratch) == first);
  CHECK(scratch == nullptr);
  CHECK(cache.get("(?=x)", scratch) == nullptr);  // kept too: 2 patterns so far
  for (size_t i = 2; i < skiff::schema::json::PatternCache::kMaxPatterns; ++i)
    (void)cache.get("p" + std::to_string(i), scratch);
  CHECK(scratch == nullptr);
  const auto* extra = cache.get("^b$", scratch);
  CHECK(extra != nullptr);
  CHECK(extra == scratch.get());
}

TEST_CASE("json encode: hostile schemas and values are bounded", "[json]") {
  // A $ref cycle that never consumes the value.
  auto loop = js_parse(R"({"definitions":{"a":{"allOf":[{"$ref":"#/definitions/a"}]}},"$ref":"#/definitions/a"})");
  const std::string looped = js_encode(*loop, "1");
  CHECK(looped.find("nests deeper than") != std::string::npos);
  // Nested oneOf over a long array: bounded by the step budget.
  auto wide = js_parse(R"({"type":"array","items":{"oneOf":[{"anyOf":[{"type":"string"},{"not":{"type":"null"}}]},)"
                       R"({"anyOf":[{"type":"integer"},{"minimum":0}]}]},"uniqueItems":true})");
  std::string many = "[";
  for (int i = 0; i < 100000; ++i) many += (i ? "," : "") + std::to_string(i);
  many += "]";
  const std::string big = js_encode(*wide, many);
  CHECK(big.find("steps") != std::string::npos);
  // A pattern RE2 does not take (a lookahead) is an error, not a crash.
  auto look = js_parse(R"js({"type":"string","pattern":"^(?=a)"})js");
  CHECK(js_encode(*look, R"("a")").find("is not supported") != std::string::npos);
  // A catastrophic pattern for a backtracking engine runs in linear time.
  auto evil = js_parse(R"js({"type":"string","pattern":"^(a+)+$"})js");
  CHECK(js_encode(*evil, "\"" + std::string(50000, 'a') + "b\"").rfind("error", 0) == 0);
}
