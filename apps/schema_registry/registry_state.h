// RegistryState: what replaying `_schemas` builds, the Schema Registry's
// whole state in memory (Confluent's LookupCache / InMemoryCache, Karapace's
// in_memory_database): subjects and their versions (soft-deleted or not),
// schemas by id per context, the next id of each context, the referenced-by
// index, global and subject configs and modes.
//
// apply() is deterministic: the same records in the same order give the
// same state, whoever wrote them (Skiff, Confluent, Karapace).
// Contexts: a qualified subject ":.ctx:name" lives in context ".ctx"; any
// other subject in the default context "."; ids are per context. A
// reference's subject is read relative to its referrer's context.
// Ids: next_id(ctx) is one more than the highest id any record of that
// context carried, never lowered by a hard delete (Confluent's rule). After
// compaction has dropped both the record and the tombstone of the highest id,
// the id can come back; Confluent's registry shares that limit.
//
// Threads: none of its own; not synchronized. RegistryService guards it
// (a shared_mutex: reads shared, apply exclusive).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "apps/schema_registry/schemas_records.h"

namespace skiff::schemareg {

enum class Mode { kReadWrite, kReadOnly, kReadOnlyOverride, kImport, kForward };
std::string_view mode_name(Mode m);
std::optional<Mode> parse_mode(std::string_view name);  // upper case, as Confluent's Mode enum

inline constexpr std::string_view kDefaultContext = ".";
// Confluent's global context: its top-level config and mode apply to every
// context that sets none (":.__GLOBAL:").
inline constexpr std::string_view kGlobalContext = ".__GLOBAL";

// ".ctx" for ":.ctx:name" (and for the context-level subject ":.ctx:"), "." otherwise.
std::string context_of(std::string_view subject);
// Confluent's QualifiedSubject.normalize: ":.:name" (the default context written out) is "name".
std::string normalize_subject(std::string_view subject);
// The subject of a reference made by `referrer`: qualified in the referrer's context.
std::string qualify_with_parent(std::string_view referrer, std::string_view ref_subject);
// ":.ctx:" for ".ctx", "" for the default context.
std::string context_prefix(std::string_view context);

using SubjectVersionKey = std::pair<std::string, int32_t>;

class RegistryState {
 public:
  void apply(const Record& record);

  // Subjects, sorted. A subject exists while it has a version (a live one,
  // or any with include_deleted).
  std::vector<std::string> subjects(bool include_deleted) const;
  bool has_subject(std::string_view subject, bool include_deleted) const;
  // Every version of a subject, deleted ones too, by version; null if none.
  const std::map<int32_t, SchemaRecord>* versions(std::string_view subject) const;
  const SchemaRecord* version(std::string_view subject, int32_t version) const;
  const SchemaRecord* latest(std::string_view subject, bool include_deleted) const;

  // Schemas by id in a context: the versions carrying the id (sorted), and
  // one of them (the first) for its text; null once every one is hard-deleted.
  const SchemaRecord* by_id(std::string_view context, int32_t id) const;
  std::vector<SubjectVersionKey> versions_of_id(std::string_view context, int32_t id) const;
  int32_t max_id(std::string_view context) const;
  int32_t next_id(std::string_view context) const { return max_id(context) + 1; }
  // The id already given in `context` to this type, text and references.
  std::optional<int32_t> find_id(std::string_view context, schema::SchemaType type, std::string_view text,
                                 const std::vector<schema::SchemaReference>& refs) const;
  // Every schema of a context, by id (the first version of each).
  std::vector<const SchemaRecord*> schemas_in(std::string_view context) const;

  // The versions whose references name (subject, version), sorted.
  std::vector<SubjectVersionKey> referrers(std::string_view subject, int32_t version) const;

  // nullopt subject: the global one. Null when not set.
  const ConfigRecord* config(const std::optional<std::string>& subject) const;
  std::optional<Mode> mode(const std::optional<std::string>& subject) const;

  // "." first, then every context that has a subject or a CONTEXT record, sorted.
  std::vector<std::string> contexts() const;
  // The other byte forms (RecordKey::raw) under which records of this key's
  // entity were read and not yet deleted: a delete tombstones each of them.
  std::vector<std::string> legacy_keys(const RecordKey& key) const;

  // What /metrics shows: live subjects, their live versions, and the ids
  // in use over every context (O(subjects + ids)).
  struct Counts {
    size_t subjects = 0;
    size_t versions = 0;
    size_t schemas = 0;
  };
  Counts counts() const;

  // Whether a CONTEXT record named the context.
  bool context_declared(std::string_view context) const { return declared_contexts_.count(context) > 0; }

 private:
  struct ContextIds {
    int32_t max_id = 0;
    std::map<int32_t, std::set<SubjectVersionKey>> users;
    // hash of content_key() -> the ids with that hash, first registered first
    // (the text is kept once, in the versions; a hit is compared in full).
    std::unordered_map<size_t, std::vector<int32_t>> by_content;
  };
  void put_schema(const RecordKey& key, const SchemaRecord& value);
  void remove_schema(const std::string& subject, int32_t version);
  void index(const SchemaRecord& value, bool add);
  void delete_subject(const DeleteSubjectRecord& d);
  void clear_subject(const std::optional<std::string>& subject);
  void apply_config(const RecordKey& key, const RecordValue& value);
  void apply_mode(const RecordKey& key, const RecordValue& value);
  void note_raw_key(const RecordKey& key, bool deleted);

  std::map<std::string, std::map<int32_t, SchemaRecord>, std::less<>> subjects_;
  std::map<std::string, ContextIds, std::less<>> ids_;
  std::map<SubjectVersionKey, std::set<SubjectVersionKey>> referrers_;
  std::optional<ConfigRecord> global_config_;
  std::map<std::string, ConfigRecord, std::less<>> configs_;
  std::optional<Mode> global_mode_;
  std::map<std::string, Mode, std::less<>> modes_;
  std::set<std::string, std::less<>> declared_contexts_;
  std::map<std::string, std::set<std::string>> legacy_keys_;  // canonical key bytes -> raw forms
};

// The dedup key of a schema in its context: type, text, references.
std::string content_key(schema::SchemaType type, std::string_view text,
                        const std::vector<schema::SchemaReference>& refs);
// Whether a stored schema has this type, text and references.
bool same_content(const SchemaRecord& stored, schema::SchemaType type, std::string_view text,
                  const std::vector<schema::SchemaReference>& refs);

}  // namespace skiff::schemareg
