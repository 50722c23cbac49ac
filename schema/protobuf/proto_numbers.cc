#include "schema/protobuf/proto_numbers.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace skiff::schema::protobuf {

namespace {

// An integer lexeme in Java's Integer.decode forms: decimal, 0x hex, 0 octal.
std::optional<std::string> integer_text(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    text.remove_prefix(1);
  }
  unsigned long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  std::string out = std::to_string(value);
  return negative && value != 0 ? "-" + out : out;
}

}  // namespace

std::string shortest_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

std::string normalize_number(std::string_view lexeme) {
  if (auto integer = integer_text(lexeme)) return *integer;
  std::string text(lexeme);
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) return text;
  char buffer[400];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
  std::string out(buffer);
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out == "-0" ? "-0" : out;
}

}  // namespace skiff::schema::protobuf
