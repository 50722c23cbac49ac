// The JSON writer (common/json_writer.h): nesting and commas, escaping, and
// output that the strict reader (common/json.h) accepts whatever the input.
#include "common/json_writer.h"

#include <catch2/catch.hpp>
#include <limits>
#include <string>

#include "common/json.h"

using skiff::JsonWriter;

TEST_CASE("json writer: nested objects and arrays get their commas", "[json]") {
  JsonWriter w;
  w.begin_object().field("a", int64_t{1}).key("b").begin_array();
  w.value(true).null().begin_object().field("c", "x").end_object().end_array();
  w.field("d", 1.5).key("e").begin_object().end_object().end_object();
  CHECK(w.text() == R"({"a":1,"b":[true,null,{"c":"x"}],"d":1.5,"e":{}})");
}

TEST_CASE("json writer: strings are escaped and always valid UTF-8", "[json]") {
  JsonWriter w;
  const std::string nasty = std::string("q\"b\\n\n\x01\x7f") + "\xc3\xa9" + "\xff" + "\xed\xa0\x80";
  w.begin_array().value(nasty).end_array();
  CHECK(w.text() == "[\"q\\\"b\\\\n\\u000a\\u0001\\u007f\xc3\xa9\\ufffd\\ufffd\\ufffd\\ufffd\"]");
  auto parsed = skiff::parse_json(w.text());
  REQUIRE(parsed);
  CHECK(parsed->array.at(0).string == "q\"b\\n\n\x01\x7f\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("json writer: numbers round-trip, non-finite ones are null", "[json]") {
  JsonWriter w;
  w.begin_array().value(int64_t{-9223372036854775807 - 1}).value(uint64_t{18446744073709551615u});
  w.value(0.1).value(std::numeric_limits<double>::quiet_NaN()).value(-std::numeric_limits<double>::infinity());
  w.end_array();
  CHECK(w.text() == "[-9223372036854775808,18446744073709551615,0.1,null,null]");
  CHECK(skiff::parse_json(w.text()));
}

TEST_CASE("json writer: raw values are appended unchanged, separated like any value", "[json]") {
  JsonWriter w;
  w.begin_object().key("a").raw("1.0").key("b").raw(R"({"x":[1,2]})").end_object();
  CHECK(w.text() == R"({"a":1.0,"b":{"x":[1,2]}})");
  CHECK(skiff::parse_json(w.text()));
}
