// RegistryService: construction, the write queue and the reads.
#include "apps/schema_registry/registry_service.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "apps/schema_registry/registry_logic.h"
#include "schema/schema_parse.h"

namespace skiff::schemareg {

Expected<int32_t, RegistryError> parse_version(std::string_view text) {
  if (text == "latest" || text == "-1") return 0;
  int32_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < 1) {
    return unexpected(errors::invalid_version(text));
  }
  return v;
}

RegistryService::RegistryService(RecordLog& log, Parser parser, RegistryOptions options)
    : log_(log), parser_(parser ? std::move(parser) : Parser(schema::parse)), options_(options) {}

void RegistryService::apply(const Record& record) {
  std::unique_lock lock(state_mu_);
  state_.apply(record);
}

void RegistryService::submit(Planner planner) {
  {
    std::lock_guard lock(queue_mu_);
    queue_.push_back(std::move(planner));
    if (writing_) return;
    writing_ = true;
  }
  pump();
}

// Plans the queued writes in order; returns while an append is in flight
// (its durable callback applies the records, answers and pumps again).
void RegistryService::pump() {
  for (;;) {
    Planner planner;
    {
      std::lock_guard lock(queue_mu_);
      if (queue_.empty()) {
        writing_ = false;
        return;
      }
      planner = std::move(queue_.front());
      queue_.pop_front();
    }
    Plan plan;
    {
      std::shared_lock lock(state_mu_);
      plan = planner(state_);
    }
    if (plan.records.empty()) {
      plan.finish(std::nullopt);
      continue;
    }
    auto records = plan.records;
    log_.append(std::move(records), [this, plan = std::move(plan)](std::optional<RegistryError> error) {
      if (!error) {
        std::unique_lock lock(state_mu_);
        for (const auto& r : plan.records) state_.apply(r);
      }
      plan.finish(std::move(error));
      pump();
    });
    return;
  }
}

// --- reads ---

namespace {

// Confluent's getSchemaKeyUsingContexts: the version of `subject` holding
// the id; for an unqualified subject, else the same name in another context
// holding it; else any version holding the id in the subject's context.
std::optional<SubjectVersionKey> key_for_id(const RegistryState& state, int32_t id,
                                            const std::optional<std::string>& subject) {
  const auto s = subject ? normalize_subject(*subject) : std::string();
  const auto ctx = context_of(s);
  const auto in_ctx = state.versions_of_id(ctx, id);
  for (const auto& k : in_ctx) {
    if (k.first == s) return k;
  }
  if (!s.empty() && ctx == kDefaultContext) {
    for (const auto& other : state.contexts()) {
      const auto qualified = context_prefix(other) + s;
      for (const auto& k : state.versions_of_id(other, id)) {
        if (k.first == qualified) return k;
      }
    }
  }
  if (in_ctx.empty()) return std::nullopt;
  return in_ctx.front();
}

std::string id_context(const RegistryState& state, int32_t id, const std::optional<std::string>& subject) {
  const auto key = key_for_id(state, id, subject);
  return key ? context_of(key->first) : context_of(subject ? normalize_subject(*subject) : std::string());
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

Expected<SubjectSchema, RegistryError> RegistryService::schema_by_id(int32_t id,
                                                                     const std::optional<std::string>& subject) const {
  std::shared_lock lock(state_mu_);
  const auto key = key_for_id(state_, id, subject);
  const auto* rec = key ? state_.version(key->first, key->second) : nullptr;
  if (!rec) return unexpected(errors::schema_id_not_found(id));
  return *rec;
}

Expected<std::string, RegistryError> RegistryService::formatted(const SubjectSchema& schema,
                                                                std::string_view format) const {
  if (format.empty()) return schema.schema;
  auto done = parsed(schema);
  if (!done) return unexpected(done.error());
  return (*done)->formatted(format);
}

Expected<ParsedPtr, RegistryError> RegistryService::parsed(const SubjectSchema& schema) const {
  std::shared_lock lock(state_mu_);
  return logic::parse_stored(parser_, state_, schema);
}

int32_t RegistryService::max_id(const std::optional<std::string>& subject) const {
  std::shared_lock lock(state_mu_);
  return state_.max_id(context_of(subject ? normalize_subject(*subject) : std::string()));
}

Expected<std::vector<std::string>, RegistryError> RegistryService::subjects_of_id(
    int32_t id, const std::optional<std::string>& subject, bool deleted) const {
  auto versions = versions_of_id(id, subject, deleted);
  if (!versions) return unexpected(versions.error());
  std::vector<std::string> out;
  for (const auto& v : *versions) {
    if (out.empty() || out.back() != v.subject) out.push_back(v.subject);
  }
  return out;
}

Expected<std::vector<SubjectVersion>, RegistryError> RegistryService::versions_of_id(
    int32_t id, const std::optional<std::string>& subject, bool deleted) const {
  std::shared_lock lock(state_mu_);
  const auto users = state_.versions_of_id(id_context(state_, id, subject), id);
  if (users.empty()) return unexpected(errors::schema_not_found());
  std::vector<SubjectVersion> out;
  for (const auto& [s, v] : users) {
    const auto* rec = state_.version(s, v);
    if (rec && (deleted || !rec->deleted)) out.push_back({s, v});
  }
  return out;
}

std::vector<SubjectSchema> RegistryService::list_schemas(std::string_view subject_prefix, bool deleted,
                                                         bool latest_only) const {
  std::shared_lock lock(state_mu_);
  std::vector<SubjectSchema> out;
  for (const auto& subject : state_.subjects(deleted)) {
    if (!starts_with(subject, subject_prefix)) continue;
    if (latest_only) {
      if (const auto* rec = state_.latest(subject, deleted)) out.push_back(*rec);
      continue;
    }
    for (const auto& [v, rec] : *state_.versions(subject)) {
      if (deleted || !rec.deleted) out.push_back(rec);
    }
  }
  return out;
}

std::vector<std::string> RegistryService::schema_types() { return {"AVRO", "JSON", "PROTOBUF"}; }

std::vector<std::string> RegistryService::list_subjects(std::string_view subject_prefix, bool deleted,
                                                        bool deleted_only) const {
  std::shared_lock lock(state_mu_);
  std::vector<std::string> out;
  for (const auto& subject : state_.subjects(deleted || deleted_only)) {
    if (!starts_with(subject, subject_prefix)) continue;
    if (deleted_only) {
      const auto* versions = state_.versions(subject);
      const bool any_deleted =
          std::any_of(versions->begin(), versions->end(), [](const auto& e) { return e.second.deleted; });
      if (!any_deleted) continue;
    }
    out.push_back(subject);
  }
  return out;
}

Expected<std::vector<int32_t>, RegistryError> RegistryService::list_versions(std::string_view subject, bool deleted,
                                                                             bool deleted_only) const {
  const auto s = normalize_subject(subject);
  std::shared_lock lock(state_mu_);
  if (!state_.has_subject(s, deleted || deleted_only)) return unexpected(errors::subject_not_found(s));
  std::vector<int32_t> out;
  for (const auto& [v, rec] : *state_.versions(s)) {
    if (deleted_only ? rec.deleted : (deleted || !rec.deleted)) out.push_back(v);
  }
  return out;
}

Expected<SubjectSchema, RegistryError> RegistryService::get_version(std::string_view subject, std::string_view version,
                                                                    bool deleted) const {
  const auto v = parse_version(version);
  if (!v) return unexpected(v.error());
  const auto s = normalize_subject(subject);
  std::shared_lock lock(state_mu_);
  const auto* rec = *v == 0 ? state_.latest(s, deleted) : state_.version(s, *v);
  if (rec && (deleted || !rec->deleted)) return *rec;
  if (!state_.has_subject(s, deleted)) return unexpected(errors::subject_not_found(s));
  return unexpected(errors::version_not_found(*v == 0 ? -1 : *v));
}

Expected<std::vector<int32_t>, RegistryError> RegistryService::referenced_by(std::string_view subject,
                                                                             std::string_view version,
                                                                             bool deleted) const {
  const auto target = get_version(subject, version, true);
  if (!target) return unexpected(target.error());
  std::shared_lock lock(state_mu_);
  std::set<int32_t> ids;
  for (const auto& [s, v] : state_.referrers(target->subject, target->version)) {
    const auto* rec = state_.version(s, v);
    if (rec && (deleted || !rec->deleted)) ids.insert(rec->id);
  }
  return std::vector<int32_t>(ids.begin(), ids.end());
}

Expected<SubjectSchema, RegistryError> RegistryService::lookup(std::string_view subject, const SchemaInput& input,
                                                               bool normalize, bool deleted) const {
  const auto s = normalize_subject(subject);
  std::shared_lock lock(state_mu_);
  if (!state_.has_subject(s, deleted)) return unexpected(errors::subject_not_found(s));
  normalize = normalize || logic::config_in_scope(state_, options_, s).normalize.value_or(false);
  auto parsed = logic::parse_input(parser_, state_, s, input);
  if (!parsed) return unexpected(parsed.error());
  const auto* rec = logic::find_under_subject(parser_, state_, s, **parsed, input.references, normalize, deleted);
  if (!rec) return unexpected(errors::schema_not_found());
  return *rec;
}

Expected<CompatibilityResult, RegistryError> RegistryService::check_compatibility(
    std::string_view subject, const std::optional<std::string>& version, const SchemaInput& input, bool normalize,
    bool verbose) const {
  (void)normalize;  // the verdict does not depend on the text's form
  const auto s = normalize_subject(subject);
  std::shared_lock lock(state_mu_);
  std::vector<const SchemaRecord*> against;
  if (version) {
    const auto v = parse_version(*version);
    if (!v) return unexpected(v.error());
    const auto* rec = *v == 0 ? state_.latest(s, false) : state_.version(s, *v);
    if (rec && rec->deleted) rec = nullptr;
    if (!rec && *v != 0) return unexpected(errors::version_not_found(*v));
    if (rec) against.push_back(rec);
  } else {
    against = logic::live_versions(state_, s);
  }
  auto candidate = logic::parse_input(parser_, state_, s, input);
  if (!candidate) {
    if (!verbose) return unexpected(candidate.error());
    return CompatibilityResult{false, {candidate.error().message}};
  }
  std::vector<ParsedPtr> parsed;
  std::vector<PreviousSchema> previous;
  for (const auto* rec : against) {
    auto p = logic::parse_stored(parser_, state_, *rec);
    if (!p) return unexpected(p.error());
    parsed.push_back(std::move(*p));
    previous.push_back({parsed.back().get(), rec->version});
  }
  auto lines = logic::compatibility_lines(state_, options_, s, **candidate, previous);
  CompatibilityResult result{lines.empty(), {}};
  if (verbose) result.messages = std::move(lines);
  return result;
}

Expected<ConfigRecord, RegistryError> RegistryService::get_config(const std::optional<std::string>& subject,
                                                                  bool default_to_global) const {
  std::shared_lock lock(state_mu_);
  if (!subject) return logic::config_in_scope(state_, options_, std::nullopt);
  const auto s = normalize_subject(*subject);
  if (const auto* c = state_.config(s)) return logic::with_level(*c, options_);
  if (!default_to_global) return unexpected(errors::subject_compatibility_not_configured(s));
  return logic::config_in_scope(state_, options_, s);
}

Expected<Mode, RegistryError> RegistryService::get_mode(const std::optional<std::string>& subject,
                                                        bool default_to_global) const {
  std::shared_lock lock(state_mu_);
  if (!subject) return logic::mode_in_scope(state_, std::nullopt);
  const auto s = normalize_subject(*subject);
  if (const auto m = state_.mode(s)) return *m;
  if (!default_to_global) return unexpected(errors::subject_mode_not_configured(s));
  return logic::mode_in_scope(state_, s);
}

std::vector<std::string> RegistryService::contexts() const {
  std::shared_lock lock(state_mu_);
  return state_.contexts();
}

RegistryState::Counts RegistryService::counts() const {
  std::shared_lock lock(state_mu_);
  return state_.counts();
}

}  // namespace skiff::schemareg
