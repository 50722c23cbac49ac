// The seven compatibility levels and Confluent's CompatibilityChecker over
// the one check a format gives (ParsedSchema::incompatibilities), with
// Confluent's verbose messages (client/.../CompatibilityChecker.java,
// SchemaValidatorBuilder.java, AbstractSchemaRegistry.isCompatibleWithPrevious):
//   BACKWARD: the new schema reads the latest; FORWARD: the latest reads the
//   new one; FULL: both; *_TRANSITIVE: against every live version, newest
//   first, stopping at the first that fails; NONE: no check.
//   Each failing check lists the format's lines, then (when the new schema is
//   the reader) "{oldSchemaVersion: N}" and "{oldSchema: '<text>'}"; a
//   different type is the one line "Incompatible because of different schema
//   type"; when anything failed the registry appends
//   "{validateFields: 'false', compatibility: 'BACKWARD'}".
// A format's lines hold Confluent's two "%s" for the reader's and the
// writer's role (schema_format.h); they are filled here as Confluent's
// SchemaValidatorBuilder fills them: ("new", "old") when the new schema
// reads, ("old", "new") when the old schema reads (FORWARD).
// Pure functions; any thread (ParsedSchemas are immutable).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/format/schema_format.h"

namespace skiff::schemareg {

enum class CompatibilityLevel {
  kNone,
  kBackward,
  kBackwardTransitive,
  kForward,
  kForwardTransitive,
  kFull,
  kFullTransitive
};
inline constexpr CompatibilityLevel kDefaultCompatibility = CompatibilityLevel::kBackward;

std::string_view level_name(CompatibilityLevel level);
// Confluent's CompatibilityLevel.forName: case-insensitive; nullopt if unknown.
std::optional<CompatibilityLevel> parse_level(std::string_view name);

struct PreviousSchema {
  const schema::ParsedSchema* schema = nullptr;
  int32_t version = 0;
};

// CompatibilityChecker.checker(level).isCompatible(candidate, previous):
// `previous` in chronological order (oldest first). Empty: compatible.
std::vector<std::string> check_compatibility(CompatibilityLevel level, const schema::ParsedSchema& candidate,
                                             const std::vector<PreviousSchema>& previous);

// As the registry answers: the checker's lines plus, when there are any,
// "{validateFields: '<b>', compatibility: '<LEVEL>'}".
std::vector<std::string> registry_compatibility(CompatibilityLevel level, bool validate_fields,
                                                const schema::ParsedSchema& candidate,
                                                const std::vector<PreviousSchema>& previous);

}  // namespace skiff::schemareg
