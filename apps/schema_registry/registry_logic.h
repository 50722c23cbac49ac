// The rules RegistryService's reads and writes share (internal to
// apps/schema_registry/): resolving references to the texts schema::parse
// needs, parsing a request or a stored version, finding a schema under a
// subject, the config and mode in scope (subject, then its context, then
// global, then the default), and the mode checks of a write. Pure functions
// of a RegistryState the caller holds (shared) for the call.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/schema_registry/compatibility.h"
#include "apps/schema_registry/registry_errors.h"
#include "apps/schema_registry/registry_service.h"
#include "apps/schema_registry/registry_state.h"

namespace skiff::schemareg::logic {

// References nest at most this deep (a cycle is refused as well).
inline constexpr int kMaxReferenceDepth = 32;

// The texts of `refs` (and theirs, dependencies first), read in the
// referrer's context; a missing one or a cycle is 42201.
Expected<std::vector<schema::ResolvedReference>, RegistryError> resolve_references(
    const RegistryState& state, std::string_view referrer, const std::vector<schema::SchemaReference>& refs);

// A request's schema, parsed; 42201 with Confluent's wording when it is not one.
Expected<ParsedPtr, RegistryError> parse_input(ParseCache& parser, const RegistryState& state, std::string_view subject,
                                               const SchemaInput& input);
// A stored version, parsed (for compatibility checks and normalized lookups).
Expected<ParsedPtr, RegistryError> parse_stored(ParseCache& parser, const RegistryState& state,
                                                const SchemaRecord& stored);

// The text the registry stores for a parsed schema: canonical, or normalized.
std::string stored_text(const schema::ParsedSchema& parsed, bool normalize);

// The version of `subject` holding this schema (deleted ones with
// include_deleted), newest first; with `normalize` stored versions are
// compared by their normalized form too. Null when none.
const SchemaRecord* find_under_subject(ParseCache& parser, const RegistryState& state, std::string_view subject,
                                       const schema::ParsedSchema& candidate,
                                       const std::vector<schema::SchemaReference>& refs, bool normalize,
                                       bool include_deleted);

// The config that applies to a subject (nullopt: global), looked up as
// Confluent does: the subject's, its context's top level (the global one for
// the default context), the ".__GLOBAL" context's. Its compatibilityLevel is
// always set: the options' default where the config found has none.
ConfigRecord config_in_scope(const RegistryState& state, const RegistryOptions& options,
                             const std::optional<std::string>& subject);
// A config with its compatibilityLevel set (Confluent's populateCompatibilityLevel).
ConfigRecord with_level(ConfigRecord config, const RegistryOptions& options);
// The mode that applies to a subject, looked up as the config is; READWRITE
// where none is set.
Mode mode_in_scope(const RegistryState& state, const std::optional<std::string>& subject);

// The registry's check of `candidate` against `previous` (oldest first) at
// the subject's level, with its trailer (registry_compatibility).
std::vector<std::string> compatibility_lines(const RegistryState& state, const RegistryOptions& options,
                                             const std::string& subject, const schema::ParsedSchema& candidate,
                                             const std::vector<PreviousSchema>& previous);

// 42205 when the subject's mode refuses writes (READONLY, READONLY_OVERRIDE).
std::optional<RegistryError> refuse_if_read_only(const RegistryState& state, const std::optional<std::string>& subject);
// The mode checks of a registration (Confluent's checkRegisterMode).
std::optional<RegistryError> check_register_mode(const RegistryState& state, const std::string& subject, bool has_id);

// Confluent's QualifiedSubject.isValidSubject: no ISO control characters,
// not "__GLOBAL" or "__EMPTY"; for a registration also not empty, not "*",
// not in the ".__GLOBAL" context (which only configs and modes name).
bool valid_subject(std::string_view subject, bool config_or_mode = false);

// The live versions of a subject, oldest first.
std::vector<const SchemaRecord*> live_versions(const RegistryState& state, std::string_view subject);

// A write's finish: the value once durable, else the log's error.
template <class T>
std::function<void(std::optional<RegistryError>)> answer(Reply<T> reply, T value) {
  return [reply = std::move(reply), value = std::move(value)](std::optional<RegistryError> error) {
    if (error) {
      reply(unexpected(std::move(*error)));
    } else {
      reply(value);
    }
  };
}

// A write's finish that refuses (no record was appended).
template <class T>
std::function<void(std::optional<RegistryError>)> refuse(Reply<T> reply, RegistryError error) {
  return
      [reply = std::move(reply), error = std::move(error)](std::optional<RegistryError>) { reply(unexpected(error)); };
}

// A delete of `key`'s entity: its tombstone, and one for each other byte
// form the entity was read under (RegistryState::legacy_keys).
void push_tombstone(const RegistryState& state, const RecordKey& key, std::vector<Record>& out);

// Java's List.toString: "[a, b]".
std::string java_list(const std::vector<std::string>& items);

}  // namespace skiff::schemareg::logic
