#include "schema/json/jackson_text.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/json_writer.h"
#include "common/utf8.h"

namespace skiff::schema::json {

namespace {

constexpr size_t kMaxNumberLength = 1000;  // Jackson's StreamReadConstraints

struct Decimal {
  bool negative = false;
  std::string digits;  // the unscaled value, no leading zeros ("0" for zero)
  int64_t scale = 0;
};

size_t take_digits(std::string_view s, size_t i, std::string& digits) {
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) digits += s[i];
  return i;
}

// The exponent part at s[i] ("e-3"), when there is one.
std::optional<int64_t> exponent(std::string_view s, size_t& i) {
  int64_t exp = 0;
  if (i >= s.size() || (s[i] != 'e' && s[i] != 'E')) return exp;
  ++i;
  if (i < s.size() && s[i] == '+') ++i;
  const auto r = std::from_chars(s.data() + i, s.data() + s.size(), exp);
  if (r.ec != std::errc() || exp > INT32_MAX || exp < INT32_MIN) return std::nullopt;
  i = static_cast<size_t>(r.ptr - s.data());
  return exp;
}

std::optional<Decimal> split_decimal(std::string_view s) {
  Decimal d;
  size_t i = 0;
  if (i < s.size() && s[i] == '-') d.negative = true, ++i;
  std::string digits;
  i = take_digits(s, i, digits);
  int64_t frac = 0;
  if (i < s.size() && s[i] == '.') {
    const size_t before = digits.size();
    i = take_digits(s, i + 1, digits);
    frac = static_cast<int64_t>(digits.size() - before);
  }
  const auto exp = exponent(s, i);
  if (!exp || i != s.size() || digits.empty()) return std::nullopt;
  const size_t nz = digits.find_first_not_of('0');
  d.digits = nz == std::string::npos ? "0" : digits.substr(nz);
  d.scale = frac - *exp;
  if (d.scale > INT32_MAX || d.scale < INT32_MIN) return std::nullopt;
  if (d.digits == "0") d.negative = false;
  return d;
}

bool is_integer_lexeme(std::string_view s) { return s.find_first_of(".eE") == std::string_view::npos; }

}  // namespace

std::optional<std::string> big_decimal_text(std::string_view lexeme) {
  if (lexeme.size() > kMaxNumberLength) return std::nullopt;
  auto d = split_decimal(lexeme);
  if (!d) return std::nullopt;
  const auto& c = d->digits;
  const int64_t len = static_cast<int64_t>(c.size());
  const int64_t adjusted = -d->scale + (len - 1);
  std::string out = d->negative ? "-" : "";
  if (d->scale == 0) return out + c;
  if (d->scale > 0 && adjusted >= -6) {
    if (len > d->scale) return out + c.substr(0, len - d->scale) + "." + c.substr(len - d->scale);
    return out + "0." + std::string(static_cast<size_t>(d->scale - len), '0') + c;
  }
  out += c[0];
  if (len > 1) out += "." + c.substr(1);
  if (adjusted != 0) out += (adjusted > 0 ? "E+" : "E") + std::to_string(adjusted);
  return out;
}

std::optional<std::string> jackson_number_text(std::string_view lexeme) {
  if (lexeme.size() > kMaxNumberLength) return std::nullopt;
  if (!is_integer_lexeme(lexeme)) return big_decimal_text(lexeme);
  if (lexeme == "-0") return std::string("0");
  return std::string(lexeme);
}

bool jackson_numbers_valid(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kNumber:
      return jackson_number_text(v.number_text).has_value();
    case JsonValue::Kind::kArray:
      return std::all_of(v.array.begin(), v.array.end(), [](const JsonValue& e) { return jackson_numbers_valid(e); });
    case JsonValue::Kind::kObject:
      return std::all_of(v.members.begin(), v.members.end(),
                         [](const JsonMember& m) { return jackson_numbers_valid(m.value); });
    default:
      return true;
  }
}

namespace {

std::u16string to_utf16(std::string_view s) {
  std::u16string out;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = static_cast<unsigned char>(s[i]);
    size_t len = 1;
    if (cp >= 0x80) {
      len = utf8_length(s, i, cp);
      if (len == 0) len = 1, cp = 0xFFFD;
    }
    if (cp >= 0x10000) {
      out += static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10));
      out += static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      out += static_cast<char16_t>(cp);
    }
    i += len;
  }
  return out;
}

std::string jackson_string(std::string_view s) {
  std::string out;
  append_jackson_string(out, s);
  return out;
}

// An object's members as Jackson's ObjectNode holds them.
std::vector<const JsonMember*> node_members(const JsonValue& v, bool sorted) {
  std::vector<const JsonMember*> out;
  std::unordered_map<std::string_view, size_t> at;
  for (const auto& m : v.members) {
    auto [it, fresh] = at.emplace(m.name, out.size());
    if (fresh)
      out.push_back(&m);
    else
      out[it->second] = &m;
  }
  if (sorted)
    std::stable_sort(out.begin(), out.end(),
                     [](const JsonMember* a, const JsonMember* b) { return java_string_less(a->name, b->name); });
  return out;
}

void write(std::string& out, const JsonValue& v, bool sorted) {
  switch (v.kind) {
    case JsonValue::Kind::kNull:
      out += "null";
      break;
    case JsonValue::Kind::kBool:
      out += v.boolean ? "true" : "false";
      break;
    case JsonValue::Kind::kNumber:
      out += jackson_number_text(v.number_text).value_or(v.number_text);
      break;
    case JsonValue::Kind::kString:
      out += jackson_string(v.string);
      break;
    case JsonValue::Kind::kArray:
      out += '[';
      for (size_t i = 0; i < v.array.size(); ++i) {
        if (i > 0) out += ',';
        write(out, v.array[i], sorted);
      }
      out += ']';
      break;
    case JsonValue::Kind::kObject: {
      out += '{';
      bool first = true;
      for (const JsonMember* m : node_members(v, sorted)) {
        if (!first) out += ',';
        first = false;
        out += jackson_string(m->name);
        out += ':';
        write(out, m->value, sorted);
      }
      out += '}';
      break;
    }
  }
}

}  // namespace

bool java_string_less(std::string_view a, std::string_view b) { return to_utf16(a) < to_utf16(b); }

std::string jackson_compact(const JsonValue& v, bool sorted) {
  std::string out;
  write(out, v, sorted);
  return out;
}

}  // namespace skiff::schema::json
