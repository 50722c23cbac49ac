// Protobuf compatibility as Confluent's protobuf-provider decides it
// (io.confluent.kafka.schemaregistry.protobuf.diff: SchemaDiff,
// MessageSchemaDiff, FieldSchemaDiff, EnumSchemaDiff, Difference): the
// differences between an original (the writer, the older schema) and an
// update (the reader, the new one), each a Difference.Type at a path
// ("#/Message/Nested/3", a oneof's name before its field's number), and
// which of them are compatible (SchemaDiff.COMPATIBLE_CHANGES).
//
// Messages are compared by name in each scope, fields by number, with
// Confluent's scalar groups (int32/int64/uint32/uint64/bool/enum;
// sint32/sint64; string/bytes; fixed32/sfixed32; fixed64/sfixed64; float;
// double), its oneof rules and its labels (Wire's: none for a proto3
// field without one, a oneof member or a map). A message-typed field whose
// type comes from a referenced file of another subject or version, or from
// a well-known type, is compared into that type, as Confluent does; the
// messages of one schema are compared where they are declared.
//
// Threads: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "schema/protobuf/proto_pool.h"

namespace skiff::schema::protobuf {

// Difference.Type, in Confluent's order.
enum class DiffType {
  kPackageChanged,
  kMessageAdded,
  kMessageRemoved,
  kMessageMoved,
  kEnumAdded,
  kEnumRemoved,
  kEnumConstAdded,
  kEnumConstChanged,
  kEnumConstRemoved,
  kFieldAdded,
  kFieldRemoved,
  kFieldNameChanged,
  kFieldKindChanged,
  kFieldScalarKindChanged,
  kFieldNamedTypeChanged,
  kFieldNumericLabelChanged,
  kFieldStringOrBytesLabelChanged,
  kRequiredFieldAdded,
  kRequiredFieldRemoved,
  kOneofAdded,
  kOneofRemoved,
  kOneofFieldAdded,
  kOneofFieldRemoved,
  kOneofFieldMovedToTopLevel,
  kMultipleFieldsMovedToOneof,
  kFieldMovedToExistingOneof,
};

struct Difference {
  DiffType type;
  std::string path;  // "#/Message/3"
  bool operator==(const Difference&) const = default;
};

std::string_view diff_type_name(DiffType type);  // "FIELD_KIND_CHANGED"
bool is_compatible_change(DiffType type);

// Difference.toString(): {errorType:"FIELD_KIND_CHANGED", description:"..."}
// (Confluent leaves its "%s" placeholders unfilled; so does this).
std::string describe(const Difference& difference);

// SchemaDiff.compare(original, update): every difference, compatible or not.
std::vector<Difference> compare_schemas(const BuiltSchema& original, const BuiltSchema& update);

}  // namespace skiff::schema::protobuf
