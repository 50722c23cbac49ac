// One schema object's keywords, read as everit-json-schema's SchemaLoader
// reads them: $ref alone (before 2019-09), else the enum, allOf/anyOf/oneOf,
// not, const and type extractors, then the keywords of kinds no type took
// ("property sniffing"), each making one node; several make a synthetic
// allOf. Then the common keywords ($id, title, description, default).
#include <algorithm>
#include <charconv>

#include "schema/json/java_order.h"
#include "schema/json/loader_internal.h"

namespace skiff::schema::json {

namespace {

using Kind = JsonValue::Kind;

const std::vector<std::string>& number_keywords() {
  static const std::vector<std::string> k{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"};
  return k;
}

const std::vector<std::string>& string_keywords() {
  static const std::vector<std::string> k{"minLength", "maxLength", "pattern", "format"};
  return k;
}

std::vector<std::string> object_keywords(Draft d) {
  std::vector<std::string> k{"properties",   "required",          "minProperties",       "maxProperties",
                             "dependencies", "patternProperties", "additionalProperties"};
  if (d != Draft::k4) k.push_back("propertyNames");
  if (d >= Draft::k2019_09) k.insert(k.end(), {"dependentRequired", "dependentSchemas", "unevaluatedProperties"});
  return k;
}

std::vector<std::string> array_keywords(Draft d) {
  std::vector<std::string> k{"items", "additionalItems", "minItems", "maxItems", "uniqueItems"};
  if (d != Draft::k4) k.push_back("contains");
  if (d >= Draft::k2019_09) k.insert(k.end(), {"unevaluatedItems", "minContains", "maxContains"});
  if (d >= Draft::k2020_12) k.push_back("prefixItems");
  return k;
}

bool has_any(const JsonValue& o, const std::vector<std::string>& keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return o.find(k) != nullptr; });
}

}  // namespace

struct Loader::Extracted {
  std::vector<Node*> nodes;
  bool took_number = false, took_string = false, took_object = false, took_array = false;
};

Node* Loader::make(NodeKind kind, const JsonValue* source) {
  if (out_.arena.size() >= kMaxNodes) fail(Where{}, "the schema is too large");
  return out_.arena.make(kind, source);
}

const Node* Loader::load(const JsonValue& v, const Where& at, int depth) {
  if (depth > kMaxDepth) fail(at, "the schema is nested too deeply");
  if (v.kind == Kind::kBool) return make(v.boolean ? NodeKind::kTrue : NodeKind::kFalse, &v);
  if (v.kind != Kind::kObject) expected(at, v, "is one of Boolean or JsonObject");
  return load_object(v, at, depth);
}

const Node* Loader::load_object(const JsonValue& o, const Where& at, int depth) {
  const JsonValue* ref = o.find("$ref");
  if (ref && draft() < Draft::k2019_09) {
    Node* n = reference(*ref, at.child("$ref"));
    load_common(n, o, at);
    return n;
  }
  Extracted x;
  if (ref) x.nodes.push_back(reference(*ref, at.child("$ref")));
  if (const JsonValue* e = o.find("enum")) {
    if (e->kind != Kind::kArray) expected(at.child("enum"), *e, "JsonArray");
    Node* n = make(NodeKind::kEnum, &o);
    for (const auto& item : e->array) n->enum_values.push_back(&item);
    x.nodes.push_back(n);
  }
  std::vector<std::string> combined;
  for (const char* k : {"allOf", "anyOf", "oneOf"})
    if (o.find(k)) combined.emplace_back(k);
  for (const auto& k : java_hash_order(combined, java_default_capacity())) {
    const Criterion c = k == "allOf" ? Criterion::kAllOf : k == "anyOf" ? Criterion::kAnyOf : Criterion::kOneOf;
    x.nodes.push_back(combined_node(c, *o.find(k), at.child(k), depth));
  }
  if (const JsonValue* n = o.find("not")) {
    Node* node = make(NodeKind::kNot, &o);
    node->not_schema = load(*n, at.child("not"), depth + 1);
    x.nodes.push_back(node);
  }
  if (const JsonValue* c = o.find("const"); c && draft() != Draft::k4) {
    Node* node = make(NodeKind::kConst, &o);
    node->const_value = c;
    x.nodes.push_back(node);
  }
  extract_typed(x, o, at, depth);
  extract_sniffed(x, o, at, depth);
  Node* result;
  if (x.nodes.empty()) {
    result = make(NodeKind::kEmpty, &o);
  } else if (x.nodes.size() == 1) {
    result = x.nodes.front();
  } else {
    result = make(NodeKind::kCombined, &o);
    result->criterion = Criterion::kAllOf;
    result->subschemas.assign(x.nodes.begin(), x.nodes.end());
  }
  result->source = &o;
  load_common(result, o, at);
  return result;
}

void Loader::extract_typed(Extracted& x, const JsonValue& o, const Where& at, int depth) {
  const JsonValue* type = o.find("type");
  if (!type) return;
  auto take = [&](const std::string& t) {
    x.took_number |= t == "number" || t == "integer";
    x.took_string |= t == "string";
    x.took_object |= t == "object";
    x.took_array |= t == "array";
    Node* n = typed_node(t, o, at, depth);
    n->typed = true;
    return n;
  };
  if (type->kind == Kind::kString) {
    x.nodes.push_back(take(type->string));
    return;
  }
  if (type->kind != Kind::kArray) expected(at.child("type"), *type, "is one of JsonArray or String");
  Node* any = make(NodeKind::kCombined, &o);
  any->criterion = Criterion::kAnyOf;
  for (size_t i = 0; i < type->array.size(); ++i) {
    const JsonValue& t = type->array[i];
    if (t.kind != Kind::kString) expected(at.child("type").index(i), t, "String");
    any->subschemas.push_back(take(t.string));
  }
  x.nodes.push_back(any);
}

void Loader::extract_sniffed(Extracted& x, const JsonValue& o, const Where& at, int depth) {
  if (!x.took_array && has_any(o, array_keywords(draft()))) x.nodes.push_back(array_node(o, at, depth));
  if (!x.took_object && has_any(o, object_keywords(draft()))) x.nodes.push_back(object_node(o, at, depth));
  if (!x.took_number && has_any(o, number_keywords())) x.nodes.push_back(number_node(o, at));
  if (!x.took_string && has_any(o, string_keywords())) x.nodes.push_back(string_node(o, at));
  if (draft() >= Draft::k7 && has_any(o, {"if", "then", "else"})) {
    Node* n = make(NodeKind::kConditional, &o);
    const Node** slots[] = {&n->if_schema, &n->then_schema, &n->else_schema};
    int i = 0;
    for (const char* k : {"if", "then", "else"}) {
      if (const JsonValue* v = o.find(k)) *slots[i] = load(*v, at.child(k), depth + 1);
      ++i;
    }
    x.nodes.push_back(n);
  }
}

Node* Loader::typed_node(const std::string& type, const JsonValue& o, const Where& at, int depth) {
  if (type == "string") return string_node(o, at);
  if (type == "number") return number_node(o, at);
  if (type == "integer") {
    Node* n = number_node(o, at);
    n->number.requires_integer = true;
    return n;
  }
  if (type == "boolean") return make(NodeKind::kBoolean, &o);
  if (type == "null") return make(NodeKind::kNull, &o);
  if (type == "array") return array_node(o, at, depth);
  if (type == "object") return object_node(o, at, depth);
  fail(at, "unknown type: [" + type + "]");
}

void Loader::load_common(Node* n, const JsonValue& o, const Where& at) {
  auto text = [&](const char* key) -> std::optional<std::string> {
    const JsonValue* v = o.find(key);
    if (!v) return std::nullopt;
    if (v->kind != Kind::kString) expected(at.child(key), *v, "String");
    return v->string;
  };
  n->id = text(draft() == Draft::k4 ? "id" : "$id");
  n->title = text("title");
  n->description = text("description");
  if (draft() == Draft::k7)
    for (const char* k : {"readOnly", "writeOnly"})
      if (const JsonValue* v = o.find(k); v && v->kind != Kind::kBool) expected(at.child(k), *v, "Boolean");
  n->default_value = o.find("default");
  if (const JsonValue* ct = o.find("connect.type"); ct && ct->kind == Kind::kString) n->connect_type = ct->string;
}

Node* Loader::combined_node(Criterion c, const JsonValue& list, const Where& at, int depth) {
  if (list.kind != Kind::kArray) expected(at, list, "JsonArray");
  Node* n = make(NodeKind::kCombined, &list);
  n->criterion = c;
  for (size_t i = 0; i < list.array.size(); ++i) n->subschemas.push_back(load(list.array[i], at.index(i), depth + 1));
  return n;
}

}  // namespace skiff::schema::json
