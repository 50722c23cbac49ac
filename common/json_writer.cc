#include "common/json_writer.h"

#include <charconv>
#include <cmath>

#include "common/json.h"
#include "common/utf8.h"

namespace skiff {

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_) out_ += ',';
  first_ = false;
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ += '{';
  first_ = true;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  out_ += '}';
  first_ = false;
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ += '[';
  first_ = true;
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  first_ = false;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  append_escaped(name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  append_escaped(s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n) {
  separate();
  append_number(n);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n) {
  separate();
  append_number(n);
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  separate();
  append_number(d);
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

void append_compact_json(std::string& out, const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kNull:
      out += "null";
      return;
    case JsonValue::Kind::kBool:
      out += v.boolean ? "true" : "false";
      return;
    case JsonValue::Kind::kNumber:
      out += v.number_text;
      return;
    case JsonValue::Kind::kString:
      append_jackson_string(out, v.string);
      return;
    case JsonValue::Kind::kArray:
      out += '[';
      for (size_t i = 0; i < v.array.size(); ++i) {
        if (i) out += ',';
        append_compact_json(out, v.array[i]);
      }
      out += ']';
      return;
    case JsonValue::Kind::kObject:
      out += '{';
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i) out += ',';
        append_jackson_string(out, v.members[i].name);
        out += ':';
        append_compact_json(out, v.members[i].value);
      }
      out += '}';
      return;
  }
}

std::string compact_json(const JsonValue& v) {
  std::string out;
  append_compact_json(out, v);
  return out;
}

void append_jackson_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  static constexpr std::string_view kNamed = "\b\t\n\f\r", kLetters = "btnfr";
  out.push_back('"');
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c >= 0x20) {
      out.push_back(ch);
    } else if (const auto named = kNamed.find(ch); named != std::string_view::npos) {
      out.push_back('\\');
      out.push_back(kLetters[named]);
    } else {
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  out.push_back('"');
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_ += json;
  return *this;
}

template <class N>
void JsonWriter::append_number(N n) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, n);  // shortest round-trip form for a double
  out_.append(buf, r.ptr);
}

void JsonWriter::append_escaped(std::string_view s) {
  out_ += '"';
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out_ += '\\';
      out_ += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out_ += "\\u00";
      out_ += kHex[c >> 4];
      out_ += kHex[c & 0xf];
    } else if (c >= 0x80) {
      uint32_t cp = 0;
      const size_t len = utf8_length(s, i, cp);
      if (len == 0) {
        out_ += "\\ufffd";
        ++i;
        continue;
      }
      out_.append(s.substr(i, len));
      i += len;
      continue;
    } else {
      out_ += static_cast<char>(c);
    }
    ++i;
  }
  out_ += '"';
}

}  // namespace skiff
