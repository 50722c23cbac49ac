// The JSON reader (common/json.h): RFC 8259's grammar, strictly, with the
// nesting bound that keeps hostile input from exhausting the stack.
#include "common/json.h"

#include <catch2/catch.hpp>
#include <string>

using skiff::JsonValue;
using skiff::parse_json;
using Kind = JsonValue::Kind;

TEST_CASE("json: an object with every kind of value", "[json]") {
  auto v = parse_json(R"( {"s":"a\"b\\\/\n\u00e9\ud83d\ude00", "n": -12.5e2, "t": true, "f": false,
                          "z": null, "a": [1, "x", [], {}], "o": {"k": 0}} )");
  REQUIRE(v);
  REQUIRE(v->kind == Kind::kObject);
  CHECK(v->find("s")->string == "a\"b\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(v->find("n")->number == -1250);
  CHECK(v->find("t")->boolean);
  CHECK(v->find("f")->kind == Kind::kBool);
  CHECK_FALSE(v->find("f")->boolean);
  CHECK(v->find("z")->kind == Kind::kNull);
  REQUIRE(v->find("a")->array.size() == 4);
  CHECK(v->find("a")->array[1].string == "x");
  CHECK(v->find("o")->find("k")->number == 0);
  CHECK(v->find("missing") == nullptr);
}

TEST_CASE("json: a repeated member is read as its last value", "[json]") {
  auto v = parse_json(R"({"sub":"a","sub":"b"})");
  REQUIRE(v);
  CHECK(v->find("sub")->string == "b");
}

TEST_CASE("json: malformed documents are refused", "[json]") {
  for (std::string_view bad :
       {"",      "{",       "{\"a\"}", "{\"a\":1,}", "[1,]",    "01",       "1.",          ".5",          "-",
        "1e",    "tru",     "nul",     "\"a",        "\"\\x\"", "\"\x01\"", "\"\\ud83d\"", "\"\\ude00\"", "\"\\u12\"",
        "{} {}", "{'a':1}", "[1 2]",   "{\"a\" 1}"})
    CHECK_FALSE(parse_json(bad));
}

TEST_CASE("json: nesting deeper than the bound is refused", "[json]") {
  CHECK(parse_json(std::string(32, '[') + std::string(32, ']')));
  CHECK_FALSE(parse_json(std::string(33, '[') + std::string(33, ']')));
  CHECK_FALSE(parse_json(std::string(100000, '[')));  // no stack exhausted
}

TEST_CASE("json: a number keeps its lexeme beside its double", "[json]") {
  auto v = parse_json(R"([1.0, 12345678901234567890, -2e+3, 0])");
  REQUIRE(v);
  CHECK(v->array.at(0).number_text == "1.0");
  CHECK(v->array.at(1).number_text == "12345678901234567890");
  CHECK(v->array.at(2).number_text == "-2e+3");
  CHECK(v->array.at(2).number == -2000);
  CHECK(v->array.at(3).number_text == "0");
}
