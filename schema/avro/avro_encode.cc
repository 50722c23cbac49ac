#include "schema/avro/avro_encode.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "common/utf8.h"
#include "common/varint.h"
#include "schema/avro/avro_json.h"

namespace skiff::schema::avro {
namespace {

using JKind = JsonValue::Kind;

// Jackson's token for a number lexeme: an integer unless it has a fraction
// or an exponent.
bool is_integer_lexeme(const std::string& text) { return text.find_first_of(".eE") == std::string::npos; }

// Java's Math.round, saturating at the type's bounds; NaN rounds to 0.
template <class I>
I java_round(double x) {
  if (std::isnan(x)) return 0;
  const double r = std::floor(x) == x ? x : std::floor(x + 0.5);
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

// An integer lexeme's value, false when it is out of [lo, hi].
bool parse_integer(const std::string& text, int64_t lo, int64_t hi, int64_t& out) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || end != text.c_str() + text.size() || v < lo || v > hi) return false;
  out = v;
  return true;
}

class Encoder {
 public:
  explicit Encoder(const AvroEncodeLimits& limits) : limits_(limits) {}

  bool value(const Node* s, const JsonValue& v, int depth) {
    if (!within_limits(depth) || !advance()) return false;
    switch (s->type) {
      case Type::kNull:
        return v.kind == JKind::kNull || expected("null", v);
      case Type::kBoolean:
        return boolean(v);
      case Type::kInt:
      case Type::kLong:
        return integer(v, s->type == Type::kInt);
      case Type::kFloat:
      case Type::kDouble:
        return floating(v, s->type == Type::kFloat);
      case Type::kString:
        return v.kind == JKind::kString ? (blob(v.string), true) : expected("string", v);
      case Type::kBytes:
        return v.kind == JKind::kString ? (blob(latin1(v.string)), true) : expected("bytes", v);
      case Type::kFixed:
        return fixed(s, v);
      case Type::kEnum:
        return enumeration(s, v);
      case Type::kRecord:
        return record(s, v, depth);
      case Type::kArray:
        return array(s, v, depth);
      case Type::kMap:
        return map(s, v, depth);
      case Type::kUnion:
        return union_value(s, v, depth);
    }
    return false;
  }

  std::string& out() { return out_; }
  const std::string& error() const { return error_; }

 private:
  bool within_limits(int depth) {
    if (depth > limits_.max_depth) return fail("nesting deeper than " + std::to_string(limits_.max_depth));
    if (out_.size() > limits_.max_output)
      return fail("the Avro value exceeds " + std::to_string(limits_.max_output) + " bytes");
    return true;
  }

  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at " + (path_.empty() ? std::string("$") : "$" + path_);
    return false;
  }

  static const char* kind_name(const JsonValue& v) {
    switch (v.kind) {
      case JKind::kNull:
        return "null";
      case JKind::kBool:
        return "a boolean";
      case JKind::kNumber:
        return "a number";
      case JKind::kString:
        return "a string";
      case JKind::kArray:
        return "an array";
      case JKind::kObject:
        return "an object";
    }
    return "a value";
  }

  bool expected(const std::string& what, const JsonValue& v) {
    return fail(std::string("expected ") + what + ", found " + kind_name(v));
  }

  // A record left with members it does not name fails when JsonDecoder
  // reads on past its end (its RECORD_END action runs then, never at the
  // very end of the value).
  bool advance() {
    if (pending_.empty()) return true;
    error_ = std::move(pending_);
    return false;
  }

  void long_value(int64_t v) {
    uint8_t buf[kMaxVarint64Bytes];
    out_.append(reinterpret_cast<const char*>(buf), put_uvarint(buf, zigzag_encode(v)));
  }

  void blob(std::string_view bytes) {
    long_value(static_cast<int64_t>(bytes.size()));
    out_ += bytes;
  }

  // Java's String.getBytes(ISO_8859_1): a character past U+00FF (a
  // surrogate pair counting as one) becomes '?'.
  static std::string latin1(const std::string& s) {
    std::string bytes;
    bytes.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
      uint32_t cp = static_cast<unsigned char>(s[i]);
      size_t n = cp < 0x80 ? 1 : utf8_length(s, i, cp);
      if (n == 0) n = 1, cp = '?';
      bytes.push_back(cp <= 0xff ? static_cast<char>(cp) : '?');
      i += n;
    }
    return bytes;
  }

  bool boolean(const JsonValue& v) {
    if (v.kind != JKind::kBool) return expected("boolean", v);
    out_.push_back(v.boolean ? 1 : 0);
    return true;
  }

  bool integer(const JsonValue& v, bool is_int) {
    const char* what = is_int ? "int" : "long";
    if (v.kind != JKind::kNumber) return expected(what, v);
    const int64_t lo = is_int ? INT32_MIN : INT64_MIN, hi = is_int ? INT32_MAX : INT64_MAX;
    int64_t n = 0;
    if (is_integer_lexeme(v.number_text)) {
      if (!parse_integer(v.number_text, lo, hi, n)) return fail(v.number_text + " is out of range of " + what);
    } else if (is_int) {
      const float f = std::strtof(java_double(std::strtod(v.number_text.c_str(), nullptr)).c_str(), nullptr);
      const int32_t r = java_round<int32_t>(f);
      if (!(std::fabs(f - static_cast<float>(r)) <= FLT_TRUE_MIN)) return fail(v.number_text + " is not an int");
      n = r;
    } else {
      const double d = std::strtod(v.number_text.c_str(), nullptr);
      const int64_t r = java_round<int64_t>(d);
      if (!(std::fabs(d - static_cast<double>(r)) <= DBL_TRUE_MIN)) return fail(v.number_text + " is not a long");
      n = r;
    }
    long_value(n);
    return true;
  }

  static bool special(const std::string& s, double& d) {
    if (s == "NaN") return d = NAN, true;
    if (s == "Infinity" || s == "INF") return d = INFINITY, true;
    if (s == "-Infinity" || s == "-INF") return d = -INFINITY, true;
    return false;
  }

  bool floating(const JsonValue& v, bool is_float) {
    double d = 0;
    if (v.kind == JKind::kNumber) {
      d = std::strtod(v.number_text.c_str(), nullptr);
    } else if (v.kind != JKind::kString || !special(v.string, d)) {
      return fail(std::string("expected ") + (is_float ? "float" : "double") + ", found " +
                  (v.kind == JKind::kString ? "the string " + to_json(AvroJson::string(v.string)) : kind_name(v)));
    }
    uint64_t bits = 0;
    size_t size = 8;
    if (is_float) {
      // Jackson's float of the number Jackson's tree wrote back.
      float f = static_cast<float>(d);
      if (v.kind == JKind::kNumber)
        f = std::strtof(is_integer_lexeme(v.number_text) ? v.number_text.c_str() : java_double(d).c_str(), nullptr);
      uint32_t u = 0;
      std::memcpy(&u, &f, sizeof u);
      bits = u, size = 4;
    } else {
      std::memcpy(&bits, &d, sizeof bits);
    }
    for (size_t i = 0; i < size; ++i) out_.push_back(static_cast<char>(bits >> (8 * i)));
    return true;
  }

  bool fixed(const Node* s, const JsonValue& v) {
    if (v.kind != JKind::kString) return expected("fixed " + s->name.full, v);
    std::string bytes = latin1(v.string);
    if (bytes.size() != static_cast<size_t>(s->size))
      return fail("expected " + std::to_string(s->size) + " bytes for fixed " + s->name.full + ", found " +
                  std::to_string(bytes.size()));
    out_ += bytes;
    return true;
  }

  bool enumeration(const Node* s, const JsonValue& v) {
    if (v.kind != JKind::kString) return expected("a symbol of enum " + s->name.full, v);
    const auto it = std::find(s->symbols.begin(), s->symbols.end(), v.string);
    if (it == s->symbols.end())
      return fail("unknown symbol " + to_json(AvroJson::string(v.string)) + " of enum " + s->name.full);
    long_value(it - s->symbols.begin());
    return true;
  }

  struct PathScope {
    std::string& path;
    size_t size;
    PathScope(std::string& p, std::string_view add) : path(p), size(p.size()) { path += add; }
    ~PathScope() { path.resize(size); }
  };

  static std::string key_segment(const std::string& key) {
    std::string quoted;
    write_json_string(key, quoted);
    return "[" + quoted + "]";
  }

  bool record(const Node* s, const JsonValue& v, int depth);
  bool array(const Node* s, const JsonValue& v, int depth);
  bool map(const Node* s, const JsonValue& v, int depth);
  bool union_value(const Node* s, const JsonValue& v, int depth);

  const AvroEncodeLimits& limits_;
  std::string out_;
  std::string path_;
  std::string error_;
  std::string pending_;  // an unknown-fields error JsonDecoder raises on its next read
};

// JsonDecoder's FieldAdjustAction: a field is taken from the members
// skipped so far (by name) or from the next members (by name or alias),
// the others skipped past being remembered; left over at the record's end
// they are its "unknown fields".
bool Encoder::record(const Node* s, const JsonValue& v, int depth) {
  if (v.kind != JKind::kObject) return expected("record " + s->name.full, v);
  std::vector<const JsonMember*> skipped;
  size_t next = 0;
  for (const Field& f : s->fields) {
    PathScope scope(path_, "." + f.name);
    const JsonMember* found = nullptr;
    for (auto it = skipped.begin(); it != skipped.end() && found == nullptr; ++it) {
      if ((*it)->name == f.name) found = *it, skipped.erase(it);
    }
    while (found == nullptr && next < v.members.size()) {
      const JsonMember& m = v.members[next++];
      const bool named = m.name == f.name || std::find(f.aliases.begin(), f.aliases.end(), m.name) != f.aliases.end();
      if (named)
        found = &m;
      else
        skipped.push_back(&m);
    }
    if (found == nullptr) return fail("missing field " + f.name + " of record " + s->name.full);
    if (!value(f.type, found->value, depth + 1)) return false;
  }
  if (!skipped.empty()) {
    std::string names;
    for (const JsonMember* m : skipped) names += (names.empty() ? "" : ", ") + m->name;
    fail("unknown fields [" + names + "] of record " + s->name.full);
    pending_ = std::move(error_);
    error_.clear();
  }
  return true;
}

bool Encoder::array(const Node* s, const JsonValue& v, int depth) {
  if (v.kind != JKind::kArray) return expected("array", v);
  if (!v.array.empty()) long_value(static_cast<int64_t>(v.array.size()));
  for (size_t i = 0; i < v.array.size(); ++i) {
    PathScope scope(path_, "[" + std::to_string(i) + "]");
    if (!value(s->items, v.array[i], depth + 1) || !advance()) return false;
  }
  out_.push_back(0);
  return true;
}

// GenericData's map is a HashMap: a repeated key keeps its first place and
// its last value, and entries come out in Java's hash order.
bool Encoder::map(const Node* s, const JsonValue& v, int depth) {
  if (v.kind != JKind::kObject) return expected("map", v);
  std::vector<std::string_view> keys;
  std::vector<const JsonValue*> values;
  std::unordered_map<std::string_view, size_t> index;
  for (const JsonMember& m : v.members) {
    auto [it, added] = index.emplace(m.name, keys.size());
    if (added) {
      keys.push_back(m.name);
      values.push_back(&m.value);
    } else {
      values[it->second] = &m.value;
    }
  }
  // JsonDecoder reads (and may fail on) a value a later one replaces.
  for (const JsonMember& m : v.members) {
    if (values[index[m.name]] == &m.value) continue;
    PathScope scope(path_, key_segment(m.name));
    const size_t size = out_.size();
    if (!value(s->items, m.value, depth + 1)) return false;
    out_.resize(size);
  }
  if (!keys.empty()) long_value(static_cast<int64_t>(keys.size()));
  for (size_t i : java_hash_map_order(keys)) {
    PathScope scope(path_, key_segment(std::string(keys[i])));
    blob(keys[i]);
    if (!value(s->items, *values[i], depth + 1) || !advance()) return false;
  }
  out_.push_back(0);
  return true;
}

bool Encoder::union_value(const Node* s, const JsonValue& v, int depth) {
  std::string label;
  const JsonValue* inner = &v;
  if (v.kind == JKind::kNull) {
    label = "null";
  } else if (v.kind == JKind::kObject && !v.members.empty()) {
    label = v.members[0].name;
    inner = &v.members[0].value;
  } else {
    return fail(std::string("expected a union value (null or {\"<type>\": value}), found ") + kind_name(v));
  }
  for (size_t i = 0; i < s->branches.size(); ++i) {
    if (s->branches[i]->full_name() != label) continue;
    long_value(static_cast<int64_t>(i));
    if (label == "null") return true;
    PathScope scope(path_, key_segment(label));
    return value(s->branches[i], *inner, depth + 1);
  }
  std::string names;
  for (const Node* b : s->branches) names += (names.empty() ? "" : ", ") + std::string(b->full_name());
  return fail("unknown union branch " + to_json(AvroJson::string(label)) + " (the union has " + names + ")");
}

}  // namespace

std::vector<size_t> java_hash_map_order(const std::vector<std::string_view>& keys) {
  size_t capacity = 1, threshold = 0;
  while (keys.size() > threshold) capacity *= 2, threshold = capacity * 3 / 4;
  std::vector<std::pair<uint32_t, size_t>> slots;
  slots.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    int32_t h = 1;
    for (char c : keys[i])
      h = static_cast<int32_t>(static_cast<uint32_t>(h) * 31u + static_cast<uint32_t>(static_cast<int8_t>(c)));
    const auto u = static_cast<uint32_t>(h);
    slots.emplace_back((u ^ (u >> 16)) & static_cast<uint32_t>(capacity - 1), i);
  }
  std::stable_sort(slots.begin(), slots.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<size_t> order;
  order.reserve(slots.size());
  for (const auto& slot : slots) order.push_back(slot.second);
  return order;
}

Expected<std::string, std::string> json_to_avro(const Node* schema, const JsonValue& json,
                                                const AvroEncodeLimits& limits) {
  Encoder e(limits);
  if (!e.value(schema, json, 0)) return unexpected(e.error());
  if (e.out().size() > limits.max_output)
    return unexpected("the Avro value exceeds " + std::to_string(limits.max_output) + " bytes");
  return std::move(e.out());
}

}  // namespace skiff::schema::avro
