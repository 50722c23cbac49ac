#include "common/json.h"

#include <charconv>

namespace skiff {
namespace {

class JsonReader {
 public:
  JsonReader(std::string_view text, int max_depth) : text_(text), max_depth_(max_depth) {}

  std::optional<JsonValue> document() {
    JsonValue v;
    if (!value(v, 0)) return std::nullopt;
    skip_space();
    if (pos_ != text_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool value(JsonValue& out, int depth) {
    skip_space();
    if (pos_ >= text_.size()) return false;
    switch (text_[pos_]) {
      case '{':
        return depth < max_depth_ && object(out, depth + 1);
      case '[':
        return depth < max_depth_ && array(out, depth + 1);
      case '"':
        out.kind = JsonValue::Kind::kString;
        return string(out.string);
      case 't':
        out.kind = JsonValue::Kind::kBool, out.boolean = true;
        return literal("true");
      case 'f':
        out.kind = JsonValue::Kind::kBool;
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number(out);
    }
  }

  bool object(JsonValue& out, int depth) {
    out.kind = JsonValue::Kind::kObject;
    ++pos_;
    if (eat('}')) return true;
    do {
      std::string name;
      JsonValue member;
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"' || !string(name) || !eat(':') || !value(member, depth))
        return false;
      out.members.push_back({std::move(name), std::move(member)});
    } while (eat(','));
    return eat('}');
  }

  bool array(JsonValue& out, int depth) {
    out.kind = JsonValue::Kind::kArray;
    ++pos_;
    if (eat(']')) return true;
    do {
      out.array.emplace_back();
      if (!value(out.array.back(), depth)) return false;
    } while (eat(','));
    return eat(']');
  }

  bool number(JsonValue& out) {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t int_start = pos_;
    const size_t n = digits();
    if (n == 0 || (n > 1 && text_[int_start] == '0')) return false;
    if (pos_ < text_.size() && text_[pos_] == '.' && (++pos_, digits() == 0)) return false;
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) return false;
    }
    out.kind = JsonValue::Kind::kNumber;
    out.number_text.assign(text_.data() + start, pos_ - start);
    auto r = std::from_chars(text_.data() + start, text_.data() + pos_, out.number);
    return r.ec == std::errc() || r.ec == std::errc::result_out_of_range;
  }

  bool hex4(uint32_t& out) {
    if (text_.size() - pos_ < 4) return false;
    auto r = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, out, 16);
    if (r.ptr != text_.data() + pos_ + 4) return false;
    pos_ += 4;
    return true;
  }

  static void append_utf8(std::string& s, uint32_t cp) {
    if (cp < 0x80) {
      s.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s.push_back(static_cast<char>(0xc0 | (cp >> 6)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      s.push_back(static_cast<char>(0xe0 | (cp >> 12)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      s.push_back(static_cast<char>(0xf0 | (cp >> 18)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      s.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }

  // \uXXXX, with a surrogate pair read as one code point.
  bool unicode_escape(std::string& out) {
    uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xd800 && cp < 0xdc00) {
      uint32_t low = 0;
      if (!literal("\\u") || !hex4(low) || low < 0xdc00 || low >= 0xe000) return false;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    } else if (cp >= 0xdc00 && cp < 0xe000) {
      return false;
    }
    append_utf8(out, cp);
    return true;
  }

  bool string(std::string& out) {
    ++pos_;  // the opening quote
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return false;
      const char e = text_[pos_++];
      static constexpr std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
      if (auto at = kFrom.find(e); at != std::string_view::npos)
        out.push_back(kTo[at]);
      else if (e != 'u' || !unicode_escape(out))
        return false;
    }
    return false;
  }

  std::string_view text_;
  int max_depth_;
  size_t pos_ = 0;
};

}  // namespace

const JsonValue* JsonValue::find(std::string_view name) const {
  for (auto it = members.rbegin(); it != members.rend(); ++it)
    if (it->name == name) return &it->value;
  return nullptr;
}

std::optional<JsonValue> parse_json(std::string_view text, int max_depth) {
  return JsonReader(text, max_depth).document();
}

}  // namespace skiff
