#include "apps/schema_registry/registry_logic.h"

#include <set>

namespace skiff::schemareg::logic {
namespace {

// Confluent's client SchemaReference.toString().
std::string java_refs(const std::vector<schema::SchemaReference>& refs) {
  std::vector<std::string> items;
  items.reserve(refs.size());
  for (const auto& r : refs) {
    items.push_back("{name='" + r.name + "', subject='" + r.subject + "', version=" + std::to_string(r.version) + "}");
  }
  return java_list(items);
}

// Confluent's "Invalid schema {<Schema.toString()>} with refs [...] of type T, details: ..."
RegistryError invalid(std::string_view subject, std::string_view type, std::string_view text,
                      const std::vector<schema::SchemaReference>& refs, std::string_view details) {
  const auto r = java_refs(refs);
  return errors::invalid_schema("Invalid schema {subject=" + std::string(subject) +
                                ",version=0,id=-1,schemaType=" + std::string(type) + ",references=" + r +
                                ",metadata=null,ruleSet=null,schema=" + std::string(text) + "} with refs " + r +
                                " of type " + std::string(type) + ", details: " + std::string(details));
}

bool same_refs(const std::vector<schema::SchemaReference>& a, const std::vector<schema::SchemaReference>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].subject != b[i].subject || a[i].version != b[i].version) return false;
  }
  return true;
}

class Resolver {
 public:
  explicit Resolver(const RegistryState& state) : state_(state) {}

  // Adds ref's dependencies, then ref; the reason when it cannot.
  std::optional<std::string> visit(std::string_view referrer, const schema::SchemaReference& ref, int depth) {
    if (depth > kMaxReferenceDepth) return "references nest deeper than " + std::to_string(kMaxReferenceDepth);
    const auto target = qualify_with_parent(referrer, ref.subject);
    const auto* rec = ref.version == -1 ? state_.latest(target, false) : state_.version(target, ref.version);
    if (!rec) {
      return "No schema reference found for subject \"" + target + "\" and version " + std::to_string(ref.version);
    }
    const SubjectVersionKey key{rec->subject, rec->version};
    if (!visiting_.insert(key).second) return "Circular reference to subject \"" + rec->subject + "\"";
    for (const auto& dep : rec->references) {
      if (auto why = visit(rec->subject, dep, depth + 1)) return why;
    }
    visiting_.erase(key);
    if (names_.insert(ref.name).second) out_.push_back({ref.name, rec->schema});
    return std::nullopt;
  }
  std::vector<schema::ResolvedReference> take() { return std::move(out_); }

 private:
  const RegistryState& state_;
  std::vector<schema::ResolvedReference> out_;
  std::set<std::string> names_;
  std::set<SubjectVersionKey> visiting_;
};

Expected<ParsedPtr, RegistryError> parse_source(ParseCache& parser, const RegistryState& state,
                                                std::string_view subject, schema::SchemaSource source) {
  const auto type = schema::type_name(source.type);
  if (source.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return unexpected(errors::invalid_schema("Empty schema"));
  }
  Resolver resolver(state);
  for (const auto& ref : source.references) {
    if (auto why = resolver.visit(subject, ref, 1)) {
      return unexpected(invalid(subject, type, source.text, source.references, *why));
    }
  }
  source.resolved = resolver.take();
  auto parsed = parser.parse(source);
  if (!parsed) return unexpected(invalid(subject, type, source.text, source.references, parsed.error().message));
  return *parsed;
}

}  // namespace

void push_tombstone(const RegistryState& state, const RecordKey& key, std::vector<Record>& out) {
  out.push_back({key, Tombstone{}});
  for (auto& raw : state.legacy_keys(key)) {
    RecordKey form = key;
    form.raw = std::move(raw);
    out.push_back({std::move(form), Tombstone{}});
  }
}

std::string java_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

Expected<std::vector<schema::ResolvedReference>, RegistryError> resolve_references(
    const RegistryState& state, std::string_view referrer, const std::vector<schema::SchemaReference>& refs) {
  Resolver resolver(state);
  for (const auto& ref : refs) {
    if (auto why = resolver.visit(referrer, ref, 1)) return unexpected(errors::invalid_schema(*why));
  }
  return resolver.take();
}

Expected<ParsedPtr, RegistryError> parse_input(ParseCache& parser, const RegistryState& state, std::string_view subject,
                                               const SchemaInput& input) {
  const auto type = input.schema_type ? schema::parse_type_name(*input.schema_type) : schema::SchemaType::kAvro;
  if (!type) return unexpected(errors::invalid_schema("Invalid schema type " + *input.schema_type));
  return parse_source(parser, state, subject, schema::SchemaSource{*type, input.schema, input.references, {}});
}

Expected<ParsedPtr, RegistryError> parse_stored(ParseCache& parser, const RegistryState& state,
                                                const SchemaRecord& stored) {
  return parse_source(parser, state, stored.subject,
                      schema::SchemaSource{stored.type, stored.schema, stored.references, {}});
}

std::string stored_text(const schema::ParsedSchema& parsed, bool normalize) {
  return normalize ? parsed.normalized() : parsed.canonical();
}

const SchemaRecord* find_under_subject(ParseCache& parser, const RegistryState& state, std::string_view subject,
                                       const schema::ParsedSchema& candidate,
                                       const std::vector<schema::SchemaReference>& refs, bool normalize,
                                       bool include_deleted) {
  const auto* versions = state.versions(subject);
  if (!versions) return nullptr;
  const auto canonical = candidate.canonical();
  const auto normalized = normalize ? candidate.normalized() : std::string();
  auto same_kind = [&](const SchemaRecord& r) {
    return (include_deleted || !r.deleted) && r.type == candidate.type() && same_refs(r.references, refs);
  };
  for (auto it = versions->rbegin(); it != versions->rend(); ++it) {
    const auto& r = it->second;
    if (same_kind(r) && (r.schema == canonical || (normalize && r.schema == normalized))) return &r;
  }
  if (!normalize) return nullptr;
  for (auto it = versions->rbegin(); it != versions->rend(); ++it) {
    if (!same_kind(it->second)) continue;
    auto parsed = parse_stored(parser, state, it->second);
    if (parsed && (*parsed)->normalized() == normalized) return &it->second;
  }
  return nullptr;
}

namespace {

// Confluent's lookup order (InMemoryCache.config / mode): the subject, then
// its context's top level (":.ctx:", the default context's is the global
// one), then the ".__GLOBAL" context's.
std::vector<std::optional<std::string>> scope_chain(const std::optional<std::string>& subject) {
  std::vector<std::optional<std::string>> chain{subject};
  if (subject) {
    const auto ctx = context_of(*subject);
    chain.push_back(ctx == kDefaultContext ? std::nullopt : std::optional<std::string>(context_prefix(ctx)));
  }
  chain.emplace_back(context_prefix(kGlobalContext));
  return chain;
}

}  // namespace

ConfigRecord config_in_scope(const RegistryState& state, const RegistryOptions& options,
                             const std::optional<std::string>& subject) {
  ConfigRecord out;
  for (const auto& s : scope_chain(subject)) {
    if (const auto* c = state.config(s)) {
      out = *c;
      break;
    }
  }
  return with_level(std::move(out), options);
}

ConfigRecord with_level(ConfigRecord config, const RegistryOptions& options) {
  if (!config.compatibility_level || !parse_level(*config.compatibility_level)) {
    config.compatibility_level = std::string(level_name(options.default_compatibility));
  }
  return config;
}

std::vector<std::string> compatibility_lines(const RegistryState& state, const RegistryOptions& options,
                                             const std::string& subject, const schema::ParsedSchema& candidate,
                                             const std::vector<PreviousSchema>& previous) {
  const auto config = config_in_scope(state, options, subject);
  const auto level = parse_level(*config.compatibility_level).value_or(options.default_compatibility);
  return registry_compatibility(level, config.validate_fields.value_or(options.validate_fields), candidate, previous);
}

Mode mode_in_scope(const RegistryState& state, const std::optional<std::string>& subject) {
  for (const auto& s : scope_chain(subject)) {
    if (const auto m = state.mode(s)) return *m;
  }
  return Mode::kReadWrite;
}

std::optional<RegistryError> refuse_if_read_only(const RegistryState& state,
                                                 const std::optional<std::string>& subject) {
  const auto mode = mode_in_scope(state, subject);
  if (mode != Mode::kReadOnly && mode != Mode::kReadOnlyOverride) return std::nullopt;
  return errors::operation_not_permitted("Subject " + subject.value_or("null") + " in context " +
                                         context_of(subject.value_or("")) + " is in read-only mode");
}

std::optional<RegistryError> check_register_mode(const RegistryState& state, const std::string& subject, bool has_id) {
  if (auto e = refuse_if_read_only(state, subject)) return e;
  const auto mode = mode_in_scope(state, subject);
  const auto where = "Subject " + subject + " in context " + context_of(subject);
  if (has_id && mode != Mode::kImport && mode != Mode::kForward) {
    return errors::operation_not_permitted(where + " is not in import mode");
  }
  if (!has_id && mode != Mode::kReadWrite) return errors::operation_not_permitted(where + " is not in read-write mode");
  return std::nullopt;
}

bool valid_subject(std::string_view subject, bool config_or_mode) {
  for (size_t i = 0; i < subject.size(); ++i) {
    const auto c = static_cast<unsigned char>(subject[i]);
    const bool c1 = c == 0xc2 && i + 1 < subject.size() && static_cast<unsigned char>(subject[i + 1]) <= 0x9f &&
                    static_cast<unsigned char>(subject[i + 1]) >= 0x80;  // U+0080..U+009F
    if (c < 0x20 || c == 0x7f || c1) return false;
  }
  const auto prefix = context_prefix(context_of(subject));
  const auto name = subject.substr(subject.substr(0, 3) == ":.:" ? 3 : prefix.size());
  if (name == "__GLOBAL" || name == "__EMPTY") return false;
  if (config_or_mode) return true;
  return !name.empty() && name != "*" && context_of(subject) != ".__GLOBAL";
}

std::vector<const SchemaRecord*> live_versions(const RegistryState& state, std::string_view subject) {
  std::vector<const SchemaRecord*> out;
  if (const auto* versions = state.versions(subject)) {
    for (const auto& [v, r] : *versions) {
      if (!r.deleted) out.push_back(&r);
    }
  }
  return out;
}

}  // namespace skiff::schemareg::logic
