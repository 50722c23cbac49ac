// Encodes a value posted as JSON into a Protobuf record value framed as
// Confluent's serializer frames it, for the REST proxy's "protobuf"
// embedded format (the inverse of protobuf_decode.h).
//
// The message: `message_name` as a full name ("pkg.Outer.Inner", a leading
// '.' allowed) or relative to the file's package ("Outer.Inner"); empty,
// the file's first message, as Confluent's ProtobufSchema.toDescriptor()
// picks it. The JSON is protobuf's canonical JSON mapping, read by
// libprotobuf's JsonStringToMessage into a DynamicMessage (as Confluent's
// REST Proxy reads it with Java's JsonFormat.parser()): fields by json_name
// or by their .proto name, 64-bit integers as numbers or strings, enums by
// name or number, bytes as base64, repeated fields as arrays, maps as
// objects, well-known types in their JSON forms, at most one member of a
// oneof; a member the message does not have is an error.
//
// Byte layout of the result (what follows the 5-byte header): the message
// indexes, as protobuf_decode.h reads them (Kafka's zig-zag varints: the
// count, then the index of the message at each nesting level; [0] written
// as the single byte 0), then the message serialized, fields in number
// order, map entries sorted by key (deterministic serialization).
//
// Bounded: nesting as libprotobuf's JSON parser bounds it (100 levels).
// Threads: pure; the schema is only read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "common/json.h"
#include "schema/protobuf/protobuf_schema.h"

namespace skiff::schema::protobuf {

Expected<std::string, std::string> encode_protobuf(const ProtobufSchema& schema, const JsonValue& json,
                                                   std::string_view message_name);

// The message indexes of `type` in its file, counted as Confluent's schema
// lists messages (as protobuf_decode.h reads them back).
std::vector<int32_t> message_indexes(const google::protobuf::Descriptor& type, bool map_entries);

// The indexes as Confluent's serializer writes them ([0] as one 0 byte).
std::string write_message_indexes(const std::vector<int32_t>& indexes);

}  // namespace skiff::schema::protobuf
