// Validates a JSON value against a loaded JSON Schema (schema_loader.h), as
// Confluent's JSON Schema serializer does with everit-json-schema (drafts 4,
// 6 and 7; its useDefaults fills defaults in only after `required` is
// checked, and into a copy the serializer does not write, so defaults play
// no part), for the REST proxy's "jsonschema" embedded format. Keywords: type (a keyword of a type applies only to
// values of that type unless `type` names it), enum, const, allOf/anyOf/oneOf, not, if/then/else, $ref; numbers:
// minimum, maximum, exclusiveMinimum/Maximum (draft 4's booleans too), multipleOf, integer (no fraction, no exponent,
// however large); strings: minLength/maxLength in code points, pattern
// (RE2, unanchored; a pattern RE2 cannot compile, such as one with
// lookaround or backreferences, is an error naming it); objects:
// properties, required, additionalProperties, patternProperties,
// dependencies, propertyNames, min/maxProperties; arrays: items (one schema
// or a tuple), additionalItems, contains, min/maxItems, uniqueItems.
// `format` as json_formats.h checks it. Numbers compare as doubles (multipleOf within a
// relative 1e-9).
//
// Bounded: schema nodes visited per value (a `$ref` cycle or nested oneOf
// cannot run away) and recursion depth; past either the value is refused.
// Threads: pure; the schema is only read.
#pragma once

#include <cstddef>
#include <string>

#include "common/json.h"
#include "schema/json/schema_loader.h"

namespace skiff::schema::json {

struct ValidateLimits {
  int max_depth = 256;           // nested schema visits
  size_t max_steps = 1'000'000;  // schema nodes visited in all
};

// Empty when `value` is valid; else the first failures, each as
// "#/json/pointer: why" (at most a few, '; '-separated).
std::string validate_value(const LoadedSchema& schema, const JsonValue& value, const ValidateLimits& limits = {});

}  // namespace skiff::schema::json
