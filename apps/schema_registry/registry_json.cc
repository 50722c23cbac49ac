#include "apps/schema_registry/registry_json.h"

#include <cmath>

#include "common/json_writer.h"

namespace skiff::schemareg::json {
namespace {

RegistryError unprocessable(std::string message) { return RegistryError{422, 422, std::move(message)}; }

std::optional<int32_t> as_int(const JsonValue* v) {
  if (!v || v->kind != JsonValue::Kind::kNumber || std::floor(v->number) != v->number) return std::nullopt;
  if (v->number < -2147483648.0 || v->number > 2147483647.0) return std::nullopt;
  return static_cast<int32_t>(v->number);
}

Expected<std::vector<schema::SchemaReference>, RegistryError> references(const JsonValue* v) {
  std::vector<schema::SchemaReference> out;
  if (!v || v->kind == JsonValue::Kind::kNull) return out;
  if (v->kind != JsonValue::Kind::kArray) return unexpected(unprocessable("references must be an array"));
  for (const auto& r : v->array) {
    const JsonValue* name = r.find("name");
    const JsonValue* subject = r.find("subject");
    const auto version = as_int(r.find("version"));
    if (r.kind != JsonValue::Kind::kObject || !name || name->kind != JsonValue::Kind::kString || !subject ||
        subject->kind != JsonValue::Kind::kString || !version)
      return unexpected(unprocessable("a reference needs a name, a subject and a version"));
    out.push_back({name->string, subject->string, *version});
  }
  return out;
}

std::optional<RawJson> raw(const JsonValue* v) {
  if (!v || v->kind == JsonValue::Kind::kNull) return std::nullopt;
  JsonWriter w;
  w.value(*v);
  return RawJson{w.take()};
}

void write_references(JsonWriter& w, const std::vector<schema::SchemaReference>& refs) {
  if (refs.empty()) return;
  w.key("references").begin_array();
  for (const auto& r : refs)
    w.begin_object().field("name", r.name).field("subject", r.subject).field("version", r.version).end_object();
  w.end_array();
}

void write_schema_body(JsonWriter& w, const SubjectSchema& s) {
  if (s.type != schema::SchemaType::kAvro) w.field("schemaType", schema::type_name(s.type));
  write_references(w, s.references);
  if (s.metadata) w.key("metadata").raw(s.metadata->text);
  if (s.rule_set) w.key("ruleSet").raw(s.rule_set->text);
  w.field("schema", s.schema);
}

void write_subject_schema(JsonWriter& w, const SubjectSchema& s) {
  w.begin_object().field("subject", s.subject).field("version", s.version).field("id", s.id);
  write_schema_body(w, s);
  w.end_object();
}

template <class T>
void opt(JsonWriter& w, std::string_view name, const std::optional<T>& v) {
  if (v) w.field(name, *v);
}

void opt_raw(JsonWriter& w, std::string_view name, const std::optional<RawJson>& v) {
  if (v) w.key(name).raw(v->text);
}

}  // namespace

Expected<SchemaInput, RegistryError> schema_input(const JsonValue& body) {
  if (body.kind != JsonValue::Kind::kObject) return unexpected(unprocessable("the body must be a JSON object"));
  SchemaInput in;
  const JsonValue* schema = body.find("schema");
  if (!schema || schema->kind != JsonValue::Kind::kString || schema->string.empty())
    return unexpected(errors::invalid_schema("Empty schema"));
  in.schema = schema->string;
  if (const JsonValue* t = body.find("schemaType"); t && t->kind == JsonValue::Kind::kString) in.schema_type = t->string;
  auto refs = references(body.find("references"));
  if (!refs) return unexpected(refs.error());
  in.references = std::move(*refs);
  in.id = as_int(body.find("id"));
  in.version = as_int(body.find("version"));
  in.metadata = raw(body.find("metadata"));
  in.rule_set = raw(body.find("ruleSet"));
  return in;
}

Expected<ConfigRecord, RegistryError> config_update(const JsonValue& body) {
  if (body.kind != JsonValue::Kind::kObject) return unexpected(unprocessable("the body must be a JSON object"));
  ConfigRecord c;
  auto str = [&](std::string_view name) -> std::optional<std::string> {
    const JsonValue* v = body.find(name);
    return v && v->kind == JsonValue::Kind::kString ? std::optional(v->string) : std::nullopt;
  };
  auto boolean = [&](std::string_view name) -> std::optional<bool> {
    const JsonValue* v = body.find(name);
    return v && v->kind == JsonValue::Kind::kBool ? std::optional(v->boolean) : std::nullopt;
  };
  c.compatibility_level = str("compatibility");
  if (!c.compatibility_level) c.compatibility_level = str("compatibilityLevel");
  c.alias = str("alias");
  c.normalize = boolean("normalize");
  c.validate_fields = boolean("validateFields");
  c.validate_rules = boolean("validateRules");
  c.compatibility_group = str("compatibilityGroup");
  c.default_metadata = raw(body.find("defaultMetadata"));
  c.override_metadata = raw(body.find("overrideMetadata"));
  c.default_rule_set = raw(body.find("defaultRuleSet"));
  c.override_rule_set = raw(body.find("overrideRuleSet"));
  return c;
}

Expected<std::string, RegistryError> mode_update(const JsonValue& body) {
  const JsonValue* m = body.kind == JsonValue::Kind::kObject ? body.find("mode") : nullptr;
  if (!m || m->kind != JsonValue::Kind::kString) return unexpected(errors::invalid_mode());
  return m->string;
}

std::string subject_schema(const SubjectSchema& s) {
  JsonWriter w;
  write_subject_schema(w, s);
  return w.take();
}

std::string subject_schemas(const std::vector<SubjectSchema>& list) {
  JsonWriter w;
  w.begin_array();
  for (const auto& s : list) write_subject_schema(w, s);
  w.end_array();
  return w.take();
}

std::string schema_string(const SubjectSchema& s, std::optional<int32_t> max_id) {
  JsonWriter w;
  w.begin_object();
  write_schema_body(w, s);
  opt(w, "maxId", max_id);
  w.end_object();
  return w.take();
}

std::string config(const ConfigRecord& c, bool as_update) {
  JsonWriter w;
  w.begin_object();
  opt(w, "alias", c.alias);
  opt(w, "normalize", c.normalize);
  opt(w, "validateFields", c.validate_fields);
  opt(w, "validateRules", c.validate_rules);
  opt(w, as_update ? "compatibility" : "compatibilityLevel", c.compatibility_level);
  opt(w, "compatibilityPolicy", c.compatibility_policy);
  opt(w, "compatibilityGroup", c.compatibility_group);
  opt_raw(w, "defaultMetadata", c.default_metadata);
  opt_raw(w, "overrideMetadata", c.override_metadata);
  opt_raw(w, "defaultRuleSet", c.default_rule_set);
  opt_raw(w, "overrideRuleSet", c.override_rule_set);
  w.end_object();
  return w.take();
}

std::string compatibility(const CompatibilityResult& r, bool verbose) {
  JsonWriter w;
  w.begin_object().field("is_compatible", r.is_compatible);
  if (verbose) {
    w.key("messages").begin_array();
    for (const auto& m : r.messages) w.value(m);
    w.end_array();
  }
  w.end_object();
  return w.take();
}

std::string error(const RegistryError& e) {
  JsonWriter w;
  w.begin_object().field("error_code", e.error_code).field("message", e.message).end_object();
  return w.take();
}

std::string strings(const std::vector<std::string>& list) {
  JsonWriter w;
  w.begin_array();
  for (const auto& s : list) w.value(s);
  w.end_array();
  return w.take();
}

std::string ints(const std::vector<int32_t>& list) {
  JsonWriter w;
  w.begin_array();
  for (int32_t v : list) w.value(v);
  w.end_array();
  return w.take();
}

std::string subject_versions(const std::vector<SubjectVersion>& list) {
  JsonWriter w;
  w.begin_array();
  for (const auto& sv : list) w.begin_object().field("subject", sv.subject).field("version", sv.version).end_object();
  w.end_array();
  return w.take();
}

}  // namespace skiff::schemareg::json
