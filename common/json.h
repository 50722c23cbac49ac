// JsonValue: a JSON document (RFC 8259) read into a tree, for the few places
// the broker reads JSON from a client (OAUTHBEARER's token claims). The
// reader is strict (one value, no trailing bytes, no comments, no control
// characters in strings) and bounded (nesting deeper than max_depth is
// refused), so hostile input costs linear time and bounded stack.
// Plain data; pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff {

struct JsonMember;

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string number_text;  // kNumber: its lexeme as written ("1.0", "12345678901234567890"), for exact re-emission
  std::string string;       // kString, decoded to UTF-8
  std::vector<JsonValue> array;
  std::vector<JsonMember> members;  // kObject, in document order

  // The member `name` of an object (the last one if repeated, as Jackson
  // reads it), or null.
  const JsonValue* find(std::string_view name) const;
};

struct JsonMember {
  std::string name;
  JsonValue value;
};

std::optional<JsonValue> parse_json(std::string_view text, int max_depth = 32);

}  // namespace skiff
