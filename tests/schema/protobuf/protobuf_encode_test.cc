// JSON to a framed Protobuf value (schema/protobuf/protobuf_encode.h,
// ProtobufSchema::encode): the vectors confluent-kafka's ProtobufSerializer
// wrote (tools/encode_oracle/gen.sh, encode_vectors.txt) byte for byte,
// decode(encode(x)) == x, errors naming the field, and hostile values.
#include "schema/protobuf/protobuf_encode.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/json_writer.h"
#include "protobuf_test_util.h"

using namespace skiff::schema::test;
using skiff::parse_json;
using skiff::schema::ParsedSchema;

namespace {

std::string pb_hex(const std::string& bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) hex += kHex[c >> 4], hex += kHex[c & 15];
  return hex.empty() ? "empty" : hex;
}

std::string pb_encode(const ParsedSchema& schema, const std::string& value, const std::string& message = "") {
  auto json = parse_json(value, 128);
  REQUIRE(json);
  auto r = schema.encode(*json, message);
  return r ? pb_hex(*r) : "error " + r.error();
}

struct PbVector {
  std::vector<Ref> refs;
  std::string schema, message, value, expected;
};

std::vector<PbVector> pb_vectors() {
  std::ifstream in(SKIFF_PROTOBUF_ENCODE_VECTORS);
  std::vector<PbVector> out;
  std::vector<Ref> refs, current;
  std::string schema, message, value, line;
  while (std::getline(in, line)) {
    if (line.rfind("ref ", 0) == 0) {
      const size_t space = line.find(' ', 4);
      refs.push_back({line.substr(4, space - 4), line.substr(space + 1), "", 1});
    } else if (line.rfind("schema ", 0) == 0) {
      schema = line.substr(7), current = std::move(refs), refs.clear(), message.clear();
    } else if (line.rfind("message", 0) == 0) {
      message = line.size() > 8 ? line.substr(8) : "";
    } else if (line.rfind("value ", 0) == 0) {
      value = line.substr(6);
    } else if (line.rfind("=> ", 0) == 0) {
      out.push_back({current, schema, message, value, line.substr(3)});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("protobuf encode: the serializer's bytes for every vector", "[protobuf]") {
  const auto vectors = pb_vectors();
  REQUIRE(vectors.size() > 40);
  for (const auto& v : vectors) {
    auto schema = parse_ok(v.schema, v.refs);
    INFO(v.schema << "\n" << v.message << " " << v.value);
    const std::string got = pb_encode(*schema, v.value, v.message);
    // Java's JsonFormat, which Confluent's REST Proxy reads with, takes
    // "true" for a bool (parseBool compares the text), as libprotobuf does;
    // Python's json_format does not.
    if (v.value == R"({"ok":"true"})")
      CHECK(got == "003801");
    else if (v.expected.rfind("error ", 0) == 0)
      CHECK(got.rfind("error ", 0) == 0);
    else
      CHECK(got == v.expected);
  }
}

TEST_CASE("protobuf encode: decode(encode(x)) is x", "[protobuf]") {
  auto schema =
      parse_ok(R"(syntax = "proto3"; package p; enum E { Z = 0; O = 1; } message M { int64 l = 1; repeated E e = 2;)"
               R"( map<string, int32> m = 3; bytes b = 4; M child = 5; string name_x = 6; } message N { M m = 1; })");
  const std::string x =
      R"({"l":"-12","e":["O","Z"],"m":{"a":1,"b":2},"b":"AAH/","child":{"name_x":"c"},"name_x":"h\u00e9"})";
  auto json = parse_json(x);
  REQUIRE(json);
  auto bytes = schema->encode(*json);
  REQUIRE(bytes);
  auto back = schema->decode(*bytes);
  REQUIRE(back);
  CHECK(back->type_name == "p.M");
  auto again = parse_json(back->json);
  REQUIRE(again);
  CHECK(skiff::compact_json(*again) == skiff::compact_json(*parse_json(back->json)));
  CHECK(back->json == R"({"l":"-12","e":["O","Z"],"m":{"a":1,"b":2},"b":"AAH/","child":{"name_x":"c"},"name_x":"hé"})");

  auto n = schema->encode(*parse_json(R"({"m":{"l":"1"}})"), "p.N");
  REQUIRE(n);
  CHECK(n->substr(0, 2) == std::string("\x02\x02", 2));  // [1]
  auto nb = schema->decode(*n);
  REQUIRE(nb);
  CHECK(nb->type_name == "p.N");
  CHECK(nb->json == R"({"m":{"l":"1"}})");
}

TEST_CASE("protobuf encode: errors say what and where", "[protobuf]") {
  auto schema = parse_ok(R"(syntax = "proto3"; package p; message M { int32 i = 1; bytes b = 2; M c = 3; })");
  CHECK(pb_encode(*schema, R"({"c":{"c":{"i":"x"}}})") ==
        R"(error invalid p.M: (c.c.i): invalid value "x" for type TYPE_INT32)");
  CHECK(pb_encode(*schema, R"({"c":{"c":{"zz":"x"}}})") == "error invalid p.M: (c.c) zz: Cannot find field.");
  CHECK(pb_encode(*schema, R"({"c":{"i":99999999999}})") ==
        "error invalid p.M: (c.i): invalid value 99999999999 for type TYPE_INT32");
  auto lists = parse_ok(
      R"(syntax = "proto3"; package p; message L { repeated L l = 1; map<string, L> m = 2; repeated int32 n = 3; })");
  CHECK(pb_encode(*lists, R"({"l":[{},{"m":{"k":{"n":5}}}]})") ==
        R"(error invalid p.L: (l[1].m["k"].n): expected an array for repeated field n)");
  CHECK(pb_encode(*lists, R"({"m":[]})") == "error invalid p.L: (m): expected an object for map field m");
  const std::string bad_b64 = pb_encode(*schema, R"({"b":"%%%"})");
  CHECK(bad_b64.rfind("error invalid p.M: ", 0) == 0);
  CHECK(bad_b64.find('b') != std::string::npos);
  CHECK(pb_encode(*schema, R"({"i":1})", "p.Nope") == "error the schema has no message p.Nope");
  CHECK(pb_encode(*schema, R"([1])") == "error expected a JSON object for message p.M");
  auto empty = parse_ok(R"(syntax = "proto3"; package p; enum E { Z = 0; })");
  CHECK(pb_encode(*empty, "{}") == "error the schema has no message");
}

TEST_CASE("protobuf encode: message names and indexes", "[protobuf]") {
  auto schema =
      parse_ok(R"(syntax = "proto3"; package a.b; message X { message Y { message Z {} } map<string, X> m = 1; })"
               R"( message W {})");
  CHECK(pb_encode(*schema, "{}", "W") == "0202");
  CHECK(pb_encode(*schema, "{}", ".a.b.W") == "0202");
  CHECK(pb_encode(*schema, "{}", "X.Y.Z") == "06000000");
  CHECK(pb_encode(*schema, "{}", "a.b.X.Y") == "040000");
  CHECK(pb_encode(*schema, "{}") == "00");
  CHECK(skiff::schema::protobuf::write_message_indexes({0}) == std::string(1, '\0'));
  CHECK(pb_hex(skiff::schema::protobuf::write_message_indexes({1, 70})) == "04028c01");
}

TEST_CASE("protobuf encode: map entries count in a schema registered serialized", "[protobuf]") {
  const std::string text =
      R"(syntax = "proto3"; package s; message X { map<string, string> m = 1; message Y { int32 v = 1; } })";
  auto as_text = parse_ok(text);
  auto as_serialized = parse_ok(as_proto(*as_text).serialized());
  // Y is X's first listed message in the text, its second nested type in
  // the descriptor (after the entry of m).
  CHECK(pb_encode(*as_text, R"({"v":1})", "s.X.Y") == "0400000801");
  CHECK(pb_encode(*as_serialized, R"({"v":1})", "s.X.Y") == "0400020801");
  for (const auto* schema : {as_text.get(), as_serialized.get()}) {
    auto bytes = schema->encode(*parse_json(R"({"v":1})"), "s.X.Y");
    REQUIRE(bytes);
    auto back = schema->decode(*bytes);
    REQUIRE(back);
    CHECK(back->type_name == "s.X.Y");
  }
}

TEST_CASE("protobuf encode: hostile values are refused", "[protobuf]") {
  auto schema = parse_ok(R"(syntax = "proto3"; package p; message M { M c = 1; repeated int32 n = 2; })");
  std::string deep = "{}";
  for (int i = 0; i < 150; ++i) deep = std::string(R"({"c":)").append(deep).append("}");
  auto json = parse_json(deep, 1000);
  REQUIRE(json);
  CHECK_FALSE(schema->encode(*json));
  std::string many = R"({"n":[)";
  for (int i = 0; i < 100000; ++i) many += i ? ",1" : "1";
  many += "]}";
  auto big = schema->encode(*parse_json(many));
  REQUIRE(big);
  CHECK(big->size() > 100000);
}
