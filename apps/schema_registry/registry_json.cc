#include "apps/schema_registry/registry_json.h"

#include <charconv>
#include <limits>

#include "common/json.h"
#include "common/json_writer.h"

namespace skiff::schemareg {
namespace {

RegistryError not_json() { return {400, 400, "Unrecognized request body: not a JSON object"}; }
RegistryError wrong_type(std::string_view member) {
  return {422, 422, "Invalid value for member '" + std::string(member) + "'"};
}

// A member that must be a string, or absent (or null).
bool read_string(const JsonValue& doc, std::string_view name, std::optional<std::string>& out) {
  const auto* v = doc.find(name);
  if (!v || v->kind == JsonValue::Kind::kNull) return true;
  if (v->kind != JsonValue::Kind::kString) return false;
  out = v->string;
  return true;
}

bool read_int32(const JsonValue& doc, std::string_view name, std::optional<int32_t>& out) {
  const auto* v = doc.find(name);
  if (!v || v->kind == JsonValue::Kind::kNull) return true;
  if (v->kind != JsonValue::Kind::kNumber) return false;
  int64_t n = 0;
  const auto& t = v->number_text;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (ec != std::errc() || p != t.data() + t.size()) return false;
  if (n < std::numeric_limits<int32_t>::min() || n > std::numeric_limits<int32_t>::max()) return false;
  out = static_cast<int32_t>(n);
  return true;
}

bool read_bool(const JsonValue& doc, std::string_view name, std::optional<bool>& out) {
  const auto* v = doc.find(name);
  if (!v || v->kind == JsonValue::Kind::kNull) return true;
  if (v->kind != JsonValue::Kind::kBool) return false;
  out = v->boolean;
  return true;
}

void read_raw(const JsonValue& doc, std::string_view name, std::optional<RawJson>& out) {
  const auto* v = doc.find(name);
  if (v && v->kind != JsonValue::Kind::kNull) out = to_raw_json(*v);
}

bool read_references(const JsonValue& doc, std::vector<schema::SchemaReference>& out) {
  const auto* v = doc.find("references");
  if (!v || v->kind == JsonValue::Kind::kNull) return true;
  if (v->kind != JsonValue::Kind::kArray) return false;
  for (const auto& r : v->array) {
    if (r.kind != JsonValue::Kind::kObject) return false;
    std::optional<std::string> name, subject;
    std::optional<int32_t> version;
    if (!read_string(r, "name", name) || !read_string(r, "subject", subject) || !read_int32(r, "version", version)) {
      return false;
    }
    out.push_back({name.value_or(""), subject.value_or(""), version.value_or(-1)});
  }
  return true;
}

void write_references(JsonWriter& w, const std::vector<schema::SchemaReference>& refs) {
  if (refs.empty()) return;
  w.key("references").begin_array();
  for (const auto& r : refs) {
    w.begin_object().field("name", r.name).field("subject", r.subject).field("version", r.version).end_object();
  }
  w.end_array();
}

void write_raw(JsonWriter& w, std::string_view name, const std::optional<RawJson>& raw) {
  if (raw) w.key(name).raw(raw->text);
}

void write_schema_members(JsonWriter& w, const SubjectSchema& s) {
  if (s.type != schema::SchemaType::kAvro) w.field("schemaType", schema::type_name(s.type));
  write_references(w, s.references);
  write_raw(w, "metadata", s.metadata);
  write_raw(w, "ruleSet", s.rule_set);
  w.field("schema", s.schema);
}

void write_schema(JsonWriter& w, const SubjectSchema& s) {
  w.begin_object().field("subject", s.subject).field("version", s.version).field("id", s.id);
  write_schema_members(w, s);
  w.end_object();
}

void write_config(JsonWriter& w, const ConfigRecord& c, std::string_view level_name) {
  w.begin_object();
  if (c.alias) w.field("alias", *c.alias);
  if (c.alias_for_deks) w.field("aliasForDeks", *c.alias_for_deks);
  if (c.normalize) w.field("normalize", *c.normalize);
  if (c.validate_fields) w.field("validateFields", *c.validate_fields);
  if (c.validate_new_schemas) w.field("validateNewSchemas", *c.validate_new_schemas);
  if (c.validate_rules) w.field("validateRules", *c.validate_rules);
  if (c.compatibility_level) w.field(level_name, *c.compatibility_level);
  if (c.compatibility_policy) w.field("compatibilityPolicy", *c.compatibility_policy);
  if (c.compatibility_group) w.field("compatibilityGroup", *c.compatibility_group);
  write_raw(w, "defaultMetadata", c.default_metadata);
  write_raw(w, "overrideMetadata", c.override_metadata);
  write_raw(w, "defaultRuleSet", c.default_rule_set);
  write_raw(w, "overrideRuleSet", c.override_rule_set);
  w.end_object();
}

}  // namespace

Expected<SchemaInput, RegistryError> decode_schema_request(std::string_view body) {
  const auto doc = parse_json(body, 64);
  if (!doc || doc->kind != JsonValue::Kind::kObject) return unexpected(not_json());
  SchemaInput in;
  std::optional<std::string> text;
  if (!read_string(*doc, "schema", text)) return unexpected(wrong_type("schema"));
  in.schema = text.value_or("");
  if (!read_string(*doc, "schemaType", in.schema_type)) return unexpected(wrong_type("schemaType"));
  if (!read_references(*doc, in.references)) return unexpected(wrong_type("references"));
  if (!read_int32(*doc, "version", in.version)) return unexpected(wrong_type("version"));
  if (!read_int32(*doc, "id", in.id)) return unexpected(wrong_type("id"));
  read_raw(*doc, "metadata", in.metadata);
  read_raw(*doc, "ruleSet", in.rule_set);
  return in;
}

Expected<ConfigRecord, RegistryError> decode_config_request(std::string_view body) {
  const auto doc = parse_json(body, 64);
  if (!doc || doc->kind != JsonValue::Kind::kObject) return unexpected(not_json());
  ConfigRecord c;
  bool ok = read_string(*doc, "compatibility", c.compatibility_level);
  if (ok && !c.compatibility_level) ok = read_string(*doc, "compatibilityLevel", c.compatibility_level);
  ok = ok && read_string(*doc, "alias", c.alias) && read_string(*doc, "aliasForDeks", c.alias_for_deks);
  ok = ok && read_bool(*doc, "normalize", c.normalize) && read_bool(*doc, "validateFields", c.validate_fields);
  ok = ok && read_bool(*doc, "validateNewSchemas", c.validate_new_schemas);
  ok = ok && read_bool(*doc, "validateRules", c.validate_rules);
  ok = ok && read_string(*doc, "compatibilityPolicy", c.compatibility_policy);
  ok = ok && read_string(*doc, "compatibilityGroup", c.compatibility_group);
  if (!ok) return unexpected(wrong_type("config"));
  read_raw(*doc, "defaultMetadata", c.default_metadata);
  read_raw(*doc, "overrideMetadata", c.override_metadata);
  read_raw(*doc, "defaultRuleSet", c.default_rule_set);
  read_raw(*doc, "overrideRuleSet", c.override_rule_set);
  return c;
}

Expected<std::string, RegistryError> decode_mode_request(std::string_view body) {
  const auto doc = parse_json(body, 8);
  if (!doc || doc->kind != JsonValue::Kind::kObject) return unexpected(not_json());
  std::optional<std::string> mode;
  if (!read_string(*doc, "mode", mode)) return unexpected(wrong_type("mode"));
  return mode.value_or("");
}

std::string error_json(const RegistryError& error) {
  JsonWriter w;
  w.begin_object().field("error_code", error.error_code).field("message", error.message).end_object();
  return w.take();
}

std::string schema_json(const SubjectSchema& schema) {
  JsonWriter w;
  write_schema(w, schema);
  return w.take();
}

std::string schemas_json(const std::vector<SubjectSchema>& schemas) {
  JsonWriter w;
  w.begin_array();
  for (const auto& s : schemas) write_schema(w, s);
  w.end_array();
  return w.take();
}

std::string schema_string_json(const SubjectSchema& schema, std::optional<int32_t> max_id) {
  JsonWriter w;
  w.begin_object();
  write_schema_members(w, schema);
  if (max_id) w.field("maxId", *max_id);
  w.end_object();
  return w.take();
}

std::string register_json(const SubjectSchema& registered) {
  JsonWriter w;
  w.begin_object().field("id", registered.id).end_object();
  return w.take();
}

std::string config_json(const ConfigRecord& config) {
  JsonWriter w;
  write_config(w, config, "compatibilityLevel");
  return w.take();
}

std::string config_update_json(const ConfigRecord& config) {
  JsonWriter w;
  write_config(w, config, "compatibility");
  return w.take();
}

std::string mode_json(Mode mode) {
  JsonWriter w;
  w.begin_object().field("mode", mode_name(mode)).end_object();
  return w.take();
}

std::string compatibility_json(const CompatibilityResult& result, bool verbose) {
  JsonWriter w;
  w.begin_object().field("is_compatible", result.is_compatible);
  if (verbose) {
    w.key("messages").begin_array();
    for (const auto& m : result.messages) w.value(m);
    w.end_array();
  }
  w.end_object();
  return w.take();
}

std::string subject_versions_json(const std::vector<SubjectVersion>& versions) {
  JsonWriter w;
  w.begin_array();
  for (const auto& v : versions) w.begin_object().field("subject", v.subject).field("version", v.version).end_object();
  w.end_array();
  return w.take();
}

std::string strings_json(const std::vector<std::string>& items) {
  JsonWriter w;
  w.begin_array();
  for (const auto& s : items) w.value(s);
  w.end_array();
  return w.take();
}

std::string ints_json(const std::vector<int32_t>& items) {
  JsonWriter w;
  w.begin_array();
  for (const auto n : items) w.value(n);
  w.end_array();
  return w.take();
}

}  // namespace skiff::schemareg
