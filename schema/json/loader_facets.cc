// The type-specific keywords of one schema object, as everit's Number,
// String, Object and Array schema loaders read them (and, for 2019-09 and
// 2020-12, as Confluent's SchemaTranslator maps json-sKema's keywords onto
// the same shapes: prefixItems, dependentRequired, dependentSchemas,
// unevaluated*, min/maxContains).
#include <charconv>
#include <unordered_map>

#include "schema/json/loader_internal.h"

namespace skiff::schema::json {

namespace {

using Kind = JsonValue::Kind;

bool is_integer_text(const std::string& t) { return t.find_first_of(".eE") == std::string::npos; }

// everit's requireInteger: an int (org.json reads larger ones as Long).
std::optional<int64_t> integer(const JsonValue& o, const char* key, const Where& at) {
  const JsonValue* v = o.find(key);
  if (!v) return std::nullopt;
  int32_t n = 0;
  const auto& t = v->number_text;
  if (v->kind != Kind::kNumber || !is_integer_text(t) ||
      std::from_chars(t.data(), t.data() + t.size(), n).ec != std::errc())
    Loader::expected(at.child(key), *v, "Integer");
  return n;
}

std::optional<Number> number(const JsonValue& o, const char* key, const Where& at) {
  const JsonValue* v = o.find(key);
  if (!v) return std::nullopt;
  if (v->kind != Kind::kNumber) Loader::expected(at.child(key), *v, "Number");
  return Number{v->number_text, v->number};
}

std::optional<bool> boolean(const JsonValue& o, const char* key, const Where& at) {
  const JsonValue* v = o.find(key);
  if (!v) return std::nullopt;
  if (v->kind != Kind::kBool) Loader::expected(at.child(key), *v, "Boolean");
  return v->boolean;
}

std::vector<std::string> strings(const JsonValue& list, const Where& at) {
  if (list.kind != Kind::kArray) Loader::expected(at, list, "JsonArray");
  std::vector<std::string> out;
  for (size_t i = 0; i < list.array.size(); ++i) {
    if (list.array[i].kind != Kind::kString) Loader::expected(at.index(i), list.array[i], "String");
    out.push_back(list.array[i].string);
  }
  return out;
}

const JsonValue& object_value(const JsonValue& v, const Where& at) {
  if (v.kind != Kind::kObject) Loader::expected(at, v, "JsonObject");
  return v;
}

// A member list as a Java map holds it: a repeated name keeps its place.
template <class T>
class MapPut {
 public:
  explicit MapPut(std::vector<std::pair<std::string, T>>& list) : list_(list) {
    for (size_t i = 0; i < list_.size(); ++i) index_.emplace(list_[i].first, i);
  }
  void operator()(const std::string& name, T value) {
    auto [it, fresh] = index_.emplace(name, list_.size());
    if (fresh)
      list_.emplace_back(name, std::move(value));
    else
      list_[it->second].second = std::move(value);
  }
  T* find(const std::string& name) {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &list_[it->second].second;
  }

 private:
  std::vector<std::pair<std::string, T>>& list_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace

Node* Loader::number_node(const JsonValue& o, const Where& at) {
  Node* n = make(NodeKind::kNumber, &o);
  auto& f = n->number;
  f.minimum = number(o, "minimum", at);
  f.maximum = number(o, "maximum", at);
  f.multiple_of = number(o, "multipleOf", at);
  if (draft() == Draft::k4) {  // booleans qualifying minimum/maximum; Confluent compares only the limits
    f.exclusive_minimum_flag = boolean(o, "exclusiveMinimum", at).value_or(false);
    f.exclusive_maximum_flag = boolean(o, "exclusiveMaximum", at).value_or(false);
  } else {
    f.exclusive_minimum = number(o, "exclusiveMinimum", at);
    f.exclusive_maximum = number(o, "exclusiveMaximum", at);
  }
  return n;
}

Node* Loader::string_node(const JsonValue& o, const Where& at) {
  Node* n = make(NodeKind::kString, &o);
  auto& f = n->string;
  f.min_length = integer(o, "minLength", at);
  f.max_length = integer(o, "maxLength", at);
  if (const JsonValue* p = o.find("pattern")) {
    if (p->kind != Kind::kString) expected(at.child("pattern"), *p, "String");
    f.pattern = p->string;
  }
  if (const JsonValue* fmt = o.find("format")) {
    if (fmt->kind != Kind::kString) expected(at.child("format"), *fmt, "String");
    f.format = fmt->string;
  }
  return n;
}

Node* Loader::object_node(const JsonValue& o, const Where& at, int depth) {
  Node* n = make(NodeKind::kObject, &o);
  auto& f = n->object;
  f.min_properties = integer(o, "minProperties", at);
  f.max_properties = integer(o, "maxProperties", at);
  if (const JsonValue* p = o.find("properties"))
    load_properties(f, object_value(*p, at.child("properties")), at, depth);
  if (const JsonValue* a = o.find("additionalProperties")) {
    if (a->kind == Kind::kBool)
      f.additional_properties = a->boolean;
    else if (a->kind == Kind::kObject)
      f.additional_schema = load(*a, at.child("additionalProperties"), depth + 1);
    else
      expected(at.child("additionalProperties"), *a, "is one of Boolean or JsonObject");
  }
  if (const JsonValue* r = o.find("required"))
    for (auto& name : strings(*r, at.child("required")))
      if (f.required_set.insert(name).second) f.required.push_back(name);
  if (const JsonValue* pp = o.find("patternProperties")) {
    const Where where = at.child("patternProperties");
    MapPut<const Node*> put(f.pattern_properties);
    for (const auto& m : object_value(*pp, where).members) put(m.name, load(m.value, where.child(m.name), depth + 1));
  }
  load_dependencies(f, o, at, depth);
  if (const JsonValue* names = o.find("propertyNames"); names && draft() != Draft::k4)
    f.property_names = load(*names, at.child("propertyNames"), depth + 1);
  if (const JsonValue* u = o.find("unevaluatedProperties"); u && draft() >= Draft::k2019_09)
    f.unevaluated = load(*u, at.child("unevaluatedProperties"), depth + 1);
  return n;
}

void Loader::load_properties(ObjectFacet& f, const JsonValue& props, const Where& at, int depth) {
  const Where where = at.child("properties");
  const char* id_keyword = draft() == Draft::k4 ? "id" : "$id";
  for (const auto& m : props.members) {
    if (m.name == id_keyword && m.value.kind != Kind::kObject) continue;  // everit skips an $id that is no schema
    const Node* s = load(m.value, where.child(m.name), depth + 1);
    auto [it, fresh] = f.property_index.emplace(m.name, f.properties.size());
    if (fresh)
      f.properties.emplace_back(m.name, s);
    else
      f.properties[it->second].second = s;
  }
}

void Loader::load_dependencies(ObjectFacet& f, const JsonValue& o, const Where& at, int depth) {
  MapPut<std::vector<std::string>> put_names(f.property_dependencies);
  MapPut<const Node*> put_schema(f.schema_dependencies);
  auto add = [&](const JsonMember& m, const Where& where, bool arrays, bool schemas) {
    if (m.value.kind == Kind::kArray && arrays) {
      auto names = strings(m.value, where.child(m.name));
      if (auto* before = put_names.find(m.name); before && !schemas)
        names.insert(names.begin(), before->begin(), before->end());  // dependentRequired adds to dependencies
      put_names(m.name, names);
    } else if (is_schema_value(m.value) && schemas) {
      put_schema(m.name, load(m.value, where.child(m.name), depth + 1));
    } else {
      expected(where.child(m.name), m.value,
               arrays && schemas ? "is one of Boolean or JsonArray or JsonObject"
               : arrays          ? "JsonArray"
                                 : "is one of Boolean or JsonObject");
    }
  };
  auto each = [&](const char* key, bool arrays, bool schemas) {
    const JsonValue* d = o.find(key);
    if (!d) return;
    const Where where = at.child(key);
    for (const auto& m : object_value(*d, where).members) add(m, where, arrays, schemas);
  };
  each("dependencies", true, true);
  if (draft() >= Draft::k2019_09) {
    each("dependentRequired", true, false);
    each("dependentSchemas", false, true);
  }
}

Node* Loader::array_node(const JsonValue& o, const Where& at, int depth) {
  Node* n = make(NodeKind::kArray, &o);
  auto& f = n->array;
  f.min_items = integer(o, "minItems", at);
  f.max_items = integer(o, "maxItems", at);
  f.unique_items = boolean(o, "uniqueItems", at).value_or(false);
  if (const JsonValue* a = o.find("additionalItems"); a && draft() < Draft::k2020_12) {
    if (a->kind == Kind::kBool)
      f.additional_items = a->boolean;
    else if (a->kind == Kind::kObject)
      f.additional_schema = load(*a, at.child("additionalItems"), depth + 1);
    else
      expected(at.child("additionalItems"), *a, "is one of Boolean or JsonObject");
  }
  load_items(f, o, at, depth);
  if (const JsonValue* c = o.find("contains"); c && draft() != Draft::k4) {
    f.contains = load(*c, at.child("contains"), depth + 1);
    if (draft() >= Draft::k2019_09) {
      f.min_contains = integer(o, "minContains", at).value_or(1);
      f.max_contains = integer(o, "maxContains", at);
    }
  }
  if (const JsonValue* u = o.find("unevaluatedItems"); u && draft() >= Draft::k2019_09)
    f.unevaluated = load(*u, at.child("unevaluatedItems"), depth + 1);
  return n;
}

void Loader::load_items(ArrayFacet& f, const JsonValue& o, const Where& at, int depth) {
  const JsonValue* items = o.find("items");
  const JsonValue* prefix = draft() >= Draft::k2020_12 ? o.find("prefixItems") : nullptr;
  auto tuple = [&](const JsonValue& list, const Where& where) {
    for (size_t i = 0; i < list.array.size(); ++i)
      f.item_schemas.push_back(load(list.array[i], where.index(i), depth + 1));
  };
  if (prefix) {
    if (prefix->kind != Kind::kArray) expected(at.child("prefixItems"), *prefix, "JsonArray");
    tuple(*prefix, at.child("prefixItems"));
  }
  if (!items) return;
  const Where where = at.child("items");
  if (items->kind == Kind::kArray && !prefix) {
    tuple(*items, where);
  } else if (items->kind == Kind::kObject || items->kind == Kind::kBool) {
    const Node* s = load(*items, where, depth + 1);
    if (draft() < Draft::k2020_12) {
      f.all_items = s;
    } else if (s->kind == NodeKind::kFalse) {
      f.additional_items = false;  // as Confluent translates `items: false`
    } else if (s->kind != NodeKind::kTrue) {
      (prefix ? f.additional_schema : f.all_items) = s;
    }
  } else {
    expected(where, *items, "is one of Boolean or JsonArray or JsonObject");
  }
}

}  // namespace skiff::schema::json
