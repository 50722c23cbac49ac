// The names and descriptions of proto_diff.h's differences, in
// Confluent's words (Difference.java).
#include <array>

#include "schema/protobuf/proto_diff.h"

namespace skiff::schema::protobuf {

namespace {

constexpr std::array<std::string_view, 26> kNames = {
    "PACKAGE_CHANGED",
    "MESSAGE_ADDED",
    "MESSAGE_REMOVED",
    "MESSAGE_MOVED",
    "ENUM_ADDED",
    "ENUM_REMOVED",
    "ENUM_CONST_ADDED",
    "ENUM_CONST_CHANGED",
    "ENUM_CONST_REMOVED",
    "FIELD_ADDED",
    "FIELD_REMOVED",
    "FIELD_NAME_CHANGED",
    "FIELD_KIND_CHANGED",
    "FIELD_SCALAR_KIND_CHANGED",
    "FIELD_NAMED_TYPE_CHANGED",
    "FIELD_NUMERIC_LABEL_CHANGED",
    "FIELD_STRING_OR_BYTES_LABEL_CHANGED",
    "REQUIRED_FIELD_ADDED",
    "REQUIRED_FIELD_REMOVED",
    "ONEOF_ADDED",
    "ONEOF_REMOVED",
    "ONEOF_FIELD_ADDED",
    "ONEOF_FIELD_REMOVED",
    "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
    "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
    "FIELD_MOVED_TO_EXISTING_ONEOF",
};

// Difference.error(): the description around the path.
std::pair<std::string_view, std::string_view> description(DiffType type) {
  switch (type) {
    case DiffType::kPackageChanged:
      return {"The package at '", "' in the %s schema does not match the package in the %s schema"};
    case DiffType::kMessageRemoved:
      return {"The %s schema is missing a MESSAGE type at path '", "' in the %s schema"};
    case DiffType::kFieldKindChanged:
      return {"The type of a field at path '", "' in the %s schema does not match the %s schema"};
    case DiffType::kFieldScalarKindChanged:
      return {"The kind of a SCALAR field at path '", "' in the %s schema does not match its kind in the %s schema"};
    case DiffType::kFieldNamedTypeChanged:
      return {"The type of a MESSAGE field at path '", "' in the %s schema does not match its type in the %s schema"};
    case DiffType::kFieldNumericLabelChanged:
      return {"The label for a NUMERIC field at path '",
              "' in the %s schema does not match its label in the %s schema"};
    case DiffType::kRequiredFieldAdded:
      return {"A required field  at path '", "' in the %s schema is missing in the %s schema"};
    case DiffType::kRequiredFieldRemoved:
      return {"The %s schema is missing a required field at path: '", "' in the %s schema"};
    case DiffType::kOneofFieldRemoved:
      return {"The %s schema is missing a oneof field at path '", "' in the %s schema"};
    case DiffType::kOneofFieldMovedToTopLevel:
      return {"The oneof field at path '",
              "' in the %s schema was moved out of its oneof to a top-level field in the %s schema"};
    case DiffType::kMultipleFieldsMovedToOneof:
      return {"Multiple fields in the oneof at path '", "' in the %s schema are outside a oneof in the %s schema"};
    case DiffType::kFieldMovedToExistingOneof:
      return {"A field in the oneof at path '", "' in the %s schema is outside an existing oneof in the %s schema"};
    default:
      return {"", ""};
  }
}

}  // namespace

std::string_view diff_type_name(DiffType type) { return kNames[static_cast<size_t>(type)]; }

bool is_compatible_change(DiffType type) {
  switch (type) {
    case DiffType::kMessageAdded:
    case DiffType::kMessageMoved:
    case DiffType::kEnumAdded:
    case DiffType::kEnumRemoved:
    case DiffType::kEnumConstAdded:
    case DiffType::kEnumConstChanged:
    case DiffType::kEnumConstRemoved:
    case DiffType::kFieldAdded:
    case DiffType::kFieldRemoved:
    case DiffType::kFieldNameChanged:
    case DiffType::kFieldStringOrBytesLabelChanged:
    case DiffType::kOneofAdded:
    case DiffType::kOneofRemoved:
    case DiffType::kOneofFieldAdded:
    case DiffType::kOneofFieldMovedToTopLevel:
      return true;
    default:
      return false;
  }
}

std::string describe(const Difference& difference) {
  auto [before, after] = description(difference.type);
  std::string text =
      before.empty() && after.empty() ? std::string() : std::string(before) + difference.path + std::string(after);
  return "{errorType:\"" + std::string(diff_type_name(difference.type)) + "\", description:\"" + text + "\"}";
}

}  // namespace skiff::schema::protobuf
