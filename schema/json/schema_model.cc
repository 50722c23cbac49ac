#include "schema/json/schema_model.h"

#include <algorithm>

#include "schema/json/jackson_text.h"

namespace skiff::schema::json {

const char* criterion_name(Criterion c) {
  switch (c) {
    case Criterion::kAllOf:
      return "allOf";
    case Criterion::kAnyOf:
      return "anyOf";
    case Criterion::kOneOf:
      return "oneOf";
  }
  return "allOf";
}

const Node* ObjectFacet::property(const std::string& name) const {
  const auto it = property_index.find(name);
  return it == property_index.end() ? nullptr : properties[it->second].second;
}

bool ObjectFacet::is_required(const std::string& name) const { return required_set.count(name) > 0; }

bool json_equal(const JsonValue& a, const JsonValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case JsonValue::Kind::kNull:
      return true;
    case JsonValue::Kind::kBool:
      return a.boolean == b.boolean;
    case JsonValue::Kind::kNumber:
      return jackson_number_text(a.number_text) == jackson_number_text(b.number_text);
    case JsonValue::Kind::kString:
      return a.string == b.string;
    case JsonValue::Kind::kArray:
      return a.array.size() == b.array.size() &&
             std::equal(a.array.begin(), a.array.end(), b.array.begin(), json_equal);
    case JsonValue::Kind::kObject:
      return jackson_compact(a, true) == jackson_compact(b, true);
  }
  return false;
}

}  // namespace skiff::schema::json
