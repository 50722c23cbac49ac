// Checks schema/json against the vectors tools/json_schema_oracle generated
// with the libraries Confluent's registry uses: Jackson's canonical and
// sorted text, everit-json-schema's verdict (and message) on loading, and
// the order a loaded schema's properties HashMap iterates in.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <optional>

#include "json_schema_support.h"
#include "schema/json/jackson_text.h"
#include "schema/json/java_order.h"

using namespace skiff::schema::json;
using namespace skiff::schema::json::test;

namespace {

struct Vector {
  std::string schema, canonical, normalized, load, order, shape;
  bool json_error = false;
};

std::vector<Vector> read_vectors() {
  std::ifstream in(SKIFF_JSON_ORACLE_VECTORS);
  REQUIRE(in);
  std::vector<Vector> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.find(' ');
    const std::string key = line.substr(0, space), rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "schema") out.emplace_back().schema = rest;
    REQUIRE_FALSE(out.empty());
    if (key == "canonical") out.back().canonical = rest;
    if (key == "normalized") out.back().normalized = rest;
    if (key == "load") out.back().load = rest;
    if (key == "order") out.back().order = rest;
    if (key == "shape") out.back().shape = rest;
    if (key == "json") out.back().json_error = true;
  }
  return out;
}

std::vector<std::string> top_level_properties(const std::string& text) {
  std::vector<std::string> names;
  auto doc = skiff::parse_json(text, 200);
  if (const auto* props = doc ? doc->find("properties") : nullptr)
    for (const auto& m : props->members)
      if (m.name != "$id" || m.value.kind == skiff::JsonValue::Kind::kObject) names.push_back(m.name);  // as everit
  return names;
}

std::string joined(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::string flags(const std::vector<std::pair<std::string, std::optional<std::string>>>& pairs) {
  std::vector<std::string> on;
  for (const auto& [name, value] : pairs)
    if (value) on.push_back(name + *value);
  return on.empty() ? "" : "(" + joined(on) + ")";
}

template <class T>
std::optional<std::string> eq(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return "=" + std::to_string(*v);
}

template <class T>
std::optional<std::string> present(const T& v) {
  if (!v) return std::nullopt;
  return std::string();
}

std::optional<std::string> on(bool b) { return b ? std::optional<std::string>("") : std::nullopt; }

std::string describe(const Node* n, int depth);

std::string describe_object(const ObjectFacet& o, int depth) {
  std::vector<std::pair<std::string, const Node*>> props = o.properties;
  std::sort(props.begin(), props.end(),
            [](const auto& a, const auto& b) { return java_string_less(a.first, b.first); });
  std::vector<std::string> parts, deps;
  for (const auto& [name, schema] : props) parts.push_back(name + ":" + describe(schema, depth + 1));
  for (const auto& d : o.property_dependencies) deps.push_back(d.first);
  for (const auto& d : o.schema_dependencies) deps.push_back(d.first);
  std::sort(deps.begin(), deps.end());
  return "object{" + joined(parts) +
         ",additional:" + (o.additional_properties ? describe(o.additional_schema, depth + 1) : "no") +
         ",required:" + joined(o.required, "|") + ",patterns:" + std::to_string(o.pattern_properties.size()) +
         ",deps:" + joined(deps, "|") + flags({{"min", eq(o.min_properties)}, {"max", eq(o.max_properties)}}) + "}";
}

std::string describe_array(const ArrayFacet& a, int depth) {
  std::vector<std::string> tuple;
  for (const Node* s : a.item_schemas) tuple.push_back(describe(s, depth + 1));
  return "array{items:" + describe(a.all_items, depth + 1) + ",tuple:[" + joined(tuple) +
         "],additional:" + (a.additional_items ? describe(a.additional_schema, depth + 1) : "no") +
         flags({{"min", eq(a.min_items)}, {"max", eq(a.max_items)}, {"unique", on(a.unique_items)}}) + "}";
}

// The grammar of the oracle's describe(): everit's classes and the facets
// Confluent's diff reads.
std::string describe(const Node* n, int depth) {
  if (depth > 12) return "...";
  if (!n) return "-";
  switch (n->kind) {
    case NodeKind::kReference:
      return "ref";
    case NodeKind::kTrue:
      return "true";
    case NodeKind::kEmpty:
      return "empty";
    case NodeKind::kFalse:
      return "false";
    case NodeKind::kBoolean:
      return "boolean";
    case NodeKind::kNull:
      return "null";
    case NodeKind::kConditional:
      return "if";
    case NodeKind::kConst:
      return "const";
    case NodeKind::kEnum:
      return "enum" + std::to_string(n->enum_values.size());
    case NodeKind::kNot:
      return "not(" + describe(n->not_schema, depth + 1) + ")";
    case NodeKind::kString:
      return "string" + flags({{"min", eq(n->string.min_length)},
                               {"max", eq(n->string.max_length)},
                               {"pattern", present(n->string.pattern)}});
    case NodeKind::kNumber: {
      const auto& f = n->number;
      return "number" + flags({{"int", on(f.requires_integer)},
                               {"min", present(f.minimum)},
                               {"max", present(f.maximum)},
                               {"xmin", present(f.exclusive_minimum)},
                               {"xmax", present(f.exclusive_maximum)},
                               {"mult", present(f.multiple_of)}});
    }
    case NodeKind::kCombined: {
      std::vector<std::string> parts;
      for (const Node* s : n->subschemas) parts.push_back(describe(s, depth + 1));
      if (n->criterion == Criterion::kAllOf) std::sort(parts.begin(), parts.end());
      return std::string(criterion_name(n->criterion)) + "[" + joined(parts) + "]";
    }
    case NodeKind::kObject:
      return describe_object(n->object, depth);
    case NodeKind::kArray:
      return describe_array(n->array, depth);
  }
  return "?";
}

std::string shape_of(const std::string& text) {
  auto loaded = load_schema(std::make_unique<skiff::JsonValue>(*skiff::parse_json(text, 200)), json_source(text));
  REQUIRE(loaded);
  return describe((*loaded)->root, 0);
}

}  // namespace

TEST_CASE("json oracle: Jackson's text, everit's verdict, Java's order", "[schema][json]") {
  const auto vectors = read_vectors();
  CHECK(vectors.size() > 70);
  for (const auto& v : vectors) {
    INFO(v.schema);
    auto parsed = skiff::schema::parse_json_schema(json_source(v.schema));
    if (v.json_error) {
      CHECK_FALSE(parsed);
      continue;
    }
    if (v.load == "ok" || v.load == "skipped") {
      if (!parsed) INFO(parsed.error().message);
      REQUIRE(parsed);
    } else {
      REQUIRE_FALSE(parsed);
      CHECK(parsed.error().message == "Invalid JSON: " + v.load.substr(std::string("error ").size()));
      continue;
    }
    CHECK((*parsed)->canonical() == v.canonical);
    CHECK((*parsed)->normalized() == v.normalized);
    if (!v.shape.empty()) CHECK(shape_of(v.schema) == v.shape);
    if (!v.order.empty())
      CHECK(joined(java_hash_order(top_level_properties(v.canonical), java_default_capacity())) == v.order);
  }
}
