// Object schemas (Confluent's ObjectSchemaDiff): required, properties under
// open, closed and partially open content models, dependencies,
// additionalProperties, unevaluatedProperties, min/maxProperties. Property
// names are visited in the order of the Java HashMaps and HashSets
// Confluent iterates (java_order.h).
#include <regex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "schema/json/diff_internal.h"
#include "schema/json/java_order.h"

namespace skiff::schema::json {

namespace {

using T = DiffType;

template <class V>
std::vector<std::string> names_of(const std::vector<std::pair<std::string, V>>& list) {
  std::vector<std::string> out;
  out.reserve(list.size());
  for (const auto& e : list) out.push_back(e.first);
  return out;
}

// The names of a HashMap the loader filled in document order.
template <class V>
std::vector<std::string> map_order(const std::vector<std::pair<std::string, V>>& list) {
  return java_hash_order(names_of(list), java_default_capacity());
}

// new HashSet<>(a); addAll(b): the union in Java's iteration order.
std::vector<std::string> set_union_order(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> all = a;
  all.insert(all.end(), b.begin(), b.end());
  return java_hash_order(all, java_capacity_for_collection(a.size()));
}

// A partially open model's pattern: Java's Matcher.find, approximated with
// ECMAScript expressions run in polynomial time (libstdc++'s __polynomial:
// no backtracking blow-up), each compiled once per check. An expression
// std::regex cannot take, or a name or pattern too long to search within
// the bounds, matches nothing.
bool pattern_finds(DiffShared& shared, const std::string& pattern, const std::string& name) {
  if (pattern.size() > 1000 || name.size() > 256) return false;
  ++shared.compared;  // a search is work against the check's bound
  auto [it, fresh] = shared.patterns.try_emplace(pattern);
  if (fresh) {
    try {
      it->second =
          std::make_shared<const std::regex>(pattern, std::regex::ECMAScript | std::regex_constants::__polynomial);
    } catch (const std::exception&) {
      it->second = nullptr;
    }
  }
  return it->second && std::regex_search(name, *it->second);
}

bool is_open(const ObjectFacet& f) {
  if (!f.additional_properties || f.additional_schema || !f.pattern_properties.empty()) return false;
  return !f.unevaluated || is_empty_schema(f.unevaluated);
}

const Node* partially_open_schema(DiffShared& shared, const ObjectFacet& f, const std::string& name) {
  for (const auto& [pattern, schema] : f.pattern_properties)
    if (pattern_finds(shared, pattern, name)) return schema;
  if (f.additional_schema) return f.additional_schema;
  if (f.additional_properties && f.unevaluated && f.unevaluated->kind != NodeKind::kFalse &&
      !is_empty_schema(f.unevaluated))
    return f.unevaluated;
  return nullptr;
}

void compare_required(DiffContext& ctx, const ObjectFacet& o, const ObjectFacet& u) {
  DiffContext::Scope s(ctx, "required");
  for (const auto& name : map_order(o.properties)) {
    const Node* updated = u.property(name);
    if (!updated) continue;
    DiffContext::Scope p(ctx, name);
    const bool was = o.is_required(name), is = u.is_required(name);
    if (was && !is) ctx.add(T::REQUIRED_ATTRIBUTE_REMOVED);
    if (!was && is)
      ctx.add(updated->default_value ? T::REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED : T::REQUIRED_ATTRIBUTE_ADDED);
  }
}

// Whether `from` (one side's schema for the property) fits the other side's
// partially open model; adds the comparison's differences and the verdict.
void compare_with_partial(DiffContext& ctx, const Node* original, const Node* update, T covered, T not_covered) {
  DiffContext sub = ctx.sub();
  compare_nodes(sub, original, update);
  ctx.add_all(sub.diffs());
  ctx.add(sub.compatible() ? covered : not_covered);
}

void property_removed(DiffContext& ctx, const std::string& name, const Node* was, const ObjectFacet& u) {
  if (is_open(u)) return ctx.add(T::PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL);
  if (const Node* partial = partially_open_schema(ctx.shared(), u, name))
    return compare_with_partial(ctx, was, partial, T::PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                                T::PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
  ctx.add(was->kind == NodeKind::kFalse ? T::PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
                                        : T::PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL);
}

void property_added(DiffContext& ctx, const std::string& name, const Node* is, const ObjectFacet& o,
                    const ObjectFacet& u) {
  const bool required = u.is_required(name);
  if (is_open(o)) {
    if (is_empty_schema(is)) return ctx.add(T::PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL);
    if (!required) return ctx.add(T::OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL);
    return ctx.add(is->default_value ? T::REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL
                                     : T::REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL);
  }
  if (const Node* partial = partially_open_schema(ctx.shared(), o, name))
    compare_with_partial(ctx, partial, is, T::PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                         T::PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
  if (!required) return ctx.add(T::OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL);
  ctx.add(is->default_value ? T::REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL
                            : T::REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL);
}

void compare_properties(DiffContext& ctx, const ObjectFacet& o, const ObjectFacet& u) {
  DiffContext::Scope s(ctx, "properties");
  for (const auto& name : set_union_order(map_order(o.properties), map_order(u.properties))) {
    DiffContext::Scope p(ctx, name);
    const Node* was = o.property(name);
    const Node* is = u.property(name);
    if (!is)
      property_removed(ctx, name, was, u);
    else if (!was)
      property_added(ctx, name, is, o, u);
    else
      compare_nodes(ctx, was, is);
  }
}

template <class V>
std::unordered_map<std::string_view, const V*> index_of(const std::vector<std::pair<std::string, V>>& list) {
  std::unordered_map<std::string_view, const V*> out;
  for (const auto& [n, v] : list) out[n] = &v;
  return out;
}

template <class V>
const V* find_value(const std::unordered_map<std::string_view, const V*>& index, const std::string& name) {
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

// The keys of a map everit copies (new HashMap<>(builderMap)).
template <class V>
std::vector<std::string> copied_map_order(const std::vector<std::pair<std::string, V>>& list) {
  return java_hash_order(map_order(list), java_capacity_for_map_copy(list.size()));
}

bool contains_all(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::unordered_set<std::string_view> in_a(a.begin(), a.end());
  for (const auto& x : b)
    if (!in_a.count(x)) return false;
  return true;
}

void compare_dependencies(DiffContext& ctx, const ObjectFacet& o, const ObjectFacet& u) {
  DiffContext::Scope s(ctx, "dependencies");
  const auto o_names = index_of(o.property_dependencies), u_names = index_of(u.property_dependencies);
  const auto o_schemas = index_of(o.schema_dependencies), u_schemas = index_of(u.schema_dependencies);
  for (const auto& key :
       set_union_order(copied_map_order(o.property_dependencies), copied_map_order(u.property_dependencies))) {
    DiffContext::Scope k(ctx, key);
    const auto* was = find_value(o_names, key);
    const auto* is = find_value(u_names, key);
    if (!is) {
      ctx.add(T::DEPENDENCY_ARRAY_REMOVED);
    } else if (!was) {
      ctx.add(T::DEPENDENCY_ARRAY_ADDED);
    } else if (!(contains_all(*was, *is) && contains_all(*is, *was))) {
      ctx.add(contains_all(*is, *was)   ? T::DEPENDENCY_ARRAY_EXTENDED
              : contains_all(*was, *is) ? T::DEPENDENCY_ARRAY_NARROWED
                                        : T::DEPENDENCY_ARRAY_CHANGED);
    }
  }
  for (const auto& key :
       set_union_order(copied_map_order(o.schema_dependencies), copied_map_order(u.schema_dependencies))) {
    DiffContext::Scope k(ctx, key);
    const auto* was = find_value(o_schemas, key);
    const auto* is = find_value(u_schemas, key);
    if (!is)
      ctx.add(T::DEPENDENCY_SCHEMA_REMOVED);
    else if (!was)
      ctx.add(T::DEPENDENCY_SCHEMA_ADDED);
    else
      compare_nodes(ctx, *was, *is);
  }
}

void compare_additional(DiffContext& ctx, const ObjectFacet& o, const ObjectFacet& u) {
  DiffContext::Scope s(ctx, "additionalProperties");
  if (o.additional_properties != u.additional_properties)
    ctx.add(u.additional_properties ? T::ADDITIONAL_PROPERTIES_ADDED : T::ADDITIONAL_PROPERTIES_REMOVED);
  else if (!o.additional_schema && u.additional_schema)
    ctx.add(T::ADDITIONAL_PROPERTIES_NARROWED);
  else if (o.additional_schema && !u.additional_schema)
    ctx.add(T::ADDITIONAL_PROPERTIES_EXTENDED);
  else
    compare_nodes(ctx, o.additional_schema, u.additional_schema);
}

}  // namespace

// unevaluatedProperties and unevaluatedItems: absent, false, true or a schema.
void compare_unevaluated(DiffContext& ctx, const char* keyword, const Node* o, const Node* u, T added, T removed,
                         T extended, T narrowed) {
  if (!o && !u) return;
  DiffContext::Scope s(ctx, keyword);
  const bool of = o && o->kind == NodeKind::kFalse, uf = u && u->kind == NodeKind::kFalse;
  if (!o) return ctx.add(uf ? removed : narrowed);
  if (!u) return ctx.add(of ? added : extended);
  if (of && !uf) return ctx.add(added);
  if (!of && uf) return ctx.add(removed);
  if (is_empty_schema(o) && !is_empty_schema(u)) return ctx.add(narrowed);
  if (!is_empty_schema(o) && is_empty_schema(u)) return ctx.add(extended);
  compare_nodes(ctx, o, u);
}

void compare_object(DiffContext& ctx, const Node& original, const Node& update) {
  const ObjectFacet& o = original.object;
  const ObjectFacet& u = update.object;
  compare_required(ctx, o, u);
  compare_properties(ctx, o, u);
  compare_dependencies(ctx, o, u);
  compare_additional(ctx, o, u);
  compare_unevaluated(ctx, "unevaluatedProperties", o.unevaluated, u.unevaluated, T::UNEVALUATED_PROPERTIES_ADDED,
                      T::UNEVALUATED_PROPERTIES_REMOVED, T::UNEVALUATED_PROPERTIES_EXTENDED,
                      T::UNEVALUATED_PROPERTIES_NARROWED);
  compare_bound(ctx, "maxProperties", o.max_properties, u.max_properties, T::MAX_PROPERTIES_ADDED,
                T::MAX_PROPERTIES_REMOVED, T::MAX_PROPERTIES_INCREASED, T::MAX_PROPERTIES_DECREASED);
  compare_bound(ctx, "minProperties", o.min_properties, u.min_properties, T::MIN_PROPERTIES_ADDED,
                T::MIN_PROPERTIES_REMOVED, T::MIN_PROPERTIES_INCREASED, T::MIN_PROPERTIES_DECREASED);
}

}  // namespace skiff::schema::json
