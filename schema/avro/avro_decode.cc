#include "schema/avro/avro_decode.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "schema/avro/avro_json.h"

namespace skiff::schema::avro {
namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// The length of the valid UTF-8 sequence at s[i], or 0.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t len = (c >= 0xc2 && c <= 0xdf) ? 2 : (c >= 0xe0 && c <= 0xef) ? 3 : (c >= 0xf0 && c <= 0xf4) ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  uint32_t cp = c & (0xff >> (len + 1));
  for (size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
    return 0;
  return len;
}

std::string with_replacements(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_sequence(s, i);
    if (len == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

// Java's JsonEncoder (Jackson writing UTF-8 bytes) escapes a character
// beyond the BMP as its surrogate pair, "\uD83D\uDE00"; the rest as
// write_json_string does. `s` is valid UTF-8.
void write_encoder_string(std::string_view s, std::string& out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string bmp;
  auto unit = [&](uint32_t u) {
    bmp += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) bmp.push_back(kHex[(u >> shift) & 0xf]);
  };
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0xf0) {
      const size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : 3;
      std::string piece;
      write_json_string(s.substr(i, len), piece);
      out.append(piece, 1, piece.size() - 2);
      i += len;
      continue;
    }
    uint32_t cp = c & 0x07;
    for (size_t k = 1; k < 4; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    bmp.clear();
    unit(0xd800 + ((cp - 0x10000) >> 10));
    unit(0xdc00 + ((cp - 0x10000) & 0x3ff));
    out += bmp;
    i += 4;
  }
  out.push_back('"');
}

class Decoder {
 public:
  Decoder(std::string_view data, const AvroDecodeLimits& limits) : data_(data), limits_(limits) {}

  bool value(const Node* s, int depth) {
    if (depth > limits_.max_depth) return fail("nesting deeper than " + std::to_string(limits_.max_depth));
    if (out_.size() > limits_.max_output)
      return fail("JSON longer than " + std::to_string(limits_.max_output) + " bytes");
    switch (s->type) {
      case Type::kNull:
        return out_ += "null", true;
      case Type::kBoolean:
        return boolean();
      case Type::kInt:
      case Type::kLong:
        return integer(s->type == Type::kInt);
      case Type::kFloat:
      case Type::kDouble:
        return floating(s->type == Type::kFloat);
      case Type::kString:
      case Type::kBytes:
        return blob(s->type == Type::kString);
      case Type::kFixed:
        return fixed(s->size);
      case Type::kEnum:
        return enumeration(s);
      case Type::kRecord:
        return record(s, depth);
      case Type::kArray:
      case Type::kMap:
        return blocks(s, depth);
      case Type::kUnion:
        return union_value(s, depth);
    }
    return false;
  }

  std::string& out() { return out_; }
  const std::string& error() const { return error_; }
  size_t consumed() const { return pos_; }

 private:
  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at byte " + std::to_string(pos_);
    return false;
  }

  bool varint(int64_t& v, int max_bytes) {
    uint64_t raw = 0;
    for (int shift = 0, n = 0;; shift += 7, ++n) {
      if (n >= max_bytes) return fail("a malformed varint");
      if (pos_ >= data_.size()) return fail("the data ending inside a varint");
      const auto b = static_cast<unsigned char>(data_[pos_++]);
      raw |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    v = static_cast<int64_t>(raw >> 1) ^ -static_cast<int64_t>(raw & 1);
    return true;
  }

  bool take(size_t n, std::string_view& bytes) {
    if (n > data_.size() - pos_) return fail("the data ending inside a value of " + std::to_string(n) + " bytes");
    bytes = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }

  bool boolean() {
    std::string_view b;
    if (!take(1, b)) return false;
    if (b[0] != 0 && b[0] != 1) return fail("a boolean byte other than 0 or 1");
    out_ += b[0] ? "true" : "false";
    return true;
  }

  bool integer(bool is_int) {
    int64_t v = 0;
    if (!varint(v, is_int ? 5 : 10)) return false;
    if (is_int && (v < INT32_MIN || v > INT32_MAX)) return fail("an int out of range");
    out_ += std::to_string(v);
    return true;
  }

  bool floating(bool is_float) {
    std::string_view b;
    if (!take(is_float ? 4 : 8, b)) return false;
    uint64_t bits = 0;
    for (size_t i = b.size(); i-- > 0;) bits = (bits << 8) | static_cast<unsigned char>(b[i]);
    std::string text;
    if (is_float) {
      float f = 0;
      const auto u = static_cast<uint32_t>(bits);
      std::memcpy(&f, &u, sizeof f);
      text = java_float(f);
    } else {
      double d = 0;
      std::memcpy(&d, &bits, sizeof d);
      text = java_double(d);
    }
    if (text.back() >= '0' && text.back() <= '9')
      out_ += text;
    else
      write_json_string(text, out_);  // NaN, Infinity
    return true;
  }

  bool length(int64_t& n) {
    if (!varint(n, 10)) return false;
    if (n < 0) return fail("a negative length");
    return true;
  }

  bool blob(bool is_string) {
    int64_t n = 0;
    std::string_view bytes;
    if (!length(n) || !take(static_cast<size_t>(n), bytes)) return false;
    latin_or_utf8(bytes, is_string);
    return true;
  }

  void latin_or_utf8(std::string_view bytes, bool is_string) {
    if (is_string) {
      write_encoder_string(with_replacements(bytes), out_);
      return;
    }
    std::string text;
    for (char c : bytes) append_utf8(text, static_cast<unsigned char>(c));
    write_json_string(text, out_);
  }

  bool fixed(int32_t size) {
    std::string_view bytes;
    if (!take(static_cast<size_t>(size), bytes)) return false;
    latin_or_utf8(bytes, false);
    return true;
  }

  bool enumeration(const Node* s) {
    int64_t i = 0;
    if (!varint(i, 5)) return false;
    if (i < 0 || static_cast<size_t>(i) >= s->symbols.size()) return fail("an enum index out of range");
    write_json_string(s->symbols[i], out_);
    return true;
  }

  bool record(const Node* s, int depth) {
    out_.push_back('{');
    for (size_t i = 0; i < s->fields.size(); ++i) {
      if (i) out_.push_back(',');
      write_json_string(s->fields[i].name, out_);
      out_.push_back(':');
      if (!value(s->fields[i].type, depth + 1)) return false;
    }
    out_.push_back('}');
    return true;
  }

  bool blocks(const Node* s, int depth) {
    const bool is_map = s->type == Type::kMap;
    out_.push_back(is_map ? '{' : '[');
    bool first = true;
    for (;;) {
      int64_t count = 0;
      if (!varint(count, 10)) return false;
      if (count == 0) break;
      if (count < 0) {
        int64_t size = 0;
        if (count == INT64_MIN || !varint(size, 10)) return fail("a malformed block count");
        count = -count;
      }
      for (int64_t i = 0; i < count; ++i) {
        if (!first) out_.push_back(',');
        first = false;
        if (is_map) {
          if (!blob(true)) return false;
          out_.push_back(':');
        }
        if (!value(s->items, depth + 1)) return false;
      }
    }
    out_.push_back(is_map ? '}' : ']');
    return true;
  }

  bool union_value(const Node* s, int depth) {
    int64_t i = 0;
    if (!varint(i, 10)) return false;
    if (i < 0 || static_cast<size_t>(i) >= s->branches.size()) return fail("a union index out of range");
    const Node* branch = s->branches[i];
    if (branch->type == Type::kNull) return out_ += "null", true;
    out_.push_back('{');
    write_json_string(branch->full_name(), out_);
    out_.push_back(':');
    if (!value(branch, depth + 1)) return false;
    out_.push_back('}');
    return true;
  }

  std::string_view data_;
  const AvroDecodeLimits& limits_;
  size_t pos_ = 0;
  std::string out_;
  std::string error_;
};

}  // namespace

Expected<AvroDecoded, std::string> avro_to_json(const Node* schema, std::string_view data,
                                                const AvroDecodeLimits& limits) {
  Decoder d(data, limits);
  if (!d.value(schema, 0)) return unexpected(d.error());
  if (d.out().size() > limits.max_output)
    return unexpected("JSON longer than " + std::to_string(limits.max_output) + " bytes");
  return AvroDecoded{std::move(d.out()), d.consumed()};
}

}  // namespace skiff::schema::avro
