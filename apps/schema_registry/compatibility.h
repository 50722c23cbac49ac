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
// A format writes its lines with the reader as "the new schema" and the
// writer as "the old schema" (schema_format.h); when the old schema is the
// reader (FORWARD) the words are swapped here, as Confluent's "%s" do.
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

// "new schema" <-> "old schema" (and "new and old" <-> "old and new") in a
// format's line, for a check whose reader is the old schema.
std::string swap_roles(std::string_view line);

}  // namespace skiff::schemareg
