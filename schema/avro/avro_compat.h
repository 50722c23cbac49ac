// Avro schema compatibility as Apache Avro Java 1.12's
// SchemaCompatibility.checkReaderWriterCompatibility decides it: whether
// data written with `writer` can be read with `reader` (defaults for missing
// fields, numeric promotion, string/bytes, union branches, enum symbols and
// the reader's enum default, fixed sizes, names and the reader's aliases),
// with every incompatibility's type, message and location. Results are
// memoized per (reader node, writer node) as Avro's are, so a recursive
// type terminates and a shared named type reports where it was first met,
// as Java does. Bounded: nesting past kMaxTypeDepth ends the check with an
// exception, as Java's would with a stack overflow.
// Pure; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/avro/avro_model.h"

namespace skiff::schema::avro {

struct Incompatibility {
  std::string type;  // SchemaIncompatibilityType: "NAME_MISMATCH", "TYPE_MISMATCH", ...
  std::string message;
  std::vector<std::string> location;  // from the root token ""

  // Incompatibility.getLocation(): a JSON pointer, "/fields/1/type".
  std::string path() const;
};

struct CompatibilityResult {
  bool compatible = true;
  std::vector<Incompatibility> incompatibilities;
  std::optional<std::string> exception;  // the check threw (Avro's message)
};

CompatibilityResult check_compatibility(const Node* reader, const Node* writer);

// Confluent's AvroSchema.isBackwardCompatible lines for a result: one
// "{errorType:'...', description:'...', additionalInfo:'...'}" per
// incompatibility, the description with Confluent's two "%s" left for the
// reader's and the writer's role ("new", "old").
std::vector<std::string> confluent_differences(const CompatibilityResult& r);

}  // namespace skiff::schema::avro
