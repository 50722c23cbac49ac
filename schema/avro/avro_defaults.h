// Schema.isValidDefault of Apache Avro Java 1.12: whether a field's default
// value fits its type (an int within int range, a union's value fitting any
// branch, a record's fields taken from the value or else from their own
// defaults). A name not yet defined where the field was read counts as a
// record with no fields, as Avro's placeholder does. Bounded: nesting past
// `max_depth` is not valid. Pure; any thread.
#pragma once

#include "schema/avro/avro_model.h"

namespace skiff::schema::avro {

bool is_valid_default(const Node* schema, const AvroJson& value, int max_depth = 1000);

}  // namespace skiff::schema::avro
