// Reading a schema text's JSON as Avro Java's Jackson reads it: one value,
// with /* */ and // comments allowed (ALLOW_COMMENTS), and whatever follows
// that value kept apart ("dangling content", refused by the parser after the
// schema itself is read). The text must be UTF-8. Bounded: nesting deeper
// than `max_depth` is refused; linear time. Pure; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "schema/avro/avro_json.h"

namespace skiff::schema::avro {

struct SchemaText {
  std::optional<AvroJson> value;  // none: the text holds no value (Avro: "Cannot parse <null> schema")
  std::string dangling;           // what follows the value, as Java's String.trim() leaves it
  std::string error;              // set when the text is not one JSON value
};

SchemaText read_schema_text(std::string_view text, int max_depth);

}  // namespace skiff::schema::avro
