// JSON to Avro binary, for the REST proxy's "avro" embedded format: a value
// in Avro's JSON encoding, as a client posts it, written in Avro's binary
// encoding (the payload after Confluent's 5-byte header), byte for byte as
// Confluent's REST Proxy writes it: AvroSchemaUtils.toObject reads the JSON
// with Avro Java's JsonDecoder into generic data (no logical-type
// conversions) and KafkaAvroSerializer writes that with a
// GenericDatumWriter. So, as JsonDecoder reads it:
//  - null is JSON null; boolean true/false; int and long a JSON integer in
//    range, or a number with a fraction that is integral ("1.0", "1e2");
//    float and double any number, or the strings "NaN", "Infinity", "INF",
//    "-Infinity", "-INF";
//  - string a JSON string; bytes and fixed a string whose characters are the
//    bytes (U+0000..U+00FF; any other character becomes '?', as Java's
//    String.getBytes(ISO_8859_1) makes it); a fixed of exactly its size;
//  - enum a symbol; array a JSON array; map a JSON object (a repeated key
//    keeps its first place and its last value);
//  - union: null, or {"<branch's full name>": value} (members after the
//    first ignored);
//  - record: an object with every field by name or alias, in any order (no
//    defaults are filled in: JsonDecoder supplies none). A member the record
//    does not name is ignored when it follows all the fields; before the
//    last field it is an error ("unknown fields"), except where JsonDecoder
//    never checks, at the very end of the value;
//  - logical types are their underlying types.
// Binary layout (Avro 1.12): int/long zig-zag varints, float/double
// little-endian IEEE 754, bytes/string a long length then the bytes, fixed
// its bytes, enum and union an int index, arrays and maps one block (a long
// count, the items; map keys as strings) then a zero count (an empty one just
// the zero), record fields in order. Map entries are written in the order
// GenericData's HashMap iterates them: by String-hash bucket, as Java.
// Errors name the value's place ("$.a.b[2]", "$.m[\"k\"]"). Bounded by
// AvroEncodeLimits (nesting, output bytes). Pure; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "common/json.h"
#include "schema/avro/avro_model.h"

namespace skiff::schema::avro {

struct AvroEncodeLimits {
  int max_depth = 100;            // nested records, arrays, maps and unions
  size_t max_output = 16u << 20;  // bytes of Avro
};

Expected<std::string, std::string> json_to_avro(const Node* schema, const JsonValue& json,
                                                const AvroEncodeLimits& limits = {});

// The order in which Java's `new HashMap<>(1)` iterates `keys` (UTF-8,
// distinct) put in this order, hashed as Avro's Utf8.hashCode() hashes
// them: their indexes into `keys`.
std::vector<size_t> java_hash_map_order(const std::vector<std::string_view>& keys);

}  // namespace skiff::schema::avro
