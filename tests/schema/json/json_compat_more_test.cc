// Compatibility of JSON schemas, continued: numbers, strings, enums and
// const, arrays and tuples, allOf/anyOf/oneOf, not, $ref (local, to other
// registered schemas, recursive), 2019-09/2020-12 keywords.
#include <catch2/catch.hpp>

#include "json_schema_support.h"

using namespace skiff::schema::json;
using namespace skiff::schema::json::test;

TEST_CASE("json compat: maximum and minimum", "[schema][json]") {
  const std::string w = R"({"type":"number","minimum":0,"maximum":10})";
  CHECK(all_changes(w, R"({"type":"number","minimum":-1,"maximum":11})") ==
        Names{"MAXIMUM_INCREASED@#/maximum", "MINIMUM_DECREASED@#/minimum"});
  CHECK(breaking(w, R"({"type":"number","minimum":-1,"maximum":11})").empty());
  CHECK(breaking(w, R"({"type":"number","minimum":1,"maximum":9.5})") ==
        Names{"MAXIMUM_DECREASED", "MINIMUM_INCREASED"});
  CHECK(breaking(R"({"type":"number"})", w) == Names{"MAXIMUM_ADDED", "MINIMUM_ADDED"});
  CHECK(all_changes(w, R"({"type":"number"})") == Names{"MAXIMUM_REMOVED@#/maximum", "MINIMUM_REMOVED@#/minimum"});
  CHECK(breaking(w, R"({"type":"number","minimum":0.0,"maximum":10.0})").empty());
}

TEST_CASE("json compat: exclusive bounds", "[schema][json]") {
  const std::string w = R"({"type":"number","exclusiveMinimum":0,"exclusiveMaximum":10})";
  CHECK(breaking(w, R"({"type":"number","exclusiveMinimum":-1,"exclusiveMaximum":11})").empty());
  CHECK(all_changes(w, R"({"type":"number","exclusiveMinimum":-1,"exclusiveMaximum":11})") ==
        Names{"EXCLUSIVE_MAXIMUM_INCREASED@#/exclusiveMaximum", "EXCLUSIVE_MINIMUM_DECREASED@#/exclusiveMinimum"});
  CHECK(breaking(w, R"({"type":"number","exclusiveMinimum":1,"exclusiveMaximum":9})") ==
        Names{"EXCLUSIVE_MAXIMUM_DECREASED", "EXCLUSIVE_MINIMUM_INCREASED"});
  CHECK(breaking(R"({"type":"number"})", w) == Names{"EXCLUSIVE_MAXIMUM_ADDED", "EXCLUSIVE_MINIMUM_ADDED"});
  CHECK(breaking(w, R"({"type":"number"})").empty());
  // Confluent weighs a smaller exclusiveMaximum against the new maximum.
  CHECK(breaking(w, R"({"type":"number","exclusiveMinimum":0,"exclusiveMaximum":9,"maximum":20})") ==
        Names{"MAXIMUM_ADDED"});
  // Draft 4's boolean exclusive flags are not compared.
  const std::string d4 = R"("$schema":"http://json-schema.org/draft-04/schema#")";
  CHECK(breaking("{" + d4 + R"(,"type":"number","maximum":5})",
                 "{" + d4 + R"(,"type":"number","maximum":5,"exclusiveMaximum":true})")
            .empty());
}

TEST_CASE("json compat: multipleOf", "[schema][json]") {
  const std::string w = R"({"type":"number","multipleOf":0.1})";
  CHECK(all_changes(w, R"({"type":"number","multipleOf":0.01})") == Names{"MULTIPLE_OF_REDUCED@#/multipleOf"});
  CHECK(breaking(w, R"({"type":"number","multipleOf":0.01})").empty());
  CHECK(breaking(w, R"({"type":"number","multipleOf":0.3})") == Names{"MULTIPLE_OF_EXPANDED"});
  CHECK(breaking(w, R"({"type":"number","multipleOf":0.25})") == Names{"MULTIPLE_OF_CHANGED"});
  CHECK(breaking(w, R"({"type":"number","multipleOf":0.10})").empty());
  CHECK(all_changes(w, R"({"type":"number","multipleOf":0.10})").empty());
  CHECK(breaking(R"({"type":"number"})", w) == Names{"MULTIPLE_OF_ADDED"});
  CHECK(breaking(w, R"({"type":"number"})").empty());
}

TEST_CASE("json compat: string lengths and pattern", "[schema][json]") {
  const std::string w = R"({"type":"string","minLength":2,"maxLength":10,"pattern":"^a"})";
  CHECK(all_changes(w, R"({"type":"string","minLength":1,"maxLength":11,"pattern":"^a"})") ==
        Names{"MAX_LENGTH_INCREASED@#/maxLength", "MIN_LENGTH_DECREASED@#/minLength"});
  CHECK(breaking(w, R"({"type":"string","minLength":3,"maxLength":9,"pattern":"^b"})") ==
        Names{"MAX_LENGTH_DECREASED", "MIN_LENGTH_INCREASED", "PATTERN_CHANGED"});
  CHECK(breaking(R"({"type":"string"})", w) == Names{"MAX_LENGTH_ADDED", "MIN_LENGTH_ADDED", "PATTERN_ADDED"});
  CHECK(all_changes(w, R"({"type":"string"})") ==
        Names{"MAX_LENGTH_REMOVED@#/maxLength", "MIN_LENGTH_REMOVED@#/minLength", "PATTERN_REMOVED@#/pattern"});
  CHECK(breaking(w, R"({"type":"string"})").empty());
}

TEST_CASE("json compat: enum and const", "[schema][json]") {
  CHECK(all_changes(R"({"enum":["a","b"]})", R"({"enum":["a","b","c"]})") == Names{"ENUM_ARRAY_EXTENDED@#/enum"});
  CHECK(breaking(R"({"enum":["a","b"]})", R"({"enum":["b","a"]})").empty());
  CHECK(breaking(R"({"enum":["a","b","c"]})", R"({"enum":["a","b"]})") == Names{"ENUM_ARRAY_NARROWED"});
  CHECK(breaking(R"({"enum":["a","b"]})", R"({"enum":["a","c"]})") == Names{"ENUM_ARRAY_CHANGED"});
  CHECK(breaking(R"({"enum":[1,{"k":[1,2]}]})", R"({"enum":[{"k":[1,2]},1,null]})").empty());
  // With a type, everit makes an allOf of the enum and the type: a narrowed
  // enum shows as the allOf's subschemas changing.
  CHECK(breaking(R"({"type":"string","enum":["a","b"]})", R"({"type":"string","enum":["a","b","c"]})").empty());
  CHECK(breaking(R"({"type":"string","enum":["a","b"]})", R"({"type":"string","enum":["a"]})") ==
        Names{"COMBINED_TYPE_SUBSCHEMAS_CHANGED"});
  CHECK(all_changes(R"({"const":"a"})", R"({"const":"b"})") == Names{"ENUM_ARRAY_CHANGED@#/const"});
  CHECK(breaking(R"({"const":"a"})", R"({"const":"a"})").empty());
}

TEST_CASE("json compat: array items", "[schema][json]") {
  const std::string w = R"({"type":"array","items":{"type":"string"}})";
  CHECK(breaking(w, R"({"type":"array","items":{"type":"integer"}})") == Names{"TYPE_CHANGED"});
  CHECK(all_changes(w, R"({"type":"array","items":{"type":"integer"}})") == Names{"TYPE_CHANGED@#/items"});
  CHECK(breaking(R"({"type":"array"})", w) == Names{"SCHEMA_ADDED"});
  CHECK(all_changes(w, R"({"type":"array"})") == Names{"SCHEMA_REMOVED@#/items"});
  const std::string bounded =
      R"({"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true})";
  CHECK(breaking(bounded, w).empty());
  CHECK(all_changes(bounded, w) ==
        Names{"MAX_ITEMS_REMOVED@#/maxItems", "MIN_ITEMS_REMOVED@#/minItems", "UNIQUE_ITEMS_REMOVED@#/uniqueItems"});
  CHECK(breaking(w, bounded) == Names{"MAX_ITEMS_ADDED", "MIN_ITEMS_ADDED", "UNIQUE_ITEMS_ADDED"});
  CHECK(breaking(bounded, R"({"type":"array","items":{"type":"string"},"minItems":0,"maxItems":4,"uniqueItems":true})")
            .empty());
  CHECK(
      breaking(bounded, R"({"type":"array","items":{"type":"string"},"minItems":2,"maxItems":2,"uniqueItems":true})") ==
      Names{"MAX_ITEMS_DECREASED", "MIN_ITEMS_INCREASED"});
}

TEST_CASE("json compat: tuples under open, closed and partially open models", "[schema][json]") {
  auto tuple = [](const std::string& items, const std::string& extra = "") {
    return R"({"type":"array","items":[)" + items + "]" + (extra.empty() ? "" : "," + extra) + "}";
  };
  const std::string s = R"({"type":"string"})", i = R"({"type":"integer"})";
  CHECK(all_changes(tuple(s), tuple(s + "," + i)) == Names{"ITEM_ADDED_TO_OPEN_CONTENT_MODEL@#/items/1"});
  CHECK(breaking(tuple(s), tuple(s + "," + i)) == Names{"ITEM_ADDED_TO_OPEN_CONTENT_MODEL"});
  CHECK(breaking(tuple(s), tuple(s + ",{}")).empty());
  CHECK(breaking(tuple(s, R"("additionalItems":false)"), tuple(s + "," + i, R"("additionalItems":false)")).empty());
  CHECK(all_changes(tuple(s + "," + i), tuple(s)) == Names{"ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL@#/items/1"});
  CHECK(breaking(tuple(s + "," + i, R"("additionalItems":false)"), tuple(s, R"("additionalItems":false)")) ==
        Names{"ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"});
  CHECK(breaking(tuple(s + ",false", R"("additionalItems":false)"), tuple(s, R"("additionalItems":false)")).empty());
  const std::string more_ints = R"("additionalItems":{"type":"integer"})";
  CHECK(breaking(tuple(s + "," + i, more_ints), tuple(s, more_ints)).empty());
  CHECK(breaking(tuple(s + "," + s, more_ints), tuple(s, more_ints)) ==
        Names{"TYPE_CHANGED", "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"});
  CHECK(breaking(tuple(s, more_ints), tuple(s + "," + i, more_ints)).empty());
  CHECK(breaking(tuple(s, more_ints), tuple(s + "," + s, more_ints)) ==
        Names{"TYPE_CHANGED", "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"});
  CHECK(breaking(tuple(s), tuple(s, R"("additionalItems":false)")) == Names{"ADDITIONAL_ITEMS_REMOVED"});
  CHECK(breaking(tuple(s, R"("additionalItems":false)"), tuple(s)).empty());
  CHECK(breaking(tuple(s), tuple(s, more_ints)) == Names{"ADDITIONAL_ITEMS_NARROWED"});
  CHECK(all_changes(tuple(s, more_ints), tuple(s)) == Names{"ADDITIONAL_ITEMS_EXTENDED@#/additionalItems"});
}

TEST_CASE("json compat: oneOf, anyOf, allOf", "[schema][json]") {
  const std::string s = R"({"type":"string"})", i = R"({"type":"integer"})", n = R"({"type":"null"})";
  auto of = [](const char* c, const std::string& list) { return std::string("{\"") + c + "\":[" + list + "]}"; };
  CHECK(all_changes(of("oneOf", s + "," + i), of("oneOf", s + "," + i + "," + n)) == Names{"SUM_TYPE_EXTENDED@#/"});
  CHECK(breaking(of("oneOf", s + "," + i + "," + n), of("oneOf", s + "," + i)) == Names{"SUM_TYPE_NARROWED"});
  CHECK(breaking(of("allOf", s + "," + i), of("allOf", s + "," + i + "," + n)) == Names{"PRODUCT_TYPE_EXTENDED"});
  CHECK(breaking(of("allOf", s + "," + i + "," + n), of("allOf", s + "," + i)).empty());
  CHECK(all_changes(of("oneOf", s + "," + i), of("anyOf", s + "," + i)) == Names{"COMBINED_TYPE_EXTENDED@#/"});
  CHECK(breaking(of("anyOf", s + "," + i), of("oneOf", s + "," + i)) == Names{"COMBINED_TYPE_CHANGED"});
  CHECK(breaking(of("oneOf", s + "," + i), of("oneOf", s + "," + R"({"type":"boolean"})")) ==
        Names{"COMBINED_TYPE_SUBSCHEMAS_CHANGED"});
  CHECK(breaking(of("oneOf", s + "," + i), of("oneOf", i + "," + s)).empty());
  // A subschema that changes compatibly inside the union.
  CHECK(all_changes(of("anyOf", R"({"type":"integer"},{"type":"string","maxLength":5})"),
                    of("anyOf", R"({"type":"string","maxLength":6},{"type":"number"})")) ==
        Names{"TYPE_EXTENDED@#/anyOf/0", "MAX_LENGTH_INCREASED@#/anyOf/1/maxLength"});
  // One side only: a schema into a union, an allOf out to one of its parts.
  CHECK(all_changes(s, of("oneOf", i + "," + s)) == Names{"SUM_TYPE_EXTENDED@#/"});
  CHECK(breaking(s, of("oneOf", i + "," + n)) == Names{"TYPE_CHANGED"});
  CHECK(all_changes(of("allOf", R"({"type":"string"},{"maxLength":3})"), s) == Names{"PRODUCT_TYPE_NARROWED@#/"});
  CHECK(breaking(of("oneOf", s), s).empty());
  CHECK(breaking(s, of("anyOf", s)).empty());
}

TEST_CASE("json compat: not", "[schema][json]") {
  CHECK(all_changes(R"({"not":{"type":["string","integer"]}})", R"({"not":{"type":"string"}})") ==
        Names{"NOT_TYPE_NARROWED@#/not"});
  CHECK(breaking(R"({"not":{"type":"string"}})", R"({"not":{"type":["string","integer"]}})") ==
        Names{"NOT_TYPE_EXTENDED"});
}

TEST_CASE("json compat: local $refs are followed", "[schema][json]") {
  const std::string w = R"({"definitions":{"name":{"type":"string","maxLength":5}},
                            "type":"object","properties":{"a":{"$ref":"#/definitions/name"}}})";
  CHECK(breaking(w, w).empty());
  CHECK(all_changes(w, R"({"definitions":{"name":{"type":"string","maxLength":4}},
                           "type":"object","properties":{"a":{"$ref":"#/definitions/name"}}})") ==
        Names{"MAX_LENGTH_DECREASED@#/properties/a/maxLength"});
  // A $ref and the schema it names are the same to the diff.
  CHECK(breaking(w, R"({"type":"object","properties":{"a":{"type":"string","maxLength":6}}})").empty());
  CHECK(breaking(R"({"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}})",
                 R"({"$defs":{"n":{"type":"number"}},"properties":{"a":{"$ref":"#/$defs/n"}}})")
            .empty());
}

TEST_CASE("json compat: recursive schemas", "[schema][json]") {
  auto list = [](const std::string& value) {
    return R"({"$ref":"#/definitions/node","definitions":{"node":{"type":"object","properties":{"value":)" + value +
           R"(,"next":{"$ref":"#/definitions/node"}}}}})";
  };
  CHECK(breaking(list(R"({"type":"string"})"), list(R"({"type":"string"})")).empty());
  CHECK(all_changes(list(R"({"type":"integer"})"), list(R"({"type":"number"})")) ==
        Names{"TYPE_EXTENDED@#/properties/value"});
  // Found again through the cycle, as Confluent's second pass finds it.
  CHECK(all_changes(list(R"({"type":"string"})"), list(R"({"type":"integer"})")) ==
        Names{"TYPE_CHANGED@#/properties/next/properties/value", "TYPE_CHANGED@#/properties/value"});
  // A change met through a cycle in a union is still found (Confluent's fixpoint).
  auto tree = [](const std::string& leaf) {
    return R"({"$ref":"#/definitions/t","definitions":{"t":{"anyOf":[)" + leaf +
           R"(,{"type":"array","items":{"$ref":"#/definitions/t"}}]}}})";
  };
  CHECK(breaking(tree(R"({"type":"string"})"), tree(R"({"type":"string"})")).empty());
  CHECK_FALSE(breaking(tree(R"({"type":"string"})"), tree(R"({"type":"integer"})")).empty());
}

TEST_CASE("json compat: $refs to other registered schemas", "[schema][json]") {
  const std::string customer = R"({"type":"object","properties":{"address":{"$ref":"address.json"}}})";
  auto w = must_parse(customer, {{"address.json", R"({"type":"object","properties":{"zip":{"type":"string"}}})"}});
  auto same = must_parse(customer, {{"address.json", R"({"type":"object","properties":{"zip":{"type":"string"}}})"}});
  auto r = must_parse(customer, {{"address.json", R"({"type":"object","properties":{"zip":{"type":"string"}},
                                                     "required":["zip"]})"}});
  CHECK(same->incompatibilities(*w).empty());
  CHECK(r->incompatibilities(*w) ==
        Names{"{errorType:\"REQUIRED_ATTRIBUTE_ADDED\", description:\"The keyword at path "
              "'#/properties/address/required/zip' in the %s schema is not present in the %s schema'}"});
}

TEST_CASE("json compat: 2019-09 and 2020-12 keywords", "[schema][json]") {
  const std::string v = R"("$schema":"https://json-schema.org/draft/2020-12/schema",)";
  auto s = [&](const std::string& body) { return "{" + v + body + "}"; };
  // prefixItems are tuples, items after them the additional items.
  CHECK(breaking(s(R"("type":"array","prefixItems":[{"type":"string"}],"items":false)"),
                 s(R"("type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false)"))
            .empty());
  CHECK(breaking(s(R"("type":"array","prefixItems":[{"type":"string"}])"),
                 s(R"("type":"array","prefixItems":[{"type":"string"}],"items":false)")) ==
        Names{"ADDITIONAL_ITEMS_REMOVED"});
  // unevaluatedProperties closes (or partially opens) the model.
  const std::string a = R"("type":"object","properties":{"a":{"type":"string"}})";
  CHECK(breaking(s(a), s(a + R"(,"unevaluatedProperties":false)")) == Names{"UNEVALUATED_PROPERTIES_REMOVED"});
  CHECK(breaking(s(a + R"(,"unevaluatedProperties":false)"), s(a)).empty());
  CHECK(
      breaking(
          s(a + R"(,"unevaluatedProperties":false)"),
          s(R"("type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"unevaluatedProperties":false)"))
          .empty());
  CHECK(breaking(s(a), s(a + R"(,"unevaluatedProperties":{"type":"string"})")) ==
        Names{"UNEVALUATED_PROPERTIES_NARROWED"});
  CHECK(breaking(s(a + R"(,"unevaluatedProperties":{"type":"string"})"), s(a)).empty());
  // contains brings minContains (1 when absent).
  CHECK(breaking(s(R"("type":"array")"), s(R"("type":"array","contains":{"type":"string"})")) ==
        Names{"MIN_CONTAINS_ADDED"});
  CHECK(breaking(s(R"("type":"array","contains":{"type":"string"},"minContains":2,"maxContains":3)"),
                 s(R"("type":"array","contains":{"type":"string"},"minContains":1,"maxContains":4)"))
            .empty());
  CHECK(breaking(s(R"("type":"array","contains":{"type":"string"},"minContains":2,"maxContains":3)"),
                 s(R"("type":"array","contains":{"type":"string"},"minContains":3,"maxContains":2)")) ==
        Names{"MAX_CONTAINS_DECREASED", "MIN_CONTAINS_INCREASED"});
}

TEST_CASE("json compat: unevaluatedItems and contains bounds", "[schema][json]") {
  const std::string v = R"("$schema":"https://json-schema.org/draft/2020-12/schema",)";
  auto s = [&](const std::string& body) { return "{" + v + body + "}"; };
  const std::string tuple = R"("type":"array","prefixItems":[{"type":"string"}])";
  CHECK(breaking(s(tuple), s(tuple + R"(,"unevaluatedItems":false)")) == Names{"UNEVALUATED_ITEMS_REMOVED"});
  CHECK(all_changes(s(tuple + R"(,"unevaluatedItems":false)"), s(tuple)) ==
        Names{"UNEVALUATED_ITEMS_ADDED@#/unevaluatedItems"});
  CHECK(breaking(s(tuple), s(tuple + R"(,"unevaluatedItems":{"type":"integer"})")) ==
        Names{"UNEVALUATED_ITEMS_NARROWED"});
  CHECK(all_changes(s(tuple + R"(,"unevaluatedItems":{"type":"integer"})"), s(tuple)) ==
        Names{"UNEVALUATED_ITEMS_EXTENDED@#/unevaluatedItems"});
  // unevaluatedItems as the partially open model of a tuple.
  const std::string ints = R"(,"unevaluatedItems":{"type":"integer"})";
  CHECK(breaking(s(tuple + ints), s(R"("type":"array","prefixItems":[{"type":"string"},{"type":"integer"}])" + ints))
            .empty());
  CHECK(breaking(s(tuple + ints), s(R"("type":"array","prefixItems":[{"type":"string"},{"type":"string"}])" + ints)) ==
        Names{"TYPE_CHANGED", "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"});
  // contains removed takes its bounds with it.
  CHECK(all_changes(s(R"("type":"array","contains":{"type":"string"},"maxContains":2)"), s(R"("type":"array")")) ==
        Names{"MAX_CONTAINS_REMOVED@#/maxContains", "MIN_CONTAINS_REMOVED@#/minContains"});
  CHECK(breaking(s(R"("type":"array","contains":{"type":"string"})"),
                 s(R"("type":"array","contains":{"type":"string"},"maxContains":2)")) == Names{"MAX_CONTAINS_ADDED"});
}

TEST_CASE("json compat: unevaluatedProperties as a partially open model", "[schema][json]") {
  const std::string v = R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",)";
  const std::string strings = R"("unevaluatedProperties":{"type":"string"}})";
  CHECK(all_changes(v + R"("properties":{"a":{"type":"string"}},)" + strings,
                    v + R"("properties":{"a":{"type":"string"},"b":{"type":"string"}},)" + strings) ==
        Names{"PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL@#/properties/b",
              "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL@#/properties/b"});
  CHECK(breaking(v + R"("properties":{"a":{"type":"string"},"b":{"type":"boolean"}},)" + strings,
                 v + R"("properties":{"a":{"type":"string"}},)" + strings) ==
        Names{"TYPE_CHANGED", "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"});
  CHECK(all_changes(v + R"("unevaluatedProperties":false})", v + R"("unevaluatedProperties":true})") ==
        Names{"UNEVALUATED_PROPERTIES_ADDED@#/unevaluatedProperties"});
  CHECK(all_changes(v + R"("unevaluatedProperties":{"type":"string"}})", v + R"("unevaluatedProperties":true})") ==
        Names{"UNEVALUATED_PROPERTIES_EXTENDED@#/unevaluatedProperties"});
}

TEST_CASE("json compat: schemas at every level report their own path", "[schema][json]") {
  const std::string w = R"({"type":"object","properties":{"order":{"type":"object","properties":{
      "lines":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integer","minimum":1}}}}}}}})";
  const std::string r = R"({"type":"object","properties":{"order":{"type":"object","properties":{
      "lines":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integer","minimum":2}}}}}}}})";
  CHECK(all_changes(w, r) ==
        Names{"MINIMUM_INCREASED@#/properties/order/properties/lines/items/properties/qty/minimum"});
  CHECK(must_parse(r)->incompatibilities(*must_parse(w)) ==
        Names{"{errorType:\"MINIMUM_INCREASED\", description:\"The value at path "
              "'#/properties/order/properties/lines/items/properties/qty/minimum' in the %s schema is more than its "
              "value in the %s schema'}"});
}
