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
// Threads: the schema is only read; a PatternCache may be shared by
// threads (it locks).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/json.h"
#include "schema/json/schema_loader.h"

namespace re2 {
class RE2;
}

namespace skiff::schema::json {

// The compiled `pattern`s of one schema, kept across validations (RE2
// matching is thread-safe; the map is guarded). At most kMaxPatterns are
// kept; past that a pattern is compiled for the one validation.
class PatternCache {
 public:
  static constexpr size_t kMaxPatterns = 1024;
  PatternCache();
  ~PatternCache();
  // The compiled pattern, or null when RE2 cannot compile it; `scratch`
  // holds it when the cache is full.
  const re2::RE2* get(const std::string& pattern, std::unique_ptr<re2::RE2>& scratch);

 private:
  std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<re2::RE2>> compiled_;
};

struct ValidateLimits {
  int max_depth = 256;           // nested schema visits
  size_t max_steps = 1'000'000;  // schema nodes visited in all
};

// Empty when `value` is valid; else the first failures, each as
// "#/json/pointer: why" (at most a few, '; '-separated).
std::string validate_value(const LoadedSchema& schema, const JsonValue& value, PatternCache& patterns,
                           const ValidateLimits& limits = {});

}  // namespace skiff::schema::json
