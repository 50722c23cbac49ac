// JSON to Avro binary (schema/avro/avro_encode.h, AvroSchema::encode): the
// vectors Avro Java wrote (tools/encode_oracle/gen.sh, encode_vectors.txt)
// byte for byte, encode(decode(bytes)) == bytes, errors that name the
// place, and hostile values refused within the limits.
#include "schema/avro/avro_encode.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "avro_test_util.h"
#include "common/json.h"

using namespace skiff::schema::avro_test;
using skiff::JsonValue;
using skiff::parse_json;
using skiff::schema::ParsedSchema;

namespace {

std::string encode_hex(const std::string& bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) hex += kHex[c >> 4], hex += kHex[c & 15];
  return hex.empty() ? "empty" : hex;
}

std::string encode_text(const ParsedSchema& schema, const std::string& value) {
  auto json = parse_json(value, 128);
  REQUIRE(json);
  auto r = schema.encode(*json);
  return r ? encode_hex(*r) : "error " + r.error();
}

struct EncodeVector {
  std::vector<std::string> refs;
  std::string schema, value, expected;
};

std::vector<EncodeVector> encode_vectors() {
  std::ifstream in(SKIFF_AVRO_ENCODE_VECTORS);
  std::vector<EncodeVector> out;
  std::vector<std::string> refs, current_refs;
  std::string schema, value, line;
  while (std::getline(in, line)) {
    if (line.rfind("ref ", 0) == 0) refs.push_back(line.substr(4));
    if (line.rfind("schema ", 0) == 0) schema = line.substr(7), current_refs = std::move(refs), refs.clear();
    if (line.rfind("value ", 0) == 0) value = line.substr(6);
    if (line.rfind("=> ", 0) == 0) out.push_back({current_refs, schema, value, line.substr(3)});
  }
  return out;
}

}  // namespace

TEST_CASE("avro encode: Avro Java's bytes for every vector", "[avro]") {
  const auto vectors = encode_vectors();
  REQUIRE(vectors.size() > 120);
  int errors = 0;
  for (const auto& v : vectors) {
    auto parsed = parse(v.schema, v.refs);
    REQUIRE(parsed);
    INFO(v.schema << "\n" << v.value);
    const std::string got = encode_text(**parsed, v.value);
    if (v.expected.rfind("error ", 0) == 0) {
      ++errors;
      CHECK(got.rfind("error ", 0) == 0);
      CHECK(got.find(" at $") != std::string::npos);
    } else {
      CHECK(got == v.expected);
    }
  }
  CHECK(errors > 40);
}

TEST_CASE("avro encode: encode(decode(bytes)) is the bytes", "[avro]") {
  for (const auto& v : encode_vectors()) {
    if (v.expected.rfind("error ", 0) == 0) continue;
    auto parsed = parse(v.schema, v.refs);
    REQUIRE(parsed);
    std::string bytes;
    for (size_t i = 0; v.expected != "empty" && i < v.expected.size(); i += 2)
      bytes.push_back(static_cast<char>(std::stoi(v.expected.substr(i, 2), nullptr, 16)));
    auto decoded = (*parsed)->decode(bytes);
    REQUIRE(decoded);
    INFO(v.schema << "\n" << decoded->json);
    CHECK(encode_text(**parsed, decoded->json) == v.expected);
  }
}

TEST_CASE("avro encode: decode(encode(x)) is x", "[avro]") {
  auto parsed = parse(
      R"({"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"},)"
      R"({"name":"c","type":["null","long"]},{"name":"d","type":{"type":"array","items":"double"}},)"
      R"({"name":"e","type":{"type":"map","values":"boolean"}},)"
      R"({"name":"f","type":{"type":"enum","name":"E","symbols":["A","B"]}},)"
      R"({"name":"g","type":{"type":"fixed","name":"G","size":2}},{"name":"h","type":"bytes"},)"
      R"({"name":"i","type":["null","E","G"]},{"name":"j","type":"float"}]})");
  REQUIRE(parsed);
  const std::string x = R"({"a":-7,"b":"hé","c":{"long":12345678901},"d":[1.5,-0.25,1.0E10],"e":{"k":true},"f":"B",)"
                        R"("g":"\u0000ÿ","h":"bin","i":{"n.G":"zz"},"j":"NaN"})";
  auto json = parse_json(x);
  REQUIRE(json);
  auto bytes = (*parsed)->encode(*json);
  REQUIRE(bytes);
  auto back = (*parsed)->decode(*bytes);
  REQUIRE(back);
  CHECK(back->json == x);
  CHECK(back->type_name == "n.R");
}

TEST_CASE("avro encode: errors name the place", "[avro]") {
  auto parsed =
      parse(R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":{"type":"map",)"
            R"("values":["null",{"type":"record","name":"In","fields":[{"name":"x","type":"int"}]}]}}}]})");
  REQUIRE(parsed);
  auto error = [&](const std::string& value) { return encode_text(**parsed, value); };
  CHECK(error(R"({"a":[{},{"k":{"In":{"x":"s"}}}]})") ==
        R"(error expected int, found a string at $.a[1]["k"]["In"].x)");
  CHECK(error(R"({"a":[{"k":{"In":{"x":2147483648}}}]})") ==
        R"(error 2147483648 is out of range of int at $.a[0]["k"]["In"].x)");
  CHECK(error(R"({"a":[{"k":{"Out":{}}}]})") ==
        R"(error unknown union branch "Out" (the union has null, In) at $.a[0]["k"])");
  CHECK(error(R"({"a":[{"k":{"In":{}}}]})") == R"(error missing field x of record In at $.a[0]["k"]["In"].x)");
  CHECK(error(R"({"b":1})") == "error missing field a of record R at $.a");
  CHECK(error(R"({"a":[{"k":{"In":{"y":1,"x":1}}},{}]})") ==
        R"(error unknown fields [y] of record In at $.a[0]["k"]["In"])");
  CHECK(error(R"([])") == "error expected record R, found an array at $");
}

TEST_CASE("avro encode: hostile values stay within the limits", "[avro]") {
  auto parsed = parse(R"({"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]}]})");
  REQUIRE(parsed);
  std::string deep = "null";
  for (int i = 0; i < 120; ++i) deep = std::string(R"({"n":{"L":)").append(deep).append("}}");
  auto json = parse_json(deep, 1000);
  REQUIRE(json);
  auto r = (*parsed)->encode(*json);
  REQUIRE_FALSE(r);
  CHECK(r.error().rfind("nesting deeper than 100", 0) == 0);

  auto bytes = parse(R"({"type":"array","items":"string"})");
  REQUIRE(bytes);
  JsonValue big;
  big.kind = JsonValue::Kind::kArray;
  JsonValue item;
  item.kind = JsonValue::Kind::kString;
  item.string.assign(1 << 20, 'x');
  big.array.assign(20, item);
  const auto* avro = dynamic_cast<const skiff::schema::AvroSchema*>(bytes->get());
  REQUIRE(avro != nullptr);
  auto limited = skiff::schema::avro::json_to_avro(avro->root(), big, {100, 4u << 20});
  REQUIRE_FALSE(limited);
  CHECK(limited.error().find("exceeds 4194304 bytes") != std::string::npos);
}

TEST_CASE("avro encode: map entries in Java's HashMap order", "[avro]") {
  using skiff::schema::avro::java_hash_map_order;
  CHECK(java_hash_map_order({}).empty());
  CHECK(java_hash_map_order({"z", "y", "x", "w", "v", "u", "t"}) == std::vector<size_t>{6, 5, 4, 3, 2, 1, 0});
  CHECK(java_hash_map_order({"a", "b"}) == std::vector<size_t>{0, 1});
}
