#include "schema/avro/avro_model.h"

#include <array>
#include <cmath>
#include <set>
#include <unordered_map>

namespace skiff::schema::avro {
namespace {

constexpr std::array<std::string_view, 14> kNames = {"record", "enum", "array", "map",   "union",  "fixed",   "string",
                                                     "bytes",  "int",  "long",  "float", "double", "boolean", "null"};
constexpr std::array<std::string_view, 14> kUpper = {"RECORD", "ENUM", "ARRAY", "MAP",   "UNION",  "FIXED",   "STRING",
                                                     "BYTES",  "INT",  "LONG",  "FLOAT", "DOUBLE", "BOOLEAN", "NULL"};

const AvroJson* prop(const Props& props, std::string_view name) {
  for (const auto& p : props)
    if (p.first == name) return &p.second;
  return nullptr;
}

bool props_equal(const Props& a, const Props& b) {
  if (a.size() != b.size()) return false;
  std::unordered_map<std::string_view, const AvroJson*> index;
  for (const auto& [name, value] : b) index.emplace(name, &value);
  for (const auto& [name, value] : a) {
    auto it = index.find(name);
    if (it == index.end() || !(value == *it->second)) return false;
  }
  return true;
}

bool default_equal(const std::optional<AvroJson>& a, const std::optional<AvroJson>& b) {
  if (!a || !b) return a.has_value() == b.has_value();
  return *a == *b;
}

class Equality {
 public:
  bool equal(const Node* a, const Node* b) {
    if (a == b) return true;
    if (a->type != b->type || !props_equal(a->props, b->props)) return false;
    if (is_named(a->type) && a->name.full != b->name.full) return false;
    switch (a->type) {
      case Type::kRecord:
        return records_equal(a, b);
      case Type::kEnum:
        return a->symbols == b->symbols;
      case Type::kFixed:
        return a->size == b->size;
      case Type::kArray:
      case Type::kMap:
        return equal(a->items, b->items);
      case Type::kUnion:
        if (a->branches.size() != b->branches.size()) return false;
        for (size_t i = 0; i < a->branches.size(); ++i)
          if (!equal(a->branches[i], b->branches[i])) return false;
        return true;
      default:
        return true;
    }
  }

 private:
  bool records_equal(const Node* a, const Node* b) {
    if (!seen_.insert({a, b}).second) return true;  // in progress: equal unless shown otherwise
    if (a->fields.size() != b->fields.size()) return false;
    for (size_t i = 0; i < a->fields.size(); ++i) {
      const Field& x = a->fields[i];
      const Field& y = b->fields[i];
      if (x.name != y.name || !equal(x.type, y.type) || !default_equal(x.default_value, y.default_value) ||
          x.order != y.order || !props_equal(x.props, y.props))
        return false;
    }
    return true;
  }
  std::set<std::pair<const Node*, const Node*>> seen_;
};

// Decimal's maximum precision for its underlying type.
int64_t max_precision(const Node& n) {
  if (n.type == Type::kBytes) return 2147483647;
  if (n.type != Type::kFixed) return 0;
  return static_cast<int64_t>(std::llround(std::floor(std::log10(2.0) * (8.0 * n.size - 1))));
}

bool decimal_of(const Node& n, LogicalType& lt) {
  const AvroJson* precision = prop(n.props, "precision");
  const AvroJson* scale = prop(n.props, "scale");
  if (precision == nullptr || precision->kind != AvroJson::Kind::kInt) return false;
  if (scale != nullptr && scale->kind != AvroJson::Kind::kInt) return false;
  lt.precision = static_cast<int32_t>(precision->integer);
  lt.scale = scale ? static_cast<int32_t>(scale->integer) : 0;
  if (n.type != Type::kFixed && n.type != Type::kBytes) return false;
  return lt.precision > 0 && lt.precision <= max_precision(n) && lt.scale >= 0 && lt.scale <= lt.precision;
}

bool logical_fits(const Node& n, LogicalType& lt) {
  const std::string& t = lt.name;
  if (t == "decimal") return decimal_of(n, lt);
  if (t == "big-decimal") return n.type == Type::kBytes;
  if (t == "duration") return n.type == Type::kFixed && n.size == 12;
  if (t == "uuid") return n.type == Type::kString || (n.type == Type::kFixed && n.size == 16);
  if (t == "date" || t == "time-millis") return n.type == Type::kInt;
  static const std::set<std::string, std::less<>> kLong = {
      "time-micros",          "timestamp-millis",       "timestamp-micros",
      "timestamp-nanos",      "local-timestamp-millis", "local-timestamp-micros",
      "local-timestamp-nanos"};
  if (kLong.count(t)) return n.type == Type::kLong;
  return false;  // not a logical type Avro knows
}

}  // namespace

std::string_view type_name(Type t) { return kNames[static_cast<size_t>(t)]; }
std::string_view type_upper(Type t) { return kUpper[static_cast<size_t>(t)]; }

std::optional<Type> primitive_type(std::string_view name) {
  for (size_t i = static_cast<size_t>(Type::kString); i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<Type>(i);
  return std::nullopt;
}

bool is_type_name(std::string_view name) {
  for (auto n : kNames)
    if (n == name) return true;
  return false;
}

Name Name::make(std::string_view name, std::string_view space) {
  Name n;
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) {
    n.name = std::string(name);
    n.space = std::string(space);
  } else {
    n.name = std::string(name.substr(dot + 1));
    n.space = std::string(name.substr(0, dot));
  }
  n.full = n.space.empty() ? n.name : n.space + "." + n.name;
  return n;
}

std::string Name::qualified(std::string_view default_space) const {
  if (!space.empty() && space == default_space && !is_type_name(name)) return name;
  return full;
}

std::vector<std::string> Node::alias_strings() const {
  std::vector<std::string> out;
  for (const Name& a : aliases) out.push_back(a.space.empty() && !name.space.empty() ? "." + a.name : a.full);
  return out;
}

const Field* Node::field(std::string_view field_name) const {
  for (const Field& f : fields)
    if (f.name == field_name) return &f;
  return nullptr;
}

bool Node::has_symbol(std::string_view symbol) const {
  for (const auto& s : symbols)
    if (s == symbol) return true;
  return false;
}

bool schema_equals(const Node* a, const Node* b) { return Equality().equal(a, b); }

std::optional<LogicalType> logical_type_of(const Node& n) {
  const AvroJson* name = prop(n.props, "logicalType");
  if (name == nullptr || name->kind != AvroJson::Kind::kString) return std::nullopt;
  for (const char* incompatible : {"avro.java.string", "java-class", "java-key-class", "java-element-class"}) {
    const AvroJson* p = prop(n.props, incompatible);
    if (p != nullptr && p->kind == AvroJson::Kind::kString) return std::nullopt;
  }
  LogicalType lt;
  lt.name = name->text;
  if (!logical_fits(n, lt)) return std::nullopt;
  return lt;
}

}  // namespace skiff::schema::avro
