// Confluent's JSON Schema compatibility check (json-schema-provider's
// diff.SchemaDiff) over two loaded schemas: every change from `original`
// (the writer's, the older schema) to `update` (the reader's, the new one)
// as a Difference with its JSON path, in the order Confluent finds them.
// Recursive schemas are compared once per pair of nodes (a pair met again
// while being compared counts as compatible, then the comparison is re-run
// until the incompatible pairs no longer change, as Confluent does).
// Bounded: past kMaxDiffDepth nested comparisons nodes compare as equal
// only if their JSON is, else as TYPE_CHANGED; once kMaxDiffPairs pairs
// have been compared in a pass (unions of thousands of members cost their
// product), every further pair is TYPE_CHANGED: an over-large check errs on
// the side of incompatible.
// Threads: pure functions over immutable nodes.
#pragma once

#include <vector>

#include "schema/json/difference.h"
#include "schema/json/schema_model.h"

namespace skiff::schema::json {

inline constexpr int kMaxDiffDepth = 256;
inline constexpr size_t kMaxDiffPairs = 200'000;

std::vector<Difference> compare_schemas(const Node* original, const Node* update, CompatibilityPolicy policy);

// The differences of compare_schemas that the policy does not allow, as
// Confluent's JsonSchema.isBackwardCompatible lists them.
std::vector<std::string> incompatible_messages(const Node* original, const Node* update, CompatibilityPolicy policy);

}  // namespace skiff::schema::json
