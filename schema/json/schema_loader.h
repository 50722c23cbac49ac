// Loads a JSON Schema document (and the documents it references) into the
// Node graph of schema_model.h, as Confluent's JsonSchema.rawSchema() loads
// it with everit-json-schema: the draft from `$schema` (draft 7 when absent
// or unknown), keyword values checked (a wrong type is an error naming the
// keyword's location, "#/properties/a/minLength: expected type: Integer,
// found: String"), `$ref`s resolved inside the document (JSON pointers,
// `$id`s, anchors; `#/$defs/x` also finds `definitions/x`) and to the
// registered references by name. Nothing is fetched: a `$ref` to a document
// not among the references is an error.
// Bounded: nesting past kMaxDepth, more than kMaxNodes nodes, or numbers
// Jackson refuses are errors; `$ref` targets are loaded from a work list,
// never by recursion.
// Threads: one load per thread; the result is immutable.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/json.h"
#include "schema/format/schema_format.h"
#include "schema/json/schema_model.h"

namespace skiff::schema::json {

enum class Draft { k4, k6, k7, k2019_09, k2020_12 };
const char* draft_name(Draft d);

// The draft a `$schema` URL loads as: 2019-09 and 2020-12 as Confluent's
// SpecificationVersion.getFromUrl finds them (http or https, a trailing '#'
// ignored); drafts 4, 6 and 7 as everit finds them (the URL starts with the
// draft's meta-schema URL; json-schema.org/schema is draft 4). Anything
// else: nullopt (loaded as draft 7).
std::optional<Draft> draft_from_url(std::string_view url);

inline constexpr int kMaxDepth = 128;
inline constexpr size_t kMaxNodes = 1'000'000;

struct SchemaDocument {
  std::string name;  // "" for the registered schema, else the reference's name
  std::string text;
  std::unique_ptr<JsonValue> root;  // parsed on first use
};

struct LoadedSchema {
  Draft draft = Draft::k7;
  std::deque<SchemaDocument> documents;  // [0]: the schema itself
  NodeArena arena;
  const Node* root = nullptr;
  std::vector<std::string> external_refs;  // references' names its $refs reached, first use first
};

// Loads source.text (already checked to be JSON, given as `document`) with
// source.resolved as the referable documents. The error is the detail of
// Confluent's "Invalid JSON" failure.
Expected<std::unique_ptr<LoadedSchema>, std::string> load_schema(std::unique_ptr<JsonValue> document,
                                                                 const SchemaSource& source);

}  // namespace skiff::schema::json
