#include "schema/avro/avro_json.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include "common/json_writer.h"

namespace skiff::schema::avro {
namespace {

using Kind = AvroJson::Kind;

AvroJson number_from_lexeme(const std::string& lexeme) {
  AvroJson out;
  const char* begin = lexeme.data();
  const char* end = begin + lexeme.size();
  if (lexeme.find_first_of(".eE") == std::string::npos) {
    int64_t v = 0;
    auto r = std::from_chars(begin, end, v);
    if (r.ec == std::errc() && r.ptr == end) {
      out.kind = (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) ? Kind::kInt
                                                                                                        : Kind::kLong;
      out.integer = v;
      return out;
    }
    out.kind = Kind::kBigInt;
    out.text = lexeme;
    return out;
  }
  out.kind = Kind::kDouble;
  auto r = std::from_chars(begin, end, out.number);
  if (r.ec != std::errc()) out.number = std::strtod(lexeme.c_str(), nullptr);  // out of range: ±inf or 0
  return out;
}

bool doubles_equal(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool objects_equal(const AvroJson& a, const AvroJson& b) {
  if (a.members.size() != b.members.size()) return false;
  std::unordered_map<std::string_view, const AvroJson*> index;
  for (const auto& [name, value] : b.members) index.emplace(name, &value);
  for (const auto& [name, value] : a.members) {
    auto it = index.find(name);
    if (it == index.end() || !(value == *it->second)) return false;
  }
  return true;
}

// Java's decimal rendering of a shortest digit string `digits` with decimal
// exponent `exp` (value = d.ddd x 10^exp).
std::string java_decimal(bool negative, const std::string& digits, int exp) {
  std::string out = negative ? "-" : "";
  if (exp >= -3 && exp < 7) {
    if (exp >= 0) {
      const size_t int_digits = static_cast<size_t>(exp) + 1;
      std::string int_part = digits.substr(0, std::min(digits.size(), int_digits));
      while (int_part.size() < int_digits) int_part.push_back('0');
      std::string frac = digits.size() > int_digits ? digits.substr(int_digits) : "0";
      out += int_part;
      out += ".";
      return out + frac;
    }
    return out + "0." + std::string(-exp - 1, '0') + digits;
  }
  out += digits.substr(0, 1) + ".";
  out += digits.size() > 1 ? digits.substr(1) : "0";
  return out + "E" + std::to_string(exp);
}

// Java writes at least two significant digits: where the shortest has one,
// the two-digit decimal nearest the exact value, when it reads back the same
// (Double.MIN_VALUE is 4.9E-324, not 5.0E-324).
template <class F>
void two_digits(F d, std::string& digits, int& exp) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific, 1);
  std::string_view s(buf, r.ptr - buf);
  if (s.front() == '-') s.remove_prefix(1);
  F back = 0;
  std::from_chars(buf, r.ptr, back);
  if (back != d || s.size() < 4 || s[2] == '0') return;
  int e = 0;
  std::string_view es = s.substr(s.find('e') + 1);
  if (es.front() == '+') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), e);
  digits = {s[0], s[2]};
  exp = e;
}

template <class F>
std::string java_floating(F d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);
  const bool negative = s.front() == '-';
  if (negative) s.remove_prefix(1);
  const size_t e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e))
    if (c != '.') digits.push_back(c);
  int exp = 0;
  std::string_view es = s.substr(e + 1);
  if (!es.empty() && es.front() == '+') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), exp);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (digits.size() == 1) two_digits(d, digits, exp);
  return java_decimal(negative, digits, exp);
}

bool is_java_space(char c) { return static_cast<unsigned char>(c) <= 0x20; }

}  // namespace

const AvroJson* AvroJson::get(std::string_view name) const {
  if (kind != Kind::kObject) return nullptr;
  for (const auto& m : members)
    if (m.first == name) return &m.second;
  return nullptr;
}

AvroJson AvroJson::string(std::string s) {
  AvroJson v;
  v.kind = Kind::kString;
  v.text = std::move(s);
  return v;
}

AvroJson AvroJson::from_double(double d) {
  AvroJson v;
  v.kind = Kind::kDouble;
  v.number = d;
  return v;
}

bool operator==(const AvroJson& a, const AvroJson& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return a.boolean == b.boolean;
    case Kind::kInt:
    case Kind::kLong:
      return a.integer == b.integer;
    case Kind::kDouble:
      return doubles_equal(a.number, b.number);
    case Kind::kBigInt:
    case Kind::kString:
      return a.text == b.text;
    case Kind::kArray:
      return a.items == b.items;
    case Kind::kObject:
      return objects_equal(a, b);
  }
  return false;
}

AvroJson from_json_value(const JsonValue& v) {
  AvroJson out;
  switch (v.kind) {
    case JsonValue::Kind::kNull:
      return out;
    case JsonValue::Kind::kBool:
      out.kind = Kind::kBool;
      out.boolean = v.boolean;
      return out;
    case JsonValue::Kind::kNumber:
      return number_from_lexeme(v.number_text);
    case JsonValue::Kind::kString:
      return AvroJson::string(v.string);
    case JsonValue::Kind::kArray:
      out.kind = Kind::kArray;
      for (const auto& item : v.array) out.items.push_back(from_json_value(item));
      return out;
    case JsonValue::Kind::kObject: {
      out.kind = Kind::kObject;
      std::unordered_map<std::string_view, size_t> index;  // hashed: a hostile object has many members
      for (const auto& m : v.members) {
        auto [it, inserted] = index.emplace(m.name, out.members.size());
        if (inserted)
          out.members.push_back({m.name, from_json_value(m.value)});
        else
          out.members[it->second].second = from_json_value(m.value);
      }
      return out;
    }
  }
  return out;
}

void write_json_string(std::string_view s, std::string& out) { append_jackson_string(out, s); }

void write_json(const AvroJson& v, std::string& out) {
  switch (v.kind) {
    case Kind::kNull:
      out += "null";
      return;
    case Kind::kBool:
      out += v.boolean ? "true" : "false";
      return;
    case Kind::kInt:
    case Kind::kLong:
      out += std::to_string(v.integer);
      return;
    case Kind::kBigInt:
      out += v.text;
      return;
    case Kind::kDouble:
      if (std::isfinite(v.number))
        out += java_double(v.number);
      else
        write_json_string(java_double(v.number), out);
      return;
    case Kind::kString:
      write_json_string(v.text, out);
      return;
    case Kind::kArray:
      out.push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out.push_back(',');
        write_json(v.items[i], out);
      }
      out.push_back(']');
      return;
    case Kind::kObject:
      out.push_back('{');
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i) out.push_back(',');
        write_json_string(v.members[i].first, out);
        out.push_back(':');
        write_json(v.members[i].second, out);
      }
      out.push_back('}');
      return;
  }
}

std::string to_json(const AvroJson& v) {
  std::string out;
  write_json(v, out);
  return out;
}

std::string java_double(double d) { return java_floating(d); }
std::string java_float(float f) { return java_floating(f); }

namespace {

// Digits with an optional fraction, then an optional exponent: what Java's
// FloatingDecimal reads after the sign (a hexadecimal form aside).
bool java_decimal_syntax(std::string_view s) {
  size_t i = 0, digits = 0;
  auto scan_digits = [&] {
    size_t n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++n;
    return n;
  };
  digits += scan_digits();
  if (i < s.size() && s[i] == '.') ++i, digits += scan_digits();
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (scan_digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace

bool java_parse_double(std::string_view s, double& out) {
  while (!s.empty() && is_java_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_java_space(s.back())) s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "NaN" || s == "Infinity") {
    out = s == "NaN" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    if (negative) out = -out;
    return true;
  }
  if (!s.empty() && std::string_view("fFdD").find(s.back()) != std::string_view::npos) s.remove_suffix(1);
  if (!java_decimal_syntax(s)) return false;
  const std::string text(s);
  out = std::strtod(text.c_str(), nullptr);
  if (negative) out = -out;
  return true;
}

}  // namespace skiff::schema::avro
