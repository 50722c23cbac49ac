#include "schema/avro/avro_text.h"

#include <cstdint>

#include "common/json.h"

namespace skiff::schema::avro {
namespace {

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2, cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3, cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) return false;
    if (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) return false;
    i += len;
  }
  return true;
}

// Blanks the comments of `text` outside strings and finds where its first
// value ends.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text), clean_(text) {}

  // False on an unterminated comment or string.
  bool scan() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '/' && !comment()) return false;
      if (c == '/') continue;
      if (c == '"') {
        if (!string()) return false;
        if (depth_ == 0) return finish();
        continue;
      }
      if (c == '{' || c == '[') ++depth_, started_ = true;
      if (c == '}' || c == ']') {
        --depth_;
        if (depth_ <= 0) return ++pos_, finish();
      }
      if (depth_ == 0 && !is_space(c) && c != '}' && c != ']') return scalar();
      ++pos_;
    }
    return !started_ || depth_ == 0;
  }

  bool found() const { return started_; }
  std::string_view value() const { return std::string_view(clean_).substr(0, end_); }
  std::string_view rest() const { return text_.substr(end_); }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  bool finish() {
    end_ = pos_;
    return true;
  }
  bool comment() {
    if (pos_ + 1 >= text_.size()) return false;
    const char kind = text_[pos_ + 1];
    if (kind == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') clean_[pos_++] = ' ';
      return true;
    }
    if (kind != '*') return false;
    const size_t close = text_.find("*/", pos_ + 2);
    if (close == std::string_view::npos) return false;
    for (; pos_ < close + 2; ++pos_) clean_[pos_] = ' ';
    return true;
  }
  bool string() {
    started_ = true;
    for (++pos_; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '\\') {
        ++pos_;
      } else if (text_[pos_] == '"') {
        ++pos_;
        return true;
      }
    }
    return false;
  }
  bool scalar() {
    started_ = true;
    static constexpr std::string_view kStop = " \t\r\n,:[]{}\"/";
    while (pos_ < text_.size() && kStop.find(text_[pos_]) == std::string_view::npos) ++pos_;
    return finish();
  }

  std::string_view text_;
  std::string clean_;
  size_t pos_ = 0;
  size_t end_ = 0;
  int depth_ = 0;
  bool started_ = false;
};

}  // namespace

SchemaText read_schema_text(std::string_view text, int max_depth) {
  SchemaText out;
  if (!valid_utf8(text)) {
    out.error = "com.fasterxml.jackson.core.JsonParseException: Invalid UTF-8 in the schema text";
    return out;
  }
  Scanner scanner(text);
  if (!scanner.scan()) {
    out.error = "com.fasterxml.jackson.core.io.JsonEOFException: Unexpected end-of-input in the schema text";
    return out;
  }
  if (!scanner.found()) return out;
  auto parsed = parse_json(scanner.value(), max_depth);
  if (!parsed) {
    out.error =
        "com.fasterxml.jackson.core.JsonParseException: the schema text is not valid JSON (or nests deeper than " +
        std::to_string(max_depth) + ")";
    return out;
  }
  out.value = from_json_value(*parsed);
  std::string_view rest = scanner.rest();
  while (!rest.empty() && static_cast<unsigned char>(rest.front()) <= 0x20) rest.remove_prefix(1);
  while (!rest.empty() && static_cast<unsigned char>(rest.back()) <= 0x20) rest.remove_suffix(1);
  out.dangling = std::string(rest);
  return out;
}

}  // namespace skiff::schema::avro
