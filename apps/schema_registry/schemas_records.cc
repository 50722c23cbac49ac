#include "apps/schema_registry/schemas_records.h"

#include <charconv>
#include <limits>

#include "common/json.h"
#include "common/json_writer.h"

namespace skiff::schemareg {
namespace {

// A compact JSON object, members appended in the order written.
class ObjectText {
 public:
  ObjectText& str(std::string_view name, std::string_view v) {
    key(name);
    append_jackson_string(out_, v);
    return *this;
  }
  ObjectText& opt_str(std::string_view name, const std::optional<std::string>& v) {
    return v && !v->empty() ? str(name, *v) : *this;  // Jackson's NON_EMPTY
  }
  ObjectText& num(std::string_view name, int64_t v) {
    key(name);
    out_ += std::to_string(v);
    return *this;
  }
  ObjectText& boolean(std::string_view name, bool v) {
    key(name);
    out_ += v ? "true" : "false";
    return *this;
  }
  ObjectText& opt_bool(std::string_view name, std::optional<bool> v) { return v ? boolean(name, *v) : *this; }
  ObjectText& raw(std::string_view name, std::string_view json) {
    key(name);
    out_ += json;
    return *this;
  }
  ObjectText& opt_raw(std::string_view name, const std::optional<RawJson>& v) { return v ? raw(name, v->text) : *this; }
  std::string take() {
    out_ += '}';
    return std::move(out_);
  }

 private:
  void key(std::string_view name) {
    out_ += first_ ? "" : ",";
    first_ = false;
    append_jackson_string(out_, name);
    out_ += ':';
  }
  std::string out_ = "{";
  bool first_ = true;
};

std::string references_text(const std::vector<schema::SchemaReference>& refs) {
  std::string out = "[";
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i) out += ',';
    ObjectText o;
    o.str("name", refs[i].name).str("subject", refs[i].subject).num("version", refs[i].version);
    out += o.take();
  }
  return out + "]";
}

std::string schema_value_text(const SchemaRecord& s) {
  ObjectText o;
  o.str("subject", s.subject).num("version", s.version).num("id", s.id).str("schemaType", schema::type_name(s.type));
  if (!s.references.empty()) o.raw("references", references_text(s.references));
  o.opt_raw("metadata", s.metadata).opt_raw("ruleSet", s.rule_set);
  return o.str("schema", s.schema).boolean("deleted", s.deleted).take();
}

std::string config_value_text(const ConfigRecord& c) {
  ObjectText o;
  o.opt_str("subject", c.subject).opt_str("alias", c.alias).opt_str("aliasForDeks", c.alias_for_deks);
  o.opt_bool("normalize", c.normalize).opt_bool("validateFields", c.validate_fields);
  o.opt_bool("validateNewSchemas", c.validate_new_schemas).opt_bool("validateRules", c.validate_rules);
  o.opt_str("compatibilityLevel", c.compatibility_level).opt_str("compatibilityPolicy", c.compatibility_policy);
  o.opt_str("compatibilityGroup", c.compatibility_group);
  o.opt_raw("defaultMetadata", c.default_metadata).opt_raw("overrideMetadata", c.override_metadata);
  o.opt_raw("defaultRuleSet", c.default_rule_set).opt_raw("overrideRuleSet", c.override_rule_set);
  return o.take();
}

// --- decoding ---

Unexpected<DecodeError> fail(std::string why) { return unexpected(DecodeError{std::move(why)}); }

std::optional<int32_t> as_int32(const JsonValue* v) {
  if (!v || v->kind != JsonValue::Kind::kNumber) return std::nullopt;
  int64_t n = 0;
  const auto& t = v->number_text;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  if (n < std::numeric_limits<int32_t>::min() || n > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int32_t>(n);
}

std::optional<std::string> as_string(const JsonValue* v) {
  if (!v || v->kind != JsonValue::Kind::kString) return std::nullopt;
  return v->string;
}

std::optional<bool> as_bool(const JsonValue* v) {
  if (!v || v->kind != JsonValue::Kind::kBool) return std::nullopt;
  return v->boolean;
}

std::optional<RawJson> as_raw(const JsonValue* v) {
  if (!v || v->kind == JsonValue::Kind::kNull) return std::nullopt;
  RawJson raw;
  append_compact_json(raw.text, *v);
  return raw;
}

std::optional<KeyType> key_type_of(std::string_view name) {
  static constexpr std::pair<std::string_view, KeyType> kTypes[] = {{"SCHEMA", KeyType::kSchema},
                                                                    {"CONFIG", KeyType::kConfig},
                                                                    {"MODE", KeyType::kMode},
                                                                    {"NOOP", KeyType::kNoop},
                                                                    {"DELETE_SUBJECT", KeyType::kDeleteSubject},
                                                                    {"CLEAR_SUBJECT", KeyType::kClearSubject},
                                                                    {"CONTEXT", KeyType::kContext},
                                                                    {"ASSOC", KeyType::kOther}};
  for (const auto& [n, t] : kTypes) {
    if (n == name) return t;
  }
  return std::nullopt;
}

Expected<std::vector<schema::SchemaReference>, DecodeError> decode_references(const JsonValue* v) {
  std::vector<schema::SchemaReference> refs;
  if (!v || v->kind == JsonValue::Kind::kNull) return refs;
  if (v->kind != JsonValue::Kind::kArray) return fail("references is not an array");
  for (const auto& r : v->array) {
    auto name = as_string(r.find("name"));
    auto subject = as_string(r.find("subject"));
    auto version = as_int32(r.find("version"));
    if (!name || !subject || !version) return fail("a reference lacks name, subject or version");
    refs.push_back({std::move(*name), std::move(*subject), *version});
  }
  return refs;
}

Expected<RecordValue, DecodeError> decode_schema_value(const RecordKey& key, const JsonValue& v) {
  SchemaRecord s;
  s.subject = as_string(v.find("subject")).value_or(key.subject.value_or(""));
  s.version = as_int32(v.find("version")).value_or(key.version);
  const auto id = as_int32(v.find("id"));
  auto text = as_string(v.find("schema"));
  if (!id || !text) return fail("a SCHEMA value lacks its id or schema");
  s.id = *id;
  s.schema = std::move(*text);
  if (const auto type = as_string(v.find("schemaType"))) {
    const auto t = schema::parse_type_name(*type);
    if (!t) return fail("unknown schemaType " + *type);
    s.type = *t;
  }
  auto refs = decode_references(v.find("references"));
  if (!refs) return fail(refs.error().message);
  s.references = std::move(*refs);
  s.metadata = as_raw(v.find("metadata"));
  s.rule_set = as_raw(v.find("ruleSet"));
  s.deleted = as_bool(v.find("deleted")).value_or(false);
  return s;
}

ConfigRecord decode_config_value(const JsonValue& v) {
  ConfigRecord c;
  c.subject = as_string(v.find("subject"));
  c.alias = as_string(v.find("alias"));
  c.alias_for_deks = as_string(v.find("aliasForDeks"));
  c.normalize = as_bool(v.find("normalize"));
  c.validate_fields = as_bool(v.find("validateFields"));
  c.validate_new_schemas = as_bool(v.find("validateNewSchemas"));
  c.validate_rules = as_bool(v.find("validateRules"));
  c.compatibility_level = as_string(v.find("compatibilityLevel"));
  c.compatibility_policy = as_string(v.find("compatibilityPolicy"));
  c.compatibility_group = as_string(v.find("compatibilityGroup"));
  c.default_metadata = as_raw(v.find("defaultMetadata"));
  c.override_metadata = as_raw(v.find("overrideMetadata"));
  c.default_rule_set = as_raw(v.find("defaultRuleSet"));
  c.override_rule_set = as_raw(v.find("overrideRuleSet"));
  return c;
}

Expected<RecordValue, DecodeError> decode_object_value(const RecordKey& key, const JsonValue& v) {
  switch (key.type) {
    case KeyType::kSchema:
      return decode_schema_value(key, v);
    case KeyType::kConfig:
      return RecordValue{decode_config_value(v)};
    case KeyType::kMode: {
      auto mode = as_string(v.find("mode"));
      if (!mode) return fail("a MODE value lacks its mode");
      return RecordValue{ModeRecord{as_string(v.find("subject")), std::move(*mode)}};
    }
    case KeyType::kDeleteSubject: {
      const auto version = as_int32(v.find("version"));
      if (!version) return fail("a DELETE_SUBJECT value lacks its version");
      return RecordValue{
          DeleteSubjectRecord{as_string(v.find("subject")).value_or(key.subject.value_or("")), *version}};
    }
    case KeyType::kClearSubject: {
      auto subject = as_string(v.find("subject"));
      return RecordValue{ClearSubjectRecord{subject ? subject : key.subject}};
    }
    case KeyType::kContext:
      return RecordValue{ContextRecord{as_string(v.find("context")).value_or(key.context)}};
    default:
      return RecordValue{OpaqueValue{}};
  }
}

}  // namespace

RawJson to_raw_json(const JsonValue& value) {
  RawJson raw;
  append_compact_json(raw.text, value);
  return raw;
}

std::string_view key_type_name(KeyType t) {
  switch (t) {
    case KeyType::kSchema:
      return "SCHEMA";
    case KeyType::kConfig:
      return "CONFIG";
    case KeyType::kMode:
      return "MODE";
    case KeyType::kNoop:
      return "NOOP";
    case KeyType::kDeleteSubject:
      return "DELETE_SUBJECT";
    case KeyType::kClearSubject:
      return "CLEAR_SUBJECT";
    case KeyType::kContext:
      return "CONTEXT";
    case KeyType::kOther:
      return "ASSOC";
  }
  return "NOOP";
}

std::string encode_key(const RecordKey& key) {
  if (!key.raw.empty()) return key.raw;
  ObjectText o;
  o.str("keytype", key.type == KeyType::kOther ? std::string_view(key.type_name) : key_type_name(key.type));
  if (key.type == KeyType::kContext) {
    o.str("tenant", "default").str("context", key.context);
    return o.num("magic", key.magic).take();
  }
  if (key.type != KeyType::kNoop) o.opt_str("subject", key.subject);
  if (key.type == KeyType::kSchema) o.num("version", key.version);
  return o.num("magic", key.magic).take();
}

std::optional<std::string> encode_value(const RecordValue& value) {
  struct Visitor {
    std::optional<std::string> operator()(const Tombstone&) const { return std::nullopt; }
    std::optional<std::string> operator()(const OpaqueValue&) const { return std::string("{}"); }
    std::optional<std::string> operator()(const ContextRecord& c) const {
      ObjectText o;
      return o.str("tenant", "default").str("context", c.context).take();
    }
    std::optional<std::string> operator()(const SchemaRecord& s) const { return schema_value_text(s); }
    std::optional<std::string> operator()(const ConfigRecord& c) const { return config_value_text(c); }
    std::optional<std::string> operator()(const ModeRecord& m) const {
      ObjectText o;
      return o.opt_str("subject", m.subject).str("mode", m.mode).take();
    }
    std::optional<std::string> operator()(const DeleteSubjectRecord& d) const {
      ObjectText o;
      return o.str("subject", d.subject).num("version", d.version).take();
    }
    std::optional<std::string> operator()(const ClearSubjectRecord& c) const {
      ObjectText o;
      return o.opt_str("subject", c.subject).take();
    }
  };
  return std::visit(Visitor{}, value);
}

EncodedRecord encode(const Record& record) { return {encode_key(record.key), encode_value(record.value)}; }

RecordKey schema_key(std::string subject, int32_t version) {
  return RecordKey{KeyType::kSchema, std::move(subject), version, 1, {}, {}};
}
RecordKey config_key(std::optional<std::string> subject) {
  return RecordKey{KeyType::kConfig, std::move(subject), 0, 0, {}, {}};
}
RecordKey mode_key(std::optional<std::string> subject) {
  return RecordKey{KeyType::kMode, std::move(subject), 0, 0, {}, {}};
}
RecordKey delete_subject_key(std::string subject) {
  return RecordKey{KeyType::kDeleteSubject, std::move(subject), 0, 0, {}, {}};
}
RecordKey clear_subject_key(std::optional<std::string> subject) {
  return RecordKey{KeyType::kClearSubject, std::move(subject), 0, 0, {}, {}};
}
RecordKey noop_key() { return RecordKey{KeyType::kNoop, std::nullopt, 0, 0, {}, {}}; }
RecordKey context_key(std::string context) {
  return RecordKey{KeyType::kContext, std::nullopt, 0, 0, std::move(context), {}};
}

Expected<RecordKey, DecodeError> decode_key(std::string_view bytes) {
  const auto doc = parse_json(bytes);
  if (!doc || doc->kind != JsonValue::Kind::kObject) return fail("the key is not a JSON object");
  const auto type_name = as_string(doc->find("keytype"));
  if (!type_name) return fail("the key has no keytype");
  const auto type = key_type_of(*type_name);
  if (!type) return fail("Unknown schema registry key type : " + *type_name);
  RecordKey key;
  key.type = *type;
  key.type_name = *type_name;
  key.subject = as_string(doc->find("subject"));
  key.magic = as_int32(doc->find("magic")).value_or(0);
  key.context = as_string(doc->find("context")).value_or("");
  if (key.type == KeyType::kSchema) {
    const auto version = as_int32(doc->find("version"));
    if (!key.subject || !version) return fail("a SCHEMA key lacks its subject or version");
    if (key.magic != 0 && key.magic != 1) {
      return fail("Can't deserialize schema for the magic byte " + std::to_string(key.magic));
    }
    key.version = *version;
  }
  if (encode_key(key) != bytes) key.raw = std::string(bytes);
  return key;
}

Expected<RecordValue, DecodeError> decode_value(const RecordKey& key, std::optional<std::string_view> value) {
  if (!value || value->empty()) return RecordValue{Tombstone{}};
  const auto doc = parse_json(*value);
  if (!doc) return fail("the value of a " + std::string(key_type_name(key.type)) + " key is not JSON");
  if (doc->kind == JsonValue::Kind::kNull) return RecordValue{Tombstone{}};
  if (doc->kind != JsonValue::Kind::kObject) return fail("the value is not a JSON object");
  return decode_object_value(key, *doc);
}

Expected<Record, DecodeError> decode(std::string_view key, std::optional<std::string_view> value) {
  auto k = decode_key(key);
  if (!k) return unexpected(k.error());
  auto v = decode_value(*k, value);
  if (!v) return unexpected(v.error());
  return Record{std::move(*k), std::move(*v)};
}

}  // namespace skiff::schemareg
