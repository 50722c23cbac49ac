// The text the registry stores for a JSON schema: Jackson's compact form
// (canonical()), its sorted form (normalized()), BigDecimal's number text,
// and the Java hash orders the diff walks property names in.
#include <catch2/catch.hpp>

#include "json_schema_support.h"
#include "schema/json/jackson_text.h"
#include "schema/json/java_order.h"

using namespace skiff::schema::json;
using namespace skiff::schema::json::test;

TEST_CASE("json text: canonical is Jackson's compact form, members in order", "[schema][json]") {
  auto s = must_parse("{ \"type\" : \"object\",\n  \"properties\" : { \"b\" : {\"type\":\"string\"}, \"a\": {} } }");
  CHECK(s->canonical() == R"({"type":"object","properties":{"b":{"type":"string"},"a":{}}})");
  CHECK(s->normalized() == R"({"properties":{"a":{},"b":{"type":"string"}},"type":"object"})");
  CHECK(s->type() == skiff::schema::SchemaType::kJson);
}

TEST_CASE("json text: a repeated member keeps its first place and its last value", "[schema][json]") {
  auto s = must_parse(R"({"title":"x","type":"string","title":"y"})");
  CHECK(s->canonical() == R"({"title":"y","type":"string"})");
}

TEST_CASE("json text: numbers as Jackson writes them", "[schema][json]") {
  auto s = must_parse(R"({"type":"number","minimum":1.0,"maximum":1e5,"multipleOf":0.0000001,"default":-0,
                          "examples":[12345678901234567890,1.50,-2.5E-3,0.00,1E+2,0e3,123.456e1]})");
  CHECK(s->canonical() == R"({"type":"number","minimum":1.0,"maximum":1E+5,"multipleOf":1E-7,"default":0,)"
                          R"("examples":[12345678901234567890,1.50,-0.0025,0.00,1E+2,0E+3,1234.56]})");
}

TEST_CASE("json text: BigDecimal.toString", "[schema][json]") {
  CHECK(big_decimal_text("1.0") == "1.0");
  CHECK(big_decimal_text("100") == "100");
  CHECK(big_decimal_text("1e5") == "1E+5");
  CHECK(big_decimal_text("1.5e3") == "1.5E+3");
  CHECK(big_decimal_text("15e-1") == "1.5");
  CHECK(big_decimal_text("0.000001") == "0.000001");
  CHECK(big_decimal_text("0.0000001") == "1E-7");
  CHECK(big_decimal_text("-0.0") == "0.0");
  CHECK(big_decimal_text("1e-10") == "1E-10");
  CHECK(big_decimal_text("12.5e-8") == "1.25E-7");
  CHECK_FALSE(big_decimal_text("1e99999999999"));
  CHECK_FALSE(big_decimal_text(std::string(1001, '1')));
}

TEST_CASE("json text: strings escaped as Jackson escapes them", "[schema][json]") {
  auto s = must_parse("{\"description\":\"tab\\t nl\\n \\u0001 \\u007f / \\u00e9 \\\" \\\\\"}");
  CHECK(s->canonical() == "{\"description\":\"tab\\t nl\\n \\u0001 \x7f / \xc3\xa9 \\\" \\\\\"}");
}

TEST_CASE("json text: normalized sorts members by UTF-16 units, recursively", "[schema][json]") {
  // U+FF5E sorts after U+1F600's high surrogate (D83D) in Java, before it in UTF-8 bytes.
  auto s = must_parse("{\"properties\":{\"\xef\xbd\x9e\":{},\"\xf0\x9f\x98\x80\":{},\"B\":{},\"a\":{}},\"$id\":\"x\"}");
  CHECK(s->normalized() ==
        "{\"$id\":\"x\",\"properties\":{\"B\":{},\"a\":{},\"\xf0\x9f\x98\x80\":{},\"\xef\xbd\x9e\":{}}}");
  CHECK(java_string_less("\xf0\x9f\x98\x80", "\xef\xbd\x9e"));
}

TEST_CASE("json text: Java's String.hashCode and HashMap iteration order", "[schema][json]") {
  CHECK(java_string_hash("") == 0);
  CHECK(java_string_hash("a") == 97);
  CHECK(java_string_hash("hello") == 99162322);
  CHECK(java_string_hash("FB") == java_string_hash("Ea"));
  CHECK(java_string_hash("\xc3\xa9") == 233);
  CHECK(java_string_hash("\xf0\x9f\x98\x80") == 0xD83D * 31 + 0xDE00);
  // new HashMap: buckets by spread hash & 15; "b"(98) -> 2, "a"(97) -> 1, "q"(113) -> 1 after "a".
  CHECK(java_hash_order({"b", "q", "a"}, java_default_capacity()) == Names{"q", "a", "b"});
  CHECK(java_hash_order({"b", "a", "b"}, java_default_capacity()) == Names{"a", "b"});
  CHECK(java_capacity_for_collection(3) == 16);
  CHECK(java_capacity_for_collection(13) == 32);
  CHECK(java_capacity_for_map_copy(3) == 8);
  CHECK(java_capacity_for_map_copy(1) == 2);
}
