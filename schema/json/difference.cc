#include "schema/json/difference.h"

#include <initializer_list>

namespace skiff::schema::json {

namespace {

using T = DiffType;

bool in(T t, std::initializer_list<T> set) {
  for (T x : set)
    if (x == t) return true;
  return false;
}

// Confluent's SchemaDiff.COMPATIBLE_CHANGES_STRICT.
constexpr T kStrictCompatible[] = {
    T::ID_CHANGED,
    T::DESCRIPTION_CHANGED,
    T::TITLE_CHANGED,
    T::DEFAULT_CHANGED,
    T::SCHEMA_REMOVED,
    T::TYPE_EXTENDED,
    T::MAX_LENGTH_INCREASED,
    T::MAX_LENGTH_REMOVED,
    T::MIN_LENGTH_DECREASED,
    T::MIN_LENGTH_REMOVED,
    T::PATTERN_REMOVED,
    T::MAXIMUM_INCREASED,
    T::MAXIMUM_REMOVED,
    T::MINIMUM_DECREASED,
    T::MINIMUM_REMOVED,
    T::EXCLUSIVE_MAXIMUM_INCREASED,
    T::EXCLUSIVE_MAXIMUM_REMOVED,
    T::EXCLUSIVE_MINIMUM_DECREASED,
    T::EXCLUSIVE_MINIMUM_REMOVED,
    T::MULTIPLE_OF_REDUCED,
    T::MULTIPLE_OF_REMOVED,
    T::REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED,
    T::REQUIRED_ATTRIBUTE_REMOVED,
    T::DEPENDENCY_ARRAY_NARROWED,
    T::DEPENDENCY_ARRAY_REMOVED,
    T::DEPENDENCY_SCHEMA_REMOVED,
    T::MAX_PROPERTIES_INCREASED,
    T::MAX_PROPERTIES_REMOVED,
    T::MIN_PROPERTIES_DECREASED,
    T::MIN_PROPERTIES_REMOVED,
    T::ADDITIONAL_PROPERTIES_ADDED,
    T::ADDITIONAL_PROPERTIES_EXTENDED,
    T::UNEVALUATED_PROPERTIES_ADDED,
    T::UNEVALUATED_PROPERTIES_EXTENDED,
    T::PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL,
    T::REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL,
    T::OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL,
    T::PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    T::PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL,
    T::PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    T::PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    T::MAX_ITEMS_INCREASED,
    T::MAX_ITEMS_REMOVED,
    T::MIN_ITEMS_DECREASED,
    T::MIN_ITEMS_REMOVED,
    T::MAX_CONTAINS_INCREASED,
    T::MAX_CONTAINS_REMOVED,
    T::MIN_CONTAINS_DECREASED,
    T::MIN_CONTAINS_REMOVED,
    T::UNIQUE_ITEMS_REMOVED,
    T::ADDITIONAL_ITEMS_ADDED,
    T::ADDITIONAL_ITEMS_EXTENDED,
    T::UNEVALUATED_ITEMS_ADDED,
    T::UNEVALUATED_ITEMS_EXTENDED,
    T::ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL,
    T::ITEM_ADDED_TO_CLOSED_CONTENT_MODEL,
    T::ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    T::ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL,
    T::ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    T::ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    T::ENUM_ARRAY_EXTENDED,
    T::COMBINED_TYPE_EXTENDED,
    T::PRODUCT_TYPE_NARROWED,
    T::SUM_TYPE_EXTENDED,
    T::NOT_TYPE_NARROWED,
};

bool strict_compatible(T t) {
  for (T x : kStrictCompatible)
    if (x == t) return true;
  return false;
}

bool lenient_only(T t) {
  return in(
      t, {T::ADDITIONAL_PROPERTIES_NARROWED, T::ADDITIONAL_PROPERTIES_REMOVED, T::UNEVALUATED_PROPERTIES_NARROWED,
          T::UNEVALUATED_PROPERTIES_REMOVED, T::REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL,
          T::OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, T::PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL,
          T::PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL, T::PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
          T::PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL});
}

// The description templates, by the family of change (Confluent's wording).
std::string keyword_text(T t, const std::string& p) {
  if (in(t, {T::MAXIMUM_ADDED,
             T::MINIMUM_ADDED,
             T::EXCLUSIVE_MAXIMUM_ADDED,
             T::EXCLUSIVE_MINIMUM_ADDED,
             T::MULTIPLE_OF_ADDED,
             T::MAX_LENGTH_ADDED,
             T::MIN_LENGTH_ADDED,
             T::PATTERN_ADDED,
             T::REQUIRED_ATTRIBUTE_ADDED,
             T::MAX_PROPERTIES_ADDED,
             T::MIN_PROPERTIES_ADDED,
             T::DEPENDENCY_ARRAY_ADDED,
             T::DEPENDENCY_SCHEMA_ADDED,
             T::MAX_ITEMS_ADDED,
             T::MIN_ITEMS_ADDED,
             T::MAX_CONTAINS_ADDED,
             T::MIN_CONTAINS_ADDED,
             T::UNIQUE_ITEMS_ADDED,
             T::ADDITIONAL_ITEMS_REMOVED,
             T::ADDITIONAL_PROPERTIES_REMOVED,
             T::UNEVALUATED_PROPERTIES_REMOVED,
             T::UNEVALUATED_ITEMS_REMOVED}))
    return "The keyword at path '" + p + "' in the %s schema is not present in the %s schema";
  if (in(t, {T::MIN_LENGTH_INCREASED, T::MINIMUM_INCREASED, T::EXCLUSIVE_MINIMUM_INCREASED, T::MIN_PROPERTIES_INCREASED,
             T::MULTIPLE_OF_EXPANDED, T::MIN_ITEMS_INCREASED, T::MIN_CONTAINS_INCREASED}))
    return "The value at path '" + p + "' in the %s schema is more than its value in the %s schema";
  if (in(t, {T::MAX_LENGTH_DECREASED, T::MAXIMUM_DECREASED, T::MAX_ITEMS_DECREASED, T::MAX_CONTAINS_DECREASED,
             T::EXCLUSIVE_MAXIMUM_DECREASED, T::MAX_PROPERTIES_DECREASED}))
    return "The value at path '" + p + "' in the %s schema is less than its value in the %s schema";
  if (in(t, {T::PATTERN_CHANGED, T::MULTIPLE_OF_CHANGED, T::DEPENDENCY_ARRAY_CHANGED}))
    return "The value at path '" + p + "' is different between the %s and %s schema";
  if (in(t, {T::ADDITIONAL_ITEMS_NARROWED, T::ENUM_ARRAY_NARROWED, T::SUM_TYPE_NARROWED,
             T::ADDITIONAL_PROPERTIES_NARROWED, T::UNEVALUATED_PROPERTIES_NARROWED, T::UNEVALUATED_ITEMS_NARROWED}))
    return "An array or combined type at path '" + p + "' has fewer elements in the %s schema than the %s schema";
  if (in(t, {T::DEPENDENCY_ARRAY_EXTENDED, T::PRODUCT_TYPE_EXTENDED, T::SUM_TYPE_EXTENDED, T::NOT_TYPE_EXTENDED}))
    return "An array or combined type at path '" + p + "' has more elements in the %s schema than the %s schema";
  if (in(t, {T::TYPE_CHANGED, T::TYPE_NARROWED, T::COMBINED_TYPE_CHANGED, T::COMBINED_TYPE_SUBSCHEMAS_CHANGED,
             T::ENUM_ARRAY_CHANGED}))
    return "A type at path '" + p + "' is different between the %s schema and the %s schema";
  return {};
}

std::string property_text(T t, const std::string& p) {
  if (in(t, {T::REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL,
             T::REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL,
             T::OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, T::ITEM_ADDED_TO_OPEN_CONTENT_MODEL}))
    return "The %s schema has an open content model and has a property or item at path '" + p +
           "' which is missing in the %s schema";
  if (t == T::REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL)
    return "The %s schema has an unopen content model and has a required property at path '" + p +
           "' which is missing in the %s schema";
  if (in(t, {T::PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL, T::ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL}))
    return "The %s has a closed content model and is missing a property or item present at path '" + p +
           "' in the %s schema";
  if (in(t, {T::PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
             T::ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL}))
    return "A property or item is missing in the %s schema but present at path '" + p +
           "' in the %s schema and is not covered by its partially open content model";
  if (in(t, {T::PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
             T::ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL}))
    return "The %s schema has a property or item at path '" + p +
           "' which is missing in the %s schema and is not covered by its partially open content model";
  if (t == T::RESERVED_PROPERTY_REMOVED)
    return "The %s schema has reserved property '" + p +
           "' removed from its metadata which is present in the %s schema.";
  if (t == T::RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY)
    return "The %s schema has property at path '" + p +
           "' that conflicts with the reserved properties which is missing in the %s schema.";
  return {};
}

}  // namespace

std::string_view diff_type_name(DiffType t) {
  switch (t) {
#define SKIFF_JSON_DIFF_NAME(name) \
  case DiffType::name:             \
    return #name;
    SKIFF_JSON_DIFF_TYPES(SKIFF_JSON_DIFF_NAME)
#undef SKIFF_JSON_DIFF_NAME
  }
  return "";
}

bool is_compatible_change(DiffType t, CompatibilityPolicy policy) {
  return strict_compatible(t) || (policy == CompatibilityPolicy::kLenient && lenient_only(t));
}

std::string Difference::message() const {
  std::string description = keyword_text(type, path);
  if (description.empty()) description = property_text(type, path);
  return "{errorType:\"" + std::string(diff_type_name(type)) + "\", description:\"" + description + "'}";
}

}  // namespace skiff::schema::json
