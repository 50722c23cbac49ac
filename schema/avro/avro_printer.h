// Apache Avro Java's Schema.toString(): the JSON text of a schema, as
// Confluent stores and serves it. Named types are written in full where
// first met and by name after (names in `known` count as met: Confluent
// passes the full names of the referenced schemas), a namespace only where
// it differs from the enclosing one, properties in the order written.
// Pure functions; any thread.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "schema/avro/avro_model.h"

namespace skiff::schema::avro {

// Appends `n` as Java writes it inside namespace `ns` ("" for none). False
// (with `out` partly written) when the nesting passes `max_depth`.
bool print_schema(const Node* n, std::set<std::string, std::less<>>& known, std::string_view ns, std::string& out,
                  int max_depth = 1000);

// Schema.toString() with no names known.
std::string schema_to_string(const Node* n);

}  // namespace skiff::schema::avro
