// JSON Schema documents for the Schema Registry, as Confluent's
// json-schema-provider serves them (schemaType "JSON"):
//  - parse: the text must be JSON (else "Invalid JSON schema: ...") whose
//    root is an object or a boolean, and load as a schema of its draft
//    (`$schema`: draft-04, -06, -07, 2019-09, 2020-12; draft-07 when absent
//    or unknown) with its `$ref`s resolved in the document or to the
//    registered references (else "Invalid JSON: <location>: <why>");
//  - canonical(): Jackson's compact text of the document (jackson_text.h);
//  - normalized(): the same with object members sorted;
//  - incompatibilities(writer): Confluent's diff (schema_diff.h) under the
//    STRICT policy, one "{errorType:...}" line per incompatible change, its
//    two %s for the registry to fill with "new"/"old" as Confluent does.
// Threads: the parsed schema is immutable; use from any thread.
#pragma once

#include "schema/format/schema_format.h"
#include "schema/json/difference.h"

namespace skiff::schema {

ParseResult parse_json_schema(const SchemaSource& source);

namespace json {

// The draft a parsed JSON schema was loaded as ("draft-07", ...); empty for
// a schema of another type.
std::string loaded_draft(const ParsedSchema& schema);

// incompatibilities() under an explicit policy (Confluent's
// CompatibilityPolicy: STRICT by default, LENIENT on request).
std::vector<std::string> incompatibilities(const ParsedSchema& reader, const ParsedSchema& writer,
                                           CompatibilityPolicy policy);

}  // namespace json

}  // namespace skiff::schema
