// Prints a Protobuf schema as Confluent's ProtobufSchema.canonicalString()
// does: Square Wire's ProtoFileElement layout as Confluent's
// ProtobufSchemaUtils.toString lays it out (syntax, package, imports,
// options; messages then enums; extends; services; each message with its
// reserved names, options, fields, oneofs, groups, extension ranges,
// extends and nested types, in that order, two spaces per level), from the
// unbuilt FileDescriptorProto of proto_text.h (names as written, options in
// their order, maps as map<K, V>).
//
// print_normalized is Confluent's normalize(): proto2's syntax line left
// out, imports sorted, types and custom option names fully qualified,
// fields, enum constants, reserved and extension ranges sorted by number,
// options sorted and merged; it needs the built file to resolve names.
//
// What a FileDescriptorProto no longer knows is read from libprotoc's
// source info (proto_spans.h: the statement of each reserved or extension
// range) or printed one way (numbers in options as libprotoc read them,
// consecutive extend blocks of one extendee as one).
//
// Threads: pure functions.
#pragma once

#include <string>

#include "schema/protobuf/proto_pool.h"

namespace skiff::schema::protobuf {

// A schema that came as a serialized FileDescriptorProto prints as
// Confluent's ProtobufSchema.toProtoFile converts one: map entries as the
// nested messages they are (with `option map_entry = true;`), each reserved
// or extension range in a statement of its own, the options it knows in its
// order then its custom ones (proto_custom_options.h), the fields of one
// extendee in one block.
std::string print_canonical(const BuiltSchema& schema);
std::string print_normalized(const BuiltSchema& schema);

}  // namespace skiff::schema::protobuf
