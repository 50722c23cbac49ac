#include "schema/avro/avro_defaults.h"

#include <string_view>
#include <unordered_map>

namespace skiff::schema::avro {
namespace {

using Kind = AvroJson::Kind;

bool valid(const Node* s, const AvroJson& v, int depth);

// Schema.isValidValue: a union takes a value fitting any branch.
bool valid_value(const Node* s, const AvroJson* v, int depth) {
  if (v == nullptr) return false;
  if (s->type != Type::kUnion) return valid(s, *v, depth);
  for (const Node* b : s->branches)
    if (valid(b, *v, depth)) return true;
  return false;
}

bool valid_record(const Node* s, const AvroJson& v, int depth) {
  if (v.kind != Kind::kObject) return false;
  std::unordered_map<std::string_view, const AvroJson*> members;  // hashed: both sides may be long
  for (const auto& m : v.members) members.emplace(m.first, &m.second);
  for (const Field& f : s->fields) {
    auto it = members.find(f.name);
    const AvroJson* member = it == members.end() ? nullptr : it->second;
    const AvroJson* value = member ? member : (f.default_value ? &*f.default_value : nullptr);
    if (!valid_value(f.type, value, depth)) return false;
  }
  return true;
}

// A primitive, enum or fixed type's check.
bool valid_scalar(Type t, const AvroJson& v) {
  switch (t) {
    case Type::kString:
    case Type::kBytes:
    case Type::kEnum:
    case Type::kFixed:
      return v.kind == Kind::kString;
    case Type::kInt:
      return v.kind == Kind::kInt;
    case Type::kLong:
      return v.kind == Kind::kInt || v.kind == Kind::kLong;
    case Type::kFloat:
    case Type::kDouble:
      return v.is_number();
    case Type::kBoolean:
      return v.kind == Kind::kBool;
    case Type::kNull:
      return v.kind == Kind::kNull;
    default:
      return false;
  }
}

bool valid(const Node* s, const AvroJson& v, int depth) {
  if (depth <= 0) return false;
  switch (s->type) {
    case Type::kArray:
      if (v.kind != Kind::kArray) return false;
      for (const AvroJson& item : v.items)
        if (!valid(s->items, item, depth - 1)) return false;
      return true;
    case Type::kMap:
      if (v.kind != Kind::kObject) return false;
      for (const auto& m : v.members)
        if (!valid(s->items, m.second, depth - 1)) return false;
      return true;
    case Type::kUnion:
      for (const Node* b : s->branches)
        if (valid_value(b, &v, depth - 1)) return true;
      return false;
    case Type::kRecord:
      return valid_record(s, v, depth - 1);
    default:
      return valid_scalar(s->type, v);
  }
}

}  // namespace

bool is_valid_default(const Node* schema, const AvroJson& value, int max_depth) {
  return valid(schema, value, max_depth);
}

}  // namespace skiff::schema::avro
