// RegistryService: the config and mode writes (PUT and DELETE of /config
// and /mode), planned and answered as the other writes (registry_service.h).
#include <algorithm>
#include <cctype>

#include "apps/schema_registry/registry_logic.h"
#include "apps/schema_registry/registry_service.h"

namespace skiff::schemareg {
namespace {

using logic::answer;
using logic::refuse;

// The subject a config or mode request names: ":.:" (the default context) is the global one.
std::optional<std::string> scope_subject(const std::optional<std::string>& subject) {
  if (!subject) return std::nullopt;
  auto s = normalize_subject(*subject);
  if (s.empty()) return std::nullopt;
  return s;
}

template <class T>
void take(std::optional<T>& into, const std::optional<T>& from) {
  if (from) into = from;
}

// Confluent's ConfigValue.update: the request's members over the old ones.
ConfigRecord merge(const ConfigRecord* old, const ConfigRecord& update) {
  ConfigRecord c = old ? *old : ConfigRecord{};
  take(c.alias, update.alias);
  take(c.alias_for_deks, update.alias_for_deks);
  take(c.normalize, update.normalize);
  take(c.validate_fields, update.validate_fields);
  take(c.validate_new_schemas, update.validate_new_schemas);
  take(c.validate_rules, update.validate_rules);
  take(c.compatibility_level, update.compatibility_level);
  take(c.compatibility_policy, update.compatibility_policy);
  take(c.compatibility_group, update.compatibility_group);
  take(c.default_metadata, update.default_metadata);
  take(c.override_metadata, update.override_metadata);
  take(c.default_rule_set, update.default_rule_set);
  take(c.override_rule_set, update.override_rule_set);
  return c;
}

RegistryError mode_changes_not_allowed() { return errors::operation_not_permitted("Mode changes are not allowed"); }

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

}  // namespace

void RegistryService::put_config(std::optional<std::string> subject, ConfigRecord update, Reply<ConfigRecord> reply) {
  if (subject && !logic::valid_subject(*subject, true)) return reply(unexpected(errors::invalid_subject(*subject)));
  if (update.compatibility_level) {
    const auto level = parse_level(*update.compatibility_level);
    if (!level) return reply(unexpected(errors::invalid_compatibility_level()));
    update.compatibility_level = std::string(level_name(*level));
  }
  submit([subject = scope_subject(subject), update = std::move(update),
          reply = std::move(reply)](const RegistryState& s) -> Plan {
    if (auto e = logic::refuse_if_read_only(s, subject)) return {{}, refuse(reply, *e)};
    ConfigRecord merged = merge(s.config(subject), update);
    merged.subject = subject;
    ConfigRecord answered = merged;
    answered.subject.reset();
    return {{Record{config_key(subject), merged}}, answer(reply, answered)};
  });
}

void RegistryService::delete_config(const std::optional<std::string>& subject, Reply<ConfigRecord> reply) {
  submit([this, subject = scope_subject(subject), reply = std::move(reply)](const RegistryState& s) -> Plan {
    const auto* old = s.config(subject);
    if (subject && !old) return {{}, refuse(reply, errors::subject_not_found(*subject))};
    if (auto e = logic::refuse_if_read_only(s, subject)) return {{}, refuse(reply, *e)};
    ConfigRecord answered = old ? *old : logic::config_in_scope(s, options_, std::nullopt);
    answered.subject.reset();
    Plan plan{{}, answer(reply, answered)};
    logic::push_tombstone(s, config_key(subject), plan.records);
    return plan;
  });
}

void RegistryService::put_mode(std::optional<std::string> subject, std::string mode, bool force, Reply<Mode> reply) {
  if (subject && !logic::valid_subject(*subject, true)) return reply(unexpected(errors::invalid_subject(*subject)));
  if (!options_.mode_mutability) return reply(unexpected(mode_changes_not_allowed()));
  submit([this, subject = scope_subject(subject), mode = upper(std::move(mode)), force,
          reply = std::move(reply)](const RegistryState& s) { return plan_put_mode(s, subject, mode, force, reply); });
}

// IMPORT needs no live subject in scope (unless forced): what is soft-deleted
// is hard-deleted, then a CLEAR_SUBJECT, as Confluent's setMode does.
RegistryService::Plan RegistryService::plan_put_mode(const RegistryState& s, const std::optional<std::string>& subject,
                                                     const std::string& name, bool force,
                                                     const Reply<Mode>& reply) const {
  const auto mode = parse_mode(name);
  if (!mode) return {{}, refuse(reply, errors::invalid_mode())};
  if (*mode == Mode::kForward && subject && *subject != context_prefix(kGlobalContext)) {
    return {{}, refuse(reply, errors::invalid_mode("Forward mode only supported on global level"))};
  }
  Plan plan;
  if (*mode == Mode::kImport && logic::mode_in_scope(s, subject) != Mode::kImport && !force) {
    const auto ctx = subject ? context_of(*subject) : std::string(kDefaultContext);
    std::vector<std::string> in_scope;
    for (const auto& name_of : s.subjects(true)) {
      if (subject ? name_of == *subject : context_of(name_of) == ctx) in_scope.push_back(name_of);
    }
    for (const auto& sub : in_scope) {
      if (s.has_subject(sub, false)) {
        return {{}, refuse(reply, errors::operation_not_permitted("Cannot import since found existing subjects"))};
      }
      for (const auto& [v, rec] : *s.versions(sub)) {
        if (!s.referrers(sub, v).empty()) return {{}, refuse(reply, errors::reference_exists(sub, v))};
        logic::push_tombstone(s, schema_key(sub, v), plan.records);
      }
    }
    if (!in_scope.empty()) plan.records.push_back({clear_subject_key(subject), ClearSubjectRecord{subject}});
  }
  plan.records.push_back({mode_key(subject), ModeRecord{subject, std::string(mode_name(*mode))}});
  plan.finish = answer(reply, *mode);
  return plan;
}

void RegistryService::delete_mode(const std::optional<std::string>& subject, Reply<Mode> reply) {
  if (!options_.mode_mutability) return reply(unexpected(mode_changes_not_allowed()));
  submit([subject = scope_subject(subject), reply = std::move(reply)](const RegistryState& s) -> Plan {
    const auto old = s.mode(subject);
    if (subject && !old) return {{}, refuse(reply, errors::subject_not_found(*subject))};
    Plan plan{{}, answer(reply, old.value_or(Mode::kReadWrite))};
    logic::push_tombstone(s, mode_key(subject), plan.records);
    return plan;
  });
}

}  // namespace skiff::schemareg
