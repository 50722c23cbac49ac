// RegistryService: every operation of Confluent Schema Registry's REST API
// as a method over decoded parameters, answering plain structs or a
// RegistryError (Confluent's codes and wording), so the HTTP layer is a thin
// mapping of routes onto it (the table in the header of this folder's
// CMakeLists.txt). No sockets, no files: the `_schemas` topic is the
// RecordLog port, schema parsing the injected Parser (schema::parse by
// default) behind a ParseCache.
//
// Writes (register, deletes, config, mode) are asynchronous: the service
// decides the records from the current state, appends them through the
// RecordLog and applies them to its state only once the log says they are
// durable, then answers. Writes are serialized: one in flight, the others
// queued in arrival order, each planned on the state its predecessors left,
// so ids and versions never collide. A write that needs no record (a schema
// already registered) or fails validation is answered at its turn without
// an append.
//
// Threads: any thread may call any method. The state is guarded by a
// shared_mutex: reads take it shared (concurrent with each other and with a
// write in flight, which has not changed the state yet), applying durable
// records takes it exclusive. A write's callback runs with no lock held, on
// the thread that calls the RecordLog's `durable` for it or for the write
// before it (the queue moves on from there), or on the caller's thread when
// the queue was idle and nothing needs appending (a validation error, a
// schema already registered); a callback may call the service again.
// Errors found before queuing (an invalid subject, level) are answered at
// once on the caller's thread.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "apps/schema_registry/compatibility.h"
#include "apps/schema_registry/parse_cache.h"
#include "apps/schema_registry/registry_errors.h"
#include "apps/schema_registry/registry_state.h"
#include "apps/schema_registry/schemas_records.h"
#include "common/expected.h"
#include "schema/format/schema_format.h"

namespace skiff::schemareg {

// The `_schemas` topic as the service writes it. append() writes the records
// in order (one batch) and calls `durable` once: nullopt when they are
// durable, or the error to answer (50001 store error, 50002 timeout).
// `durable` may be called on any thread, also before append() returns.
class RecordLog {
 public:
  virtual ~RecordLog() = default;
  virtual void append(std::vector<Record> records, std::function<void(std::optional<RegistryError>)> durable) = 0;
};

// The registry's own settings (Confluent's schema.compatibility.level,
// schema.validate.fields, mode.mutability): what applies where `_schemas`
// sets nothing.
struct RegistryOptions {
  CompatibilityLevel default_compatibility = kDefaultCompatibility;
  bool validate_fields = false;
  bool mode_mutability = true;  // false: PUT and DELETE /mode are 42205 "Mode changes are not allowed"
};

// The body of a register, lookup or compatibility request
// (Confluent's RegisterSchemaRequest).
struct SchemaInput {
  std::string schema;
  std::optional<std::string> schema_type;  // absent: AVRO
  std::vector<schema::SchemaReference> references;
  std::optional<int32_t> id;       // IMPORT mode: the id to keep
  std::optional<int32_t> version;  // IMPORT mode: the version to keep
  std::optional<RawJson> metadata;
  std::optional<RawJson> rule_set;
};

// A schema under a subject (GET /subjects/{s}/versions/{v}, the answer of
// a register or lookup, GET /schemas/ids/{id} without subject/version).
using SubjectSchema = SchemaRecord;

struct SubjectVersion {
  std::string subject;
  int32_t version = 0;
};

struct CompatibilityResult {
  bool is_compatible = true;
  std::vector<std::string> messages;  // only when verbose
};

template <class T>
using Reply = std::function<void(Expected<T, RegistryError>)>;

// A path's {version}: "latest" or -1 is the latest (0 here), 1..2^31-1 itself;
// anything else 42202.
Expected<int32_t, RegistryError> parse_version(std::string_view text);

class RegistryService {
 public:
  explicit RegistryService(RecordLog& log, Parser parser = {}, RegistryOptions options = {});

  // Replay of `_schemas` at start (and any record read from it later).
  void apply(const Record& record);

  // --- reads ---
  // GET /schemas/ids/{id}[?subject=] (and /schema): the schema of an id, as
  // Confluent finds it: the subject's own version holding the id, else (an
  // unqualified subject) the same name in another context holding it, else
  // any version holding it in the subject's context (the default without one).
  Expected<SubjectSchema, RegistryError> schema_by_id(int32_t id, const std::optional<std::string>& subject) const;
  // `schema` in Confluent's ?format= (formattedString): the stored text for
  // "" (no parse), else the parsed schema's formatted(format).
  Expected<std::string, RegistryError> formatted(const SubjectSchema& schema, std::string_view format) const;
  // A stored schema parsed, its references resolved: for readers of data
  // written with it (the web console's message browser, through server/).
  Expected<ParsedPtr, RegistryError> parsed(const SubjectSchema& schema) const;
  // GET /schemas/ids/{id}?fetchMaxId=true: the highest id of the context.
  int32_t max_id(const std::optional<std::string>& subject) const;
  // GET /schemas/ids/{id}/subjects and /versions, in the context found as above.
  Expected<std::vector<std::string>, RegistryError> subjects_of_id(int32_t id,
                                                                   const std::optional<std::string>& subject,
                                                                   bool deleted) const;
  Expected<std::vector<SubjectVersion>, RegistryError> versions_of_id(int32_t id,
                                                                      const std::optional<std::string>& subject,
                                                                      bool deleted) const;
  // GET /schemas?subjectPrefix=&deleted=&latestOnly=
  std::vector<SubjectSchema> list_schemas(std::string_view subject_prefix, bool deleted, bool latest_only) const;
  // GET /schemas/types
  static std::vector<std::string> schema_types();
  // GET /subjects?subjectPrefix=&deleted=&deletedOnly=
  std::vector<std::string> list_subjects(std::string_view subject_prefix, bool deleted, bool deleted_only) const;
  // GET /subjects/{s}/versions?deleted=&deletedOnly=
  Expected<std::vector<int32_t>, RegistryError> list_versions(std::string_view subject, bool deleted,
                                                              bool deleted_only) const;
  // GET /subjects/{s}/versions/{v}[/schema]?deleted=
  Expected<SubjectSchema, RegistryError> get_version(std::string_view subject, std::string_view version,
                                                     bool deleted) const;
  // GET /subjects/{s}/versions/{v}/referencedby: the ids of the referrers.
  Expected<std::vector<int32_t>, RegistryError> referenced_by(std::string_view subject, std::string_view version,
                                                              bool deleted) const;
  // POST /subjects/{s}?normalize=&deleted=
  Expected<SubjectSchema, RegistryError> lookup(std::string_view subject, const SchemaInput& input, bool normalize,
                                                bool deleted) const;
  // POST /compatibility/subjects/{s}/versions/{v} (version set) or
  // /compatibility/subjects/{s}/versions (every live version).
  Expected<CompatibilityResult, RegistryError> check_compatibility(std::string_view subject,
                                                                   const std::optional<std::string>& version,
                                                                   const SchemaInput& input, bool normalize,
                                                                   bool verbose) const;
  // GET /config[/{s}]?defaultToGlobal=: a subject's own config as stored;
  // otherwise (global, or defaultToGlobal) the one in scope, its
  // compatibilityLevel set (the options' default when nothing sets it).
  Expected<ConfigRecord, RegistryError> get_config(const std::optional<std::string>& subject,
                                                   bool default_to_global) const;
  // GET /mode[/{s}]?defaultToGlobal=
  Expected<Mode, RegistryError> get_mode(const std::optional<std::string>& subject, bool default_to_global) const;
  // GET /contexts
  std::vector<std::string> contexts() const;
  // Subjects, versions and schemas (/metrics).
  RegistryState::Counts counts() const;

  // --- writes (answered once durable) ---
  // POST /subjects/{s}/versions?normalize=
  void register_schema(std::string subject, SchemaInput input, bool normalize, Reply<SubjectSchema> reply);
  // DELETE /subjects/{s}?permanent=: the versions deleted.
  void delete_subject(const std::string& subject, bool permanent, Reply<std::vector<int32_t>> reply);
  // DELETE /subjects/{s}/versions/{v}?permanent=: the version deleted.
  void delete_version(const std::string& subject, std::string version, bool permanent, Reply<int32_t> reply);
  // PUT /config[/{s}]: members absent from `update` keep their value
  // (Confluent's ConfigValue.update); answers the config as written.
  void put_config(std::optional<std::string> subject, ConfigRecord update, Reply<ConfigRecord> reply);
  // DELETE /config[/{s}]: the config removed.
  void delete_config(const std::optional<std::string>& subject, Reply<ConfigRecord> reply);
  // PUT /mode[/{s}]?force=
  void put_mode(std::optional<std::string> subject, std::string mode, bool force, Reply<Mode> reply);
  // DELETE /mode[/{s}]: the mode removed.
  void delete_mode(const std::optional<std::string>& subject, Reply<Mode> reply);

 private:
  struct Plan {
    std::vector<Record> records;
    std::function<void(std::optional<RegistryError>)> finish;  // after durable, or at once without records
  };
  using Planner = std::function<Plan(const RegistryState&)>;

  void submit(Planner planner);
  void pump();

  Plan plan_register(const RegistryState& s, const std::string& subject, const SchemaInput& input, bool normalize,
                     const Reply<SubjectSchema>& reply) const;
  Plan plan_delete_subject(const RegistryState& s, const std::string& subject, bool permanent,
                           const Reply<std::vector<int32_t>>& reply) const;
  Plan plan_delete_version(const RegistryState& s, const std::string& subject, const std::string& version,
                           bool permanent, const Reply<int32_t>& reply) const;
  Plan plan_put_mode(const RegistryState& s, const std::optional<std::string>& subject, const std::string& mode,
                     bool force, const Reply<Mode>& reply) const;

  RecordLog& log_;
  mutable ParseCache parser_;
  RegistryOptions options_;
  mutable std::shared_mutex state_mu_;
  RegistryState state_;
  std::mutex queue_mu_;
  std::deque<Planner> queue_;
  bool writing_ = false;
};

}  // namespace skiff::schemareg
