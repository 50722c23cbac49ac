// Array schemas (Confluent's ArraySchemaDiff): items (one schema or a
// tuple, whose extra positions are judged by the other side's content
// model: additionalItems, unevaluatedItems), min/maxItems, uniqueItems,
// min/maxContains.
#include <string>

#include "schema/json/diff_internal.h"

namespace skiff::schema::json {

namespace {

using T = DiffType;

bool is_open(const ArrayFacet& f) {
  if (!f.additional_items || f.additional_schema) return false;
  return !f.unevaluated || is_empty_schema(f.unevaluated);
}

const Node* partially_open_schema(const ArrayFacet& f) {
  if (f.additional_schema) return f.additional_schema;
  if (f.additional_items && f.unevaluated && f.unevaluated->kind != NodeKind::kFalse && !is_empty_schema(f.unevaluated))
    return f.unevaluated;
  return nullptr;
}

void with_partial(DiffContext& ctx, const Node* original, const Node* update, T covered, T not_covered) {
  DiffContext sub = ctx.sub();
  compare_nodes(sub, original, update);
  ctx.add_all(sub.diffs());
  ctx.add(sub.compatible() ? covered : not_covered);
}

void item_removed(DiffContext& ctx, const Node* was, const ArrayFacet& u) {
  if (is_open(u)) return ctx.add(T::ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL);
  if (const Node* partial = partially_open_schema(u))
    return with_partial(ctx, was, partial, T::ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                        T::ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
  ctx.add(was->kind == NodeKind::kFalse ? T::ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
                                        : T::ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL);
}

void item_added(DiffContext& ctx, const Node* is, const ArrayFacet& o) {
  if (is_open(o))
    return ctx.add(is_empty_schema(is) ? T::ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
                                       : T::ITEM_ADDED_TO_OPEN_CONTENT_MODEL);
  if (const Node* partial = partially_open_schema(o))
    return with_partial(ctx, partial, is, T::ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                        T::ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
  ctx.add(T::ITEM_ADDED_TO_CLOSED_CONTENT_MODEL);
}

void compare_tuple(DiffContext& ctx, const ArrayFacet& o, const ArrayFacet& u) {
  const size_t common = std::min(o.item_schemas.size(), u.item_schemas.size());
  for (size_t i = 0; i < std::max(o.item_schemas.size(), u.item_schemas.size()); ++i) {
    DiffContext::Scope s(ctx, "items/" + std::to_string(i));
    if (i < common)
      compare_nodes(ctx, o.item_schemas[i], u.item_schemas[i]);
    else if (i < o.item_schemas.size())
      item_removed(ctx, o.item_schemas[i], u);
    else
      item_added(ctx, u.item_schemas[i], o);
  }
}

void compare_additional(DiffContext& ctx, const ArrayFacet& o, const ArrayFacet& u) {
  DiffContext::Scope s(ctx, "additionalItems");
  if (o.additional_items != u.additional_items)
    ctx.add(o.additional_items ? T::ADDITIONAL_ITEMS_REMOVED : T::ADDITIONAL_ITEMS_ADDED);
  else if (!o.additional_schema && u.additional_schema)
    ctx.add(T::ADDITIONAL_ITEMS_NARROWED);
  else if (o.additional_schema && !u.additional_schema)
    ctx.add(T::ADDITIONAL_ITEMS_EXTENDED);
  else
    compare_nodes(ctx, o.additional_schema, u.additional_schema);
}

void compare_attributes(DiffContext& ctx, const ArrayFacet& o, const ArrayFacet& u) {
  compare_bound(ctx, "maxItems", o.max_items, u.max_items, T::MAX_ITEMS_ADDED, T::MAX_ITEMS_REMOVED,
                T::MAX_ITEMS_INCREASED, T::MAX_ITEMS_DECREASED);
  compare_bound(ctx, "minItems", o.min_items, u.min_items, T::MIN_ITEMS_ADDED, T::MIN_ITEMS_REMOVED,
                T::MIN_ITEMS_INCREASED, T::MIN_ITEMS_DECREASED);
  if (o.unique_items != u.unique_items)
    ctx.add("uniqueItems", o.unique_items ? T::UNIQUE_ITEMS_REMOVED : T::UNIQUE_ITEMS_ADDED);
  compare_bound(ctx, "maxContains", o.max_contains, u.max_contains, T::MAX_CONTAINS_ADDED, T::MAX_CONTAINS_REMOVED,
                T::MAX_CONTAINS_INCREASED, T::MAX_CONTAINS_DECREASED);
  compare_bound(ctx, "minContains", o.min_contains, u.min_contains, T::MIN_CONTAINS_ADDED, T::MIN_CONTAINS_REMOVED,
                T::MIN_CONTAINS_INCREASED, T::MIN_CONTAINS_DECREASED);
}

}  // namespace

void compare_array(DiffContext& ctx, const Node& original, const Node& update) {
  const ArrayFacet& o = original.array;
  const ArrayFacet& u = update.array;
  {
    DiffContext::Scope s(ctx, "items");
    compare_nodes(ctx, o.all_items, u.all_items);
  }
  compare_tuple(ctx, o, u);
  compare_additional(ctx, o, u);
  compare_unevaluated(ctx, "unevaluatedItems", o.unevaluated, u.unevaluated, T::UNEVALUATED_ITEMS_ADDED,
                      T::UNEVALUATED_ITEMS_REMOVED, T::UNEVALUATED_ITEMS_EXTENDED, T::UNEVALUATED_ITEMS_NARROWED);
  compare_attributes(ctx, o, u);
}

}  // namespace skiff::schema::json
