// Avro binary to JSON, for the web console's message browser: a value
// written with an Avro schema (the payload of Confluent's wire format,
// after its magic byte and 4-byte schema id) decoded into Avro's JSON
// encoding: records as objects, bytes and fixed as strings of the code
// points U+0000..U+00FF, enums as their symbol, a union's value as null or
// {"<branch type's name>": value}, as Avro Java's JsonEncoder writes them
// (characters beyond the BMP as "\uD83D\uDE00" surrogate escapes, numbers
// as Java prints them, NaN and Infinity quoted). Strings that are not UTF-8
// have their bad bytes written as U+FFFD, so the output is always valid JSON.
//
// Binary layout (Avro specification 1.12): int and long as zig-zag varints
// (at most 5 and 10 bytes), float and double little-endian IEEE 754, bytes
// and string a long length then the bytes, fixed its size in bytes, enum
// and union an int index, arrays and maps blocks of a long count (negative:
// its absolute value, then a long byte size) ending with a zero count, map
// keys strings, record fields in order.
//
// Bounded by `AvroDecodeLimits`: nesting, output size and item counts
// (a block of zero-byte items cannot make the output grow past the limit).
// Pure; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/expected.h"
#include "schema/avro/avro_model.h"

namespace skiff::schema::avro {

struct AvroDecodeLimits {
  size_t max_output = 4 << 20;  // bytes of JSON
  int max_depth = 100;          // nested records, arrays, maps and unions
};

struct AvroDecoded {
  std::string json;
  size_t consumed = 0;  // bytes of `data` read; the rest follows the value
};

// The error says what was wrong and at which byte offset.
Expected<AvroDecoded, std::string> avro_to_json(const Node* schema, std::string_view data,
                                                const AvroDecodeLimits& limits = {});

}  // namespace skiff::schema::avro
