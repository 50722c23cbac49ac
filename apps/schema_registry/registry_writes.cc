// RegistryService: the writes, each planned on the state its predecessors
// left (registry_service.h) and answered once its records are durable.
#include <algorithm>

#include "apps/schema_registry/registry_logic.h"
#include "apps/schema_registry/registry_service.h"

namespace skiff::schemareg {
namespace {

using logic::answer;
using logic::refuse;

int32_t next_version(const RegistryState& s, const std::string& subject) {
  const auto* versions = s.versions(subject);
  return versions && !versions->empty() ? versions->rbegin()->first + 1 : 1;
}

// The schema a registration stores, before its id and version are chosen.
struct Candidate {
  std::string subject;
  schema::SchemaType type;
  std::string text;
  const SchemaInput* input;
};

// Confluent's isCompatibleWithPrevious against the live versions; the 409 when not.
std::optional<RegistryError> check_against_previous(ParseCache& parser, const RegistryState& s,
                                                    const RegistryOptions& options, const std::string& subject,
                                                    const schema::ParsedSchema& parsed) {
  std::vector<ParsedPtr> kept;
  std::vector<PreviousSchema> previous;
  for (const auto* rec : logic::live_versions(s, subject)) {
    auto p = logic::parse_stored(parser, s, *rec);
    if (!p) return p.error();
    kept.push_back(std::move(*p));
    previous.push_back({kept.back().get(), rec->version});
  }
  const auto lines = logic::compatibility_lines(s, options, subject, parsed, previous);
  if (lines.empty()) return std::nullopt;
  return errors::incompatible_schema(subject, logic::java_list(lines));
}

// The id of a registration: the one IMPORT gives (if free or holding the
// same schema), the one the context gave this schema already, or the next.
Expected<int32_t, RegistryError> choose_id(const RegistryState& s, const Candidate& c) {
  const auto ctx = context_of(c.subject);
  const auto& refs = c.input->references;
  if (c.input->id && *c.input->id >= 0) {
    const auto* holder = s.by_id(ctx, *c.input->id);
    if (holder && !same_content(*holder, c.type, c.text, refs)) {
      return unexpected(errors::operation_not_permitted("Overwrite new schema with id " + std::to_string(*c.input->id) +
                                                        " in context " + ctx + " is not permitted."));
    }
    return *c.input->id;
  }
  return s.find_id(ctx, c.type, c.text, refs).value_or(s.next_id(ctx));
}

// Confluent tombstones a soft-deleted earlier version of the subject that
// carried the same id, unless something still references it.
void tombstone_same_id(const RegistryState& s, const SchemaRecord& rec, std::vector<Record>& out) {
  for (const auto& [v, old] : *s.versions(rec.subject)) {
    if (old.deleted && old.id == rec.id && v < rec.version && s.referrers(rec.subject, v).empty()) {
      logic::push_tombstone(s, schema_key(rec.subject, v), out);
    }
  }
}

// A registration of a schema the subject has: answered with the existing
// version unless IMPORT asks for another id or version.
bool answers_existing(const SchemaRecord& existing, const SchemaInput& input) {
  const bool same_id = !input.id || *input.id < 0 || *input.id == existing.id;
  const bool same_version = !input.version || *input.version <= 0 || *input.version == existing.version;
  return same_id && same_version;
}

// The next version of the subject, or the one IMPORT gives.
Expected<int32_t, RegistryError> choose_version(const RegistryState& s, const std::string& subject,
                                                const SchemaInput& input, bool importing) {
  const auto next = next_version(s, subject);
  if (!input.version || *input.version <= 0) return next;
  if (*input.version != next && !importing) {
    return unexpected(errors::invalid_schema("Version is not one more than previous version"));
  }
  return *input.version;
}

// The version a delete names (the latest live one for "latest"; for a hard
// delete the latest at all when none is live).
Expected<const SchemaRecord*, RegistryError> version_to_delete(const RegistryState& s, const std::string& subject,
                                                               const std::string& version, bool permanent) {
  const auto v = parse_version(version);
  if (!v) return unexpected(v.error());
  if (!s.has_subject(subject, true)) return unexpected(errors::subject_not_found(subject));
  const auto* rec = *v == 0 ? s.latest(subject, false) : s.version(subject, *v);
  if (!rec && *v == 0 && permanent) rec = s.latest(subject, true);
  if (!rec) return unexpected(errors::version_not_found(*v == 0 ? -1 : *v));
  if (!permanent && rec->deleted) return unexpected(errors::version_soft_deleted(subject, rec->version));
  return rec;
}

// Whether a version is referenced: by a live version, or by any for a hard delete.
bool referenced(const RegistryState& s, const std::string& subject, int32_t version, bool permanent,
                bool other_subjects_only) {
  for (const auto& [by_subject, by_version] : s.referrers(subject, version)) {
    const auto* by = s.version(by_subject, by_version);
    if (by && (permanent || !by->deleted) && !(other_subjects_only && by_subject == subject)) return true;
  }
  return false;
}

}  // namespace

void RegistryService::register_schema(std::string subject, SchemaInput input, bool normalize,
                                      Reply<SubjectSchema> reply) {
  submit([this, subject = std::move(subject), input = std::move(input), normalize, reply = std::move(reply)](
             const RegistryState& s) { return plan_register(s, subject, input, normalize, reply); });
}

RegistryService::Plan RegistryService::plan_register(const RegistryState& s, const std::string& raw_subject,
                                                     const SchemaInput& input, bool normalize,
                                                     const Reply<SubjectSchema>& reply) const {
  if (!logic::valid_subject(raw_subject)) return {{}, refuse(reply, errors::invalid_subject(raw_subject))};
  const auto subject = normalize_subject(raw_subject);
  normalize = normalize || logic::config_in_scope(s, options_, subject).normalize.value_or(false);
  auto parsed = logic::parse_input(parser_, s, subject, input);
  if (!parsed) return {{}, refuse(reply, parsed.error())};
  const auto* existing = logic::find_under_subject(parser_, s, subject, **parsed, input.references, normalize, false);
  if (existing && answers_existing(*existing, input)) return {{}, answer(reply, *existing)};
  if (auto e = logic::check_register_mode(s, subject, input.id && *input.id >= 0)) return {{}, refuse(reply, *e)};
  const auto mode = logic::mode_in_scope(s, subject);
  const bool importing = mode == Mode::kImport || mode == Mode::kForward;
  const auto version = choose_version(s, subject, input, importing);
  if (!version) return {{}, refuse(reply, version.error())};
  if (!importing) {
    if (auto e = check_against_previous(parser_, s, options_, subject, **parsed)) return {{}, refuse(reply, *e)};
  }
  SchemaRecord rec{subject,
                   *version,
                   -1,
                   (*parsed)->type(),
                   input.references,
                   input.metadata,
                   input.rule_set,
                   logic::stored_text(**parsed, normalize),
                   false};
  const auto id = choose_id(s, Candidate{subject, rec.type, rec.schema, &input});
  if (!id) return {{}, refuse(reply, id.error())};
  rec.id = *id;
  Plan plan;
  const auto ctx = context_of(subject);
  if (ctx != kDefaultContext && !s.context_declared(ctx))
    plan.records.push_back({context_key(ctx), ContextRecord{ctx}});
  if (s.versions(subject)) tombstone_same_id(s, rec, plan.records);
  plan.records.push_back({schema_key(subject, rec.version), rec});
  plan.finish = answer(reply, rec);
  return plan;
}

void RegistryService::delete_subject(const std::string& subject, bool permanent, Reply<std::vector<int32_t>> reply) {
  submit([this, subject = normalize_subject(subject), permanent, reply = std::move(reply)](const RegistryState& s) {
    return plan_delete_subject(s, subject, permanent, reply);
  });
}

RegistryService::Plan RegistryService::plan_delete_subject(const RegistryState& s, const std::string& subject,
                                                           bool permanent,
                                                           const Reply<std::vector<int32_t>>& reply) const {
  if (auto e = logic::refuse_if_read_only(s, subject)) return {{}, refuse(reply, *e)};
  if (!s.has_subject(subject, true)) return {{}, refuse(reply, errors::subject_not_found(subject))};
  const bool live = s.has_subject(subject, false);
  if (!permanent && !live) return {{}, refuse(reply, errors::subject_soft_deleted(subject))};
  if (permanent && live) return {{}, refuse(reply, errors::subject_not_soft_deleted(subject))};
  std::vector<int32_t> versions;
  for (const auto& [v, rec] : *s.versions(subject)) {
    if (!permanent && rec.deleted) continue;
    if (referenced(s, subject, v, permanent, true)) return {{}, refuse(reply, errors::reference_exists(subject, v))};
    versions.push_back(v);
  }
  Plan plan;
  if (!permanent) {
    plan.records.push_back({delete_subject_key(subject), DeleteSubjectRecord{subject, versions.back()}});
  } else {
    for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
      logic::push_tombstone(s, schema_key(subject, *it), plan.records);
    }
    if (s.mode(subject)) logic::push_tombstone(s, mode_key(subject), plan.records);
    if (s.config(subject)) logic::push_tombstone(s, config_key(subject), plan.records);
  }
  plan.finish = answer(reply, versions);
  return plan;
}

void RegistryService::delete_version(const std::string& subject, std::string version, bool permanent,
                                     Reply<int32_t> reply) {
  submit([this, subject = normalize_subject(subject), version = std::move(version), permanent,
          reply = std::move(reply)](const RegistryState& s) {
    return plan_delete_version(s, subject, version, permanent, reply);
  });
}

RegistryService::Plan RegistryService::plan_delete_version(const RegistryState& s, const std::string& subject,
                                                           const std::string& version, bool permanent,
                                                           const Reply<int32_t>& reply) const {
  const auto found = version_to_delete(s, subject, version, permanent);
  if (!found) return {{}, refuse(reply, found.error())};
  const SchemaRecord& rec = **found;
  if (auto e = logic::refuse_if_read_only(s, subject)) return {{}, refuse(reply, *e)};
  if (referenced(s, subject, rec.version, permanent, false)) {
    return {{}, refuse(reply, errors::reference_exists(subject, rec.version))};
  }
  if (permanent && !rec.deleted) return {{}, refuse(reply, errors::version_not_soft_deleted(subject, rec.version))};
  Plan plan;
  if (!permanent) {
    SchemaRecord deleted = rec;
    deleted.deleted = true;
    plan.records.push_back({schema_key(subject, rec.version), deleted});
  } else {
    logic::push_tombstone(s, schema_key(subject, rec.version), plan.records);
    if (s.versions(subject)->size() == 1) {
      if (s.mode(subject)) logic::push_tombstone(s, mode_key(subject), plan.records);
      if (s.config(subject)) logic::push_tombstone(s, config_key(subject), plan.records);
    }
  }
  plan.finish = answer(reply, rec.version);
  return plan;
}

}  // namespace skiff::schemareg
