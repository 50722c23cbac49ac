// The kinds of change Confluent's JSON Schema diff reports (its
// Difference.Type names, which are the errorType of a compatibility
// message), which of them are compatible (STRICT, the default policy, or
// LENIENT), and the message Confluent prints for one:
//   {errorType:"TYPE_CHANGED", description:"A type at path '#/properties/a'
//    is different between the %s schema and the %s schema'}
// The two %s are left for the registry to fill as Confluent's
// SchemaValidatorBuilder does: with "new" and "old" for a backward check
// (the reader first), "old" and "new" for a forward one.
// Threads: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace skiff::schema::json {

#define SKIFF_JSON_DIFF_TYPES(X)                                                                                                                                         \
  X(ID_CHANGED)                                                                                                                                                          \
  X(DESCRIPTION_CHANGED) X(TITLE_CHANGED) X(DEFAULT_CHANGED) X(SCHEMA_ADDED) X(SCHEMA_REMOVED) X(TYPE_EXTENDED) X(                                                       \
      TYPE_NARROWED) X(TYPE_CHANGED) X(MAX_LENGTH_ADDED) X(MAX_LENGTH_REMOVED) X(MAX_LENGTH_INCREASED) X(MAX_LENGTH_DECREASED)                                           \
      X(MIN_LENGTH_ADDED) X(MIN_LENGTH_REMOVED) X(MIN_LENGTH_INCREASED) X(MIN_LENGTH_DECREASED) X(PATTERN_ADDED) X(                                                      \
          PATTERN_REMOVED) X(PATTERN_CHANGED) X(MAXIMUM_ADDED) X(MAXIMUM_REMOVED) X(MAXIMUM_INCREASED) X(MAXIMUM_DECREASED)                                              \
          X(MINIMUM_ADDED) X(MINIMUM_REMOVED) X(MINIMUM_INCREASED) X(MINIMUM_DECREASED) X(EXCLUSIVE_MAXIMUM_ADDED) X(                                                    \
              EXCLUSIVE_MAXIMUM_REMOVED) X(EXCLUSIVE_MAXIMUM_INCREASED) X(EXCLUSIVE_MAXIMUM_DECREASED) X(EXCLUSIVE_MINIMUM_ADDED)                                        \
              X(EXCLUSIVE_MINIMUM_REMOVED) X(EXCLUSIVE_MINIMUM_INCREASED) X(EXCLUSIVE_MINIMUM_DECREASED) X(MULTIPLE_OF_ADDED) X(                                         \
                  MULTIPLE_OF_REMOVED) X(MULTIPLE_OF_EXPANDED) X(MULTIPLE_OF_REDUCED) X(MULTIPLE_OF_CHANGED) X(REQUIRED_ATTRIBUTE_ADDED)                                 \
                  X(REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED) X(REQUIRED_ATTRIBUTE_REMOVED) X(MAX_PROPERTIES_ADDED) X(                                                      \
                      MAX_PROPERTIES_REMOVED) X(MAX_PROPERTIES_INCREASED) X(MAX_PROPERTIES_DECREASED) X(MIN_PROPERTIES_ADDED)                                            \
                      X(MIN_PROPERTIES_REMOVED) X(MIN_PROPERTIES_INCREASED) X(MIN_PROPERTIES_DECREASED) X(ADDITIONAL_PROPERTIES_ADDED) X(                                \
                          ADDITIONAL_PROPERTIES_REMOVED) X(ADDITIONAL_PROPERTIES_EXTENDED) X(ADDITIONAL_PROPERTIES_NARROWED)                                             \
                          X(DEPENDENCY_ARRAY_ADDED) X(DEPENDENCY_ARRAY_REMOVED) X(DEPENDENCY_ARRAY_EXTENDED) X(                                                          \
                              DEPENDENCY_ARRAY_NARROWED) X(DEPENDENCY_ARRAY_CHANGED) X(DEPENDENCY_SCHEMA_ADDED)                                                          \
                              X(DEPENDENCY_SCHEMA_REMOVED) X(PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL) X(                                                                    \
                                  REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL) X(REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL)                           \
                                  X(OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL) X(PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL) X(                          \
                                      REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL) X(REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL)                   \
                                      X(OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL) X(PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL) X(                                  \
                                          PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL) X(PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL)                           \
                                          X(PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(                                                              \
                                              PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) \
                                              X(PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(                                                           \
                                                  RESERVED_PROPERTY_REMOVED) X(RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY) X(UNEVALUATED_PROPERTIES_ADDED)                \
                                                  X(UNEVALUATED_PROPERTIES_REMOVED) X(UNEVALUATED_PROPERTIES_EXTENDED) X(                                                \
                                                      UNEVALUATED_PROPERTIES_NARROWED) X(MAX_ITEMS_ADDED) X(MAX_ITEMS_REMOVED)                                           \
                                                      X(MAX_ITEMS_INCREASED) X(MAX_ITEMS_DECREASED) X(MIN_ITEMS_ADDED) X(                                                \
                                                          MIN_ITEMS_REMOVED) X(MIN_ITEMS_INCREASED) X(MIN_ITEMS_DECREASED)                                               \
                                                          X(MAX_CONTAINS_ADDED) X(MAX_CONTAINS_REMOVED) X(                                                               \
                                                              MAX_CONTAINS_INCREASED) X(MAX_CONTAINS_DECREASED)                                                          \
                                                              X(MIN_CONTAINS_ADDED) X(MIN_CONTAINS_REMOVED) X(MIN_CONTAINS_INCREASED) X(                                 \
                                                                  MIN_CONTAINS_DECREASED) X(UNIQUE_ITEMS_ADDED) X(UNIQUE_ITEMS_REMOVED)                                  \
                                                                  X(ADDITIONAL_ITEMS_ADDED) X(ADDITIONAL_ITEMS_REMOVED) X(                                               \
                                                                      ADDITIONAL_ITEMS_EXTENDED) X(ADDITIONAL_ITEMS_NARROWED) X(UNEVALUATED_ITEMS_ADDED)                 \
                                                                      X(UNEVALUATED_ITEMS_REMOVED) X(UNEVALUATED_ITEMS_EXTENDED) X(                                      \
                                                                          UNEVALUATED_ITEMS_NARROWED) X(ITEM_ADDED_TO_OPEN_CONTENT_MODEL)                                \
                                                                          X(ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL) X(                                       \
                                                                              ITEM_ADDED_TO_CLOSED_CONTENT_MODEL) X(ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL)                \
                                                                              X(ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL) X(                                    \
                                                                                  ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL)                                                \
                                                                                  X(ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(                          \
                                                                                      ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL)                          \
                                                                                      X(ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(                        \
                                                                                          ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL)                        \
                                                                                          X(ENUM_ARRAY_EXTENDED) X(                                                      \
                                                                                              ENUM_ARRAY_NARROWED) X(ENUM_ARRAY_CHANGED)                                 \
                                                                                              X(COMBINED_TYPE_EXTENDED) X(                                               \
                                                                                                  COMBINED_TYPE_CHANGED)                                                 \
                                                                                                  X(PRODUCT_TYPE_EXTENDED) X(                                            \
                                                                                                      PRODUCT_TYPE_NARROWED)                                             \
                                                                                                      X(SUM_TYPE_EXTENDED) X(                                            \
                                                                                                          SUM_TYPE_NARROWED)                                             \
                                                                                                          X(COMBINED_TYPE_SUBSCHEMAS_CHANGED)                            \
                                                                                                              X(NOT_TYPE_EXTENDED)                                       \
                                                                                                                  X(NOT_TYPE_NARROWED)

enum class DiffType {
#define SKIFF_JSON_DIFF_ENUM(name) name,
  SKIFF_JSON_DIFF_TYPES(SKIFF_JSON_DIFF_ENUM)
#undef SKIFF_JSON_DIFF_ENUM
};

enum class CompatibilityPolicy { kStrict, kLenient };

std::string_view diff_type_name(DiffType t);
bool is_compatible_change(DiffType t, CompatibilityPolicy policy);

struct Difference {
  DiffType type;
  std::string path;  // "#/properties/a"

  // Confluent's Difference.toString(), placeholders included.
  std::string message() const;
  bool operator==(const Difference& o) const { return type == o.type && path == o.path; }
};

}  // namespace skiff::schema::json
