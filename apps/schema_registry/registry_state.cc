#include "apps/schema_registry/registry_state.h"

#include <algorithm>

namespace skiff::schemareg {
namespace {

constexpr std::pair<std::string_view, Mode> kModes[] = {{"READWRITE", Mode::kReadWrite},
                                                        {"READONLY", Mode::kReadOnly},
                                                        {"READONLY_OVERRIDE", Mode::kReadOnlyOverride},
                                                        {"IMPORT", Mode::kImport},
                                                        {"FORWARD", Mode::kForward}};

// A subject matched by a CLEAR_SUBJECT: itself, or every subject of a
// context when the record names the context (":.ctx:" or empty).
bool matches(std::string_view subject, const std::optional<std::string>& target) {
  if (!target || target->empty()) return context_of(subject) == kDefaultContext;
  if (target->size() >= 3 && target->front() == ':' && target->back() == ':' && context_of(*target) != ".") {
    return subject.substr(0, target->size()) == *target;
  }
  return subject == *target;
}

}  // namespace

std::string_view mode_name(Mode m) {
  for (const auto& [n, mode] : kModes) {
    if (mode == m) return n;
  }
  return "READWRITE";
}

std::optional<Mode> parse_mode(std::string_view name) {
  for (const auto& [n, mode] : kModes) {
    if (n == name) return mode;
  }
  return std::nullopt;
}

std::string context_of(std::string_view subject) {
  if (subject.size() < 2 || subject[0] != ':' || subject[1] != '.') return std::string(kDefaultContext);
  const auto end = subject.find(':', 1);
  if (end == std::string_view::npos) return std::string(kDefaultContext);
  const auto ctx = subject.substr(1, end - 1);
  return ctx.empty() ? std::string(kDefaultContext) : std::string(ctx);
}

std::string normalize_subject(std::string_view subject) {
  if (subject.substr(0, 3) == ":.:") return std::string(subject.substr(3));
  return std::string(subject);
}

std::string context_prefix(std::string_view context) {
  if (context.empty() || context == kDefaultContext) return "";
  return ":" + std::string(context) + ":";
}

std::string qualify_with_parent(std::string_view referrer, std::string_view ref_subject) {
  if (ref_subject.substr(0, 2) == ":.") return normalize_subject(ref_subject);
  return context_prefix(context_of(referrer)) + std::string(ref_subject);
}

std::string content_key(schema::SchemaType type, std::string_view text,
                        const std::vector<schema::SchemaReference>& refs) {
  std::string key(schema::type_name(type));
  key += '\0';
  key += text;
  for (const auto& r : refs) {
    key += '\0' + r.name + '\0' + r.subject + '\0' + std::to_string(r.version);
  }
  return key;
}

bool same_content(const SchemaRecord& stored, schema::SchemaType type, std::string_view text,
                  const std::vector<schema::SchemaReference>& refs) {
  if (stored.type != type || stored.schema != text || stored.references.size() != refs.size()) return false;
  for (size_t i = 0; i < refs.size(); ++i) {
    const auto& a = stored.references[i];
    if (a.name != refs[i].name || a.subject != refs[i].subject || a.version != refs[i].version) return false;
  }
  return true;
}

void RegistryState::apply(const Record& record) {
  const auto& key = record.key;
  if (!key.raw.empty()) note_raw_key(key, std::holds_alternative<Tombstone>(record.value));
  switch (key.type) {
    case KeyType::kSchema:
      if (const auto* s = std::get_if<SchemaRecord>(&record.value)) {
        put_schema(key, *s);
      } else if (key.subject) {
        remove_schema(*key.subject, key.version);
      }
      return;
    case KeyType::kConfig:
      return apply_config(key, record.value);
    case KeyType::kMode:
      return apply_mode(key, record.value);
    case KeyType::kDeleteSubject:
      if (const auto* d = std::get_if<DeleteSubjectRecord>(&record.value)) delete_subject(*d);
      return;
    case KeyType::kClearSubject:
      if (const auto* c = std::get_if<ClearSubjectRecord>(&record.value)) clear_subject(c->subject);
      return;
    case KeyType::kContext:
      if (!key.context.empty() && !std::holds_alternative<Tombstone>(record.value)) {
        declared_contexts_.insert(key.context);
      }
      return;
    default:
      return;
  }
}

void RegistryState::put_schema(const RecordKey& key, const SchemaRecord& value) {
  SchemaRecord stored = value;
  stored.subject = *key.subject;  // the key decides where it lives (Confluent keys its cache by SchemaKey)
  stored.version = key.version;
  remove_schema(stored.subject, stored.version);
  index(stored, true);
  subjects_[stored.subject][stored.version] = std::move(stored);
}

void RegistryState::remove_schema(const std::string& subject, int32_t version) {
  const auto it = subjects_.find(subject);
  if (it == subjects_.end()) return;
  const auto v = it->second.find(version);
  if (v == it->second.end()) return;
  index(v->second, false);
  it->second.erase(v);
  if (it->second.empty()) subjects_.erase(it);
}

void RegistryState::index(const SchemaRecord& value, bool add) {
  auto& ctx = ids_[context_of(value.subject)];
  const SubjectVersionKey self{value.subject, value.version};
  const auto hash = std::hash<std::string>{}(content_key(value.type, value.schema, value.references));
  if (add) {
    ctx.max_id = std::max(ctx.max_id, value.id);
    ctx.users[value.id].insert(self);
    auto& ids = ctx.by_content[hash];
    if (std::find(ids.begin(), ids.end(), value.id) == ids.end()) ids.push_back(value.id);
  } else if (auto users = ctx.users.find(value.id); users != ctx.users.end()) {
    users->second.erase(self);
    if (users->second.empty()) {
      ctx.users.erase(users);
      auto& ids = ctx.by_content[hash];
      ids.erase(std::remove(ids.begin(), ids.end(), value.id), ids.end());
      if (ids.empty()) ctx.by_content.erase(hash);
    }
  }
  for (const auto& ref : value.references) {
    const SubjectVersionKey target{qualify_with_parent(value.subject, ref.subject), ref.version};
    if (add) {
      referrers_[target].insert(self);
    } else if (auto r = referrers_.find(target); r != referrers_.end()) {
      r->second.erase(self);
      if (r->second.empty()) referrers_.erase(r);
    }
  }
}

void RegistryState::delete_subject(const DeleteSubjectRecord& d) {
  const auto it = subjects_.find(d.subject);
  if (it == subjects_.end()) return;
  for (auto& [version, value] : it->second) {
    if (version <= d.version) value.deleted = true;
  }
}

void RegistryState::clear_subject(const std::optional<std::string>& subject) {
  std::vector<SubjectVersionKey> gone;
  for (const auto& [name, versions] : subjects_) {
    if (!matches(name, subject)) continue;
    for (const auto& [version, value] : versions) {
      if (value.deleted) gone.emplace_back(name, version);
    }
  }
  for (const auto& [name, version] : gone) remove_schema(name, version);
}

void RegistryState::apply_config(const RecordKey& key, const RecordValue& value) {
  const auto* c = std::get_if<ConfigRecord>(&value);
  if (!key.subject) {
    global_config_ = c ? std::optional<ConfigRecord>(*c) : std::nullopt;
  } else if (c) {
    configs_[*key.subject] = *c;
  } else {
    configs_.erase(*key.subject);
  }
}

void RegistryState::apply_mode(const RecordKey& key, const RecordValue& value) {
  const auto* m = std::get_if<ModeRecord>(&value);
  const auto mode = m ? parse_mode(m->mode) : std::nullopt;
  if (!key.subject) {
    global_mode_ = mode;
  } else if (mode) {
    modes_[*key.subject] = *mode;
  } else {
    modes_.erase(*key.subject);
  }
}

std::vector<std::string> RegistryState::subjects(bool include_deleted) const {
  std::vector<std::string> out;
  for (const auto& [name, versions] : subjects_) {
    if (has_subject(name, include_deleted)) out.push_back(name);
  }
  return out;
}

bool RegistryState::has_subject(std::string_view subject, bool include_deleted) const {
  const auto* v = versions(subject);
  if (!v) return false;
  return include_deleted || std::any_of(v->begin(), v->end(), [](const auto& e) { return !e.second.deleted; });
}

const std::map<int32_t, SchemaRecord>* RegistryState::versions(std::string_view subject) const {
  const auto it = subjects_.find(subject);
  return it == subjects_.end() ? nullptr : &it->second;
}

const SchemaRecord* RegistryState::version(std::string_view subject, int32_t version) const {
  const auto* v = versions(subject);
  if (!v) return nullptr;
  const auto it = v->find(version);
  return it == v->end() ? nullptr : &it->second;
}

const SchemaRecord* RegistryState::latest(std::string_view subject, bool include_deleted) const {
  const auto* v = versions(subject);
  if (!v) return nullptr;
  for (auto it = v->rbegin(); it != v->rend(); ++it) {
    if (include_deleted || !it->second.deleted) return &it->second;
  }
  return nullptr;
}

const SchemaRecord* RegistryState::by_id(std::string_view context, int32_t id) const {
  const auto users = versions_of_id(context, id);
  return users.empty() ? nullptr : version(users.front().first, users.front().second);
}

std::vector<SubjectVersionKey> RegistryState::versions_of_id(std::string_view context, int32_t id) const {
  const auto ctx = ids_.find(context);
  if (ctx == ids_.end()) return {};
  const auto users = ctx->second.users.find(id);
  if (users == ctx->second.users.end()) return {};
  return {users->second.begin(), users->second.end()};
}

int32_t RegistryState::max_id(std::string_view context) const {
  const auto ctx = ids_.find(context);
  return ctx == ids_.end() ? 0 : ctx->second.max_id;
}

std::optional<int32_t> RegistryState::find_id(std::string_view context, schema::SchemaType type, std::string_view text,
                                              const std::vector<schema::SchemaReference>& refs) const {
  const auto ctx = ids_.find(context);
  if (ctx == ids_.end()) return std::nullopt;
  const auto it = ctx->second.by_content.find(std::hash<std::string>{}(content_key(type, text, refs)));
  if (it == ctx->second.by_content.end()) return std::nullopt;
  for (const auto id : it->second) {
    const auto* stored = by_id(context, id);
    if (stored && same_content(*stored, type, text, refs)) return id;
  }
  return std::nullopt;
}

std::vector<const SchemaRecord*> RegistryState::schemas_in(std::string_view context) const {
  std::vector<const SchemaRecord*> out;
  const auto ctx = ids_.find(context);
  if (ctx == ids_.end()) return out;
  for (const auto& [id, users] : ctx->second.users) {
    if (const auto* s = version(users.begin()->first, users.begin()->second)) out.push_back(s);
  }
  return out;
}

std::vector<SubjectVersionKey> RegistryState::referrers(std::string_view subject, int32_t version) const {
  const auto it = referrers_.find(SubjectVersionKey{std::string(subject), version});
  if (it == referrers_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

const ConfigRecord* RegistryState::config(const std::optional<std::string>& subject) const {
  if (!subject) return global_config_ ? &*global_config_ : nullptr;
  const auto it = configs_.find(*subject);
  return it == configs_.end() ? nullptr : &it->second;
}

std::optional<Mode> RegistryState::mode(const std::optional<std::string>& subject) const {
  if (!subject) return global_mode_;
  const auto it = modes_.find(*subject);
  return it == modes_.end() ? std::nullopt : std::optional<Mode>(it->second);
}

void RegistryState::note_raw_key(const RecordKey& key, bool deleted) {
  RecordKey canonical = key;
  canonical.raw.clear();
  const auto id = encode_key(canonical);
  if (!deleted) {
    legacy_keys_[id].insert(key.raw);
    return;
  }
  const auto it = legacy_keys_.find(id);
  if (it == legacy_keys_.end()) return;
  it->second.erase(key.raw);
  if (it->second.empty()) legacy_keys_.erase(it);
}

std::vector<std::string> RegistryState::legacy_keys(const RecordKey& key) const {
  RecordKey canonical = key;
  canonical.raw.clear();
  const auto it = legacy_keys_.find(encode_key(canonical));
  if (it == legacy_keys_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::vector<std::string> RegistryState::contexts() const {
  std::set<std::string> found(declared_contexts_.begin(), declared_contexts_.end());
  for (const auto& [name, versions] : subjects_) found.insert(context_of(name));
  found.erase(std::string(kDefaultContext));
  std::vector<std::string> out{std::string(kDefaultContext)};
  out.insert(out.end(), found.begin(), found.end());
  return out;
}

RegistryState::Counts RegistryState::counts() const {
  Counts c;
  for (const auto& [subject, versions] : subjects_) {
    size_t live = 0;
    for (const auto& [v, rec] : versions) live += rec.deleted ? 0 : 1;
    c.versions += live;
    c.subjects += live > 0 ? 1 : 0;
  }
  for (const auto& [context, ids] : ids_) c.schemas += ids.users.size();
  return c;
}

}  // namespace skiff::schemareg
