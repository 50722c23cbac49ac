// Confluent's AvroSchema.normalize() text (AvroSchemaUtils.toNormalizedString,
// adapted by Confluent from Avro's SchemaNormalization): every named type by
// its full name, written once; properties, aliases and the members of
// object values sorted; valid logical types' attributes first; defaults
// converted through their field's type (a double's 1 becomes 1.0, bytes
// keep Latin-1). The registry re-parses this text and stores its canonical
// form. Names in `known` (the referenced schemas' full names) are written
// by name only. Pure; any thread.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "schema/avro/avro_model.h"

namespace skiff::schema::avro {

// None where Confluent's normalize() would throw (a default or property
// Java cannot convert).
std::optional<std::string> normalized_text(const Node* root, const std::set<std::string, std::less<>>& known);

}  // namespace skiff::schema::avro
