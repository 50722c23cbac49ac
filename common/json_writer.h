// JsonWriter: builds one JSON document (RFC 8259) into a string, for the
// HTTP JSON API of the web console. Strings are escaped (quotes, backslash,
// control characters; bytes that are not UTF-8 become U+FFFD, so the output
// is always valid JSON whatever a client put in a name); non-finite numbers
// are written as null. The caller nests begin/end correctly: inside an
// object every value follows key().
// Thread: one writer per thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff {

// `s` as a JSON string the way Jackson's JsonGenerator writes it by default
// (what Java registries and libraries store and print): quotes, backslash,
// \b \t \n \f \r escaped by name, other control characters as \u00XX
// (upper-case hex), everything else, non-ASCII included, as is.
void append_jackson_string(std::string& out, std::string_view s);

struct JsonValue;
// `v` as compact JSON text: no spaces, members in their order, numbers as
// their lexeme (number_text), strings as append_jackson_string writes them;
// what Jackson's compact serialization of the same tree gives.
void append_compact_json(std::string& out, const JsonValue& v);
std::string compact_json(const JsonValue& v);

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::optional<std::string>& s) { return s ? value(*s) : null(); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t n);
  JsonWriter& value(int32_t n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(uint64_t n);
  JsonWriter& value(double d);
  JsonWriter& null();
  // `json`, already a valid JSON value (a number's lexeme, a document
  // written elsewhere), appended as the next value unchanged.
  JsonWriter& raw(std::string_view json);

  // key(name) then value(v).
  template <class T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void separate();  // a comma before every element but the first of its container
  void append_escaped(std::string_view s);
  template <class N>
  void append_number(N n);

  std::string out_;
  bool first_ = true;  // no element yet in the innermost container
  bool after_key_ = false;
};

}  // namespace skiff
