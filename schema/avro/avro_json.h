// AvroJson: a JSON value as Apache Avro Java holds one (a Jackson JsonNode):
// the default values and custom properties of an Avro schema, and the text
// Avro writes for them. Numbers are typed as Jackson types them when it reads
// a document (an integer that fits an int is an IntNode, else a LongNode,
// else a BigIntegerNode; anything with a fraction or an exponent a
// DoubleNode), so that validation (`canConvertToInt`), equality and the
// written form ("1e3" is written back as 1000.0, "-0" as 0) match Java's.
// Objects keep the position of a member's first occurrence and the value of
// its last, as Jackson's ObjectNode does with a repeated name.
// Plain data; pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/json.h"

namespace skiff::schema::avro {

struct AvroMember;

struct AvroJson {
  enum class Kind { kNull, kBool, kInt, kLong, kBigInt, kDouble, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;  // kInt, kLong
  double number = 0;    // kDouble
  std::string text;     // kString (UTF-8); kBigInt: its decimal digits
  std::vector<AvroJson> items;
  std::vector<AvroMember> members;  // in order; names unique

  bool is_integral() const { return kind == Kind::kInt || kind == Kind::kLong || kind == Kind::kBigInt; }
  bool is_number() const { return is_integral() || kind == Kind::kDouble; }
  const AvroJson* get(std::string_view name) const;
  // Jackson's JsonNode.textValue(): the string, or null for any other kind.
  const std::string* text_value() const { return kind == Kind::kString ? &text : nullptr; }

  static AvroJson string(std::string s);
  static AvroJson from_double(double d);
};

struct AvroMember {
  std::string first;  // the name
  AvroJson second;    // the value
};

// Jackson's JsonNode.equals: kinds and values equal; objects regardless of
// member order; doubles as Double.compare (NaN equals NaN, -0.0 is not 0.0).
bool operator==(const AvroJson& a, const AvroJson& b);

AvroJson from_json_value(const JsonValue& v);

// Jackson's compact writing of a JsonNode (JsonNode.toString()).
void write_json(const AvroJson& v, std::string& out);
std::string to_json(const AvroJson& v);
// A JSON string literal as Jackson escapes it.
void write_json_string(std::string_view s, std::string& out);

// Java's Double.toString and Float.toString (the shortest digits that read
// back to the same value, as Java 19 and later print them).
std::string java_double(double d);
std::string java_float(float f);

// Java's Double.parseDouble over a default written as a string ("1.5",
// " 2 ", "NaN", "-Infinity", "3f"); false where Java throws.
bool java_parse_double(std::string_view s, double& out);

}  // namespace skiff::schema::avro
