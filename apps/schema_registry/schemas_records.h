// The records of the `_schemas` topic, in Confluent Schema Registry's format
// (core/.../storage/: SchemaRegistryKey and subclasses, SchemaValue,
// ConfigValue, ModeValue, DeleteSubjectValue, ClearSubjectValue, written by
// Jackson), so a topic written by Confluent's registry or Karapace is read
// and what Skiff writes is read by them.
//
// Byte layout (compact JSON, UTF-8; Jackson's escaping: \" \\ \b \f \n \r \t,
// other control characters as \u00XX, everything else as is):
//   keys, fields in this order, magic last:
//     {"keytype":"SCHEMA","subject":"s","version":1,"magic":1}
//     {"keytype":"CONFIG","subject":"s","magic":0}    global: {"keytype":"CONFIG","magic":0}
//     {"keytype":"MODE","subject":"s","magic":0}      global: {"keytype":"MODE","magic":0}
//     {"keytype":"DELETE_SUBJECT","subject":"s","magic":0}
//     {"keytype":"CLEAR_SUBJECT","subject":"s","magic":0}
//     {"keytype":"NOOP","magic":0}
//     {"keytype":"CONTEXT","tenant":"default","context":".ctx","magic":0}
//   (a null subject is left out, as Jackson's NON_EMPTY does since
//   Confluent 6.2; Karapace writes "subject":null, which is read the same.)
//   values (null members and empty lists left out):
//     SCHEMA  {"subject","version","id","schemaType","references":[{"name","subject","version"}],
//              "metadata","ruleSet","schema","deleted"}   (schemaType always written, "AVRO" too,
//              as Confluent 7+ writes it; absent on read means AVRO)
//     CONFIG  {"subject","alias","aliasForDeks","normalize","validateFields","validateNewSchemas",
//              "validateRules","compatibilityLevel","compatibilityPolicy","compatibilityGroup",
//              "defaultMetadata","overrideMetadata","defaultRuleSet","overrideRuleSet"}
//     MODE    {"subject","mode"}
//     DELETE_SUBJECT {"subject","version"}   CLEAR_SUBJECT {"subject"}
//     CONTEXT {"tenant","context"}   (written the first time a context gets a subject)
//   a null value (tombstone): a hard-deleted version, a deleted config or mode.
// Decoding accepts any member order (Karapace's older keys are
// {"subject","version","magic","keytype"}), missing optional members, unknown
// members (ignored, as Jackson's ignoreUnknown), and ASSOC keys (Confluent's
// associations: kept as KeyType::kOther, which the state ignores).
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/expected.h"
#include "schema/format/schema_format.h"

namespace skiff {
struct JsonValue;
}

namespace skiff::schemareg {

enum class KeyType { kSchema, kConfig, kMode, kNoop, kDeleteSubject, kClearSubject, kContext, kOther };
std::string_view key_type_name(KeyType t);

struct RecordKey {
  KeyType type = KeyType::kNoop;
  std::optional<std::string> subject;  // nullopt: the global CONFIG / MODE
  int32_t version = 0;                 // SCHEMA
  int32_t magic = 0;                   // 1 for SCHEMA, 0 for the others
  std::string context;                 // CONTEXT keys: the context (".ctx")
  std::string type_name;               // kOther: the keytype as written
  // The bytes as read when they differ from what encode_key writes
  // (Karapace's member order, "subject":null of Confluent before 6.2,
  // spacing); encode_key then writes these bytes, so a tombstone compacts
  // the record it deletes.
  std::string raw;
};

// A JSON value kept as its compact text (metadata, ruleSet: the registry
// stores and serves them, it does not interpret them).
struct RawJson {
  std::string text;
};
// A parsed JSON value as compact text (Jackson's escaping, numbers as written).
RawJson to_raw_json(const JsonValue& value);

struct SchemaRecord {
  std::string subject;
  int32_t version = 0;
  int32_t id = -1;
  schema::SchemaType type = schema::SchemaType::kAvro;
  std::vector<schema::SchemaReference> references;
  std::optional<RawJson> metadata;
  std::optional<RawJson> rule_set;
  std::string schema;
  bool deleted = false;
};

// Confluent's ConfigValue: compatibilityLevel and the other members,
// each absent unless set.
struct ConfigRecord {
  std::optional<std::string> subject;
  std::optional<std::string> alias;
  std::optional<std::string> alias_for_deks;
  std::optional<bool> normalize;
  std::optional<bool> validate_fields;
  std::optional<bool> validate_new_schemas;
  std::optional<bool> validate_rules;
  std::optional<std::string> compatibility_level;
  std::optional<std::string> compatibility_policy;
  std::optional<std::string> compatibility_group;
  std::optional<RawJson> default_metadata;
  std::optional<RawJson> override_metadata;
  std::optional<RawJson> default_rule_set;
  std::optional<RawJson> override_rule_set;
};

struct ModeRecord {
  std::optional<std::string> subject;
  std::string mode;  // READWRITE, READONLY, READONLY_OVERRIDE, IMPORT, FORWARD
};

struct DeleteSubjectRecord {
  std::string subject;
  int32_t version = 0;  // every version up to this one is soft-deleted
};

struct ClearSubjectRecord {
  std::optional<std::string> subject;
};

// Confluent's ContextValue; the tenant is always "default" here.
struct ContextRecord {
  std::string context;  // ".ctx"
};

struct Tombstone {};
struct OpaqueValue {};  // ASSOC values: not interpreted

using RecordValue = std::variant<Tombstone, SchemaRecord, ConfigRecord, ModeRecord, DeleteSubjectRecord,
                                 ClearSubjectRecord, ContextRecord, OpaqueValue>;

struct Record {
  RecordKey key;
  RecordValue value;
};

// The bytes of one `_schemas` record; value nullopt is a tombstone.
struct EncodedRecord {
  std::string key;
  std::optional<std::string> value;
};

struct DecodeError {
  std::string message;
};

// Keys and values of the kinds above, as Confluent writes them (a key's
// `raw` bytes when set).
std::string encode_key(const RecordKey& key);
std::optional<std::string> encode_value(const RecordValue& value);
EncodedRecord encode(const Record& record);

// Key builders, as Confluent makes them (magic 1 for SCHEMA, 0 otherwise).
RecordKey schema_key(std::string subject, int32_t version);
RecordKey config_key(std::optional<std::string> subject);
RecordKey mode_key(std::optional<std::string> subject);
RecordKey delete_subject_key(std::string subject);
RecordKey clear_subject_key(std::optional<std::string> subject);
RecordKey noop_key();
RecordKey context_key(std::string context);

Expected<RecordKey, DecodeError> decode_key(std::string_view bytes);
// `value` nullopt (or empty) is a tombstone. The key says which value it is.
Expected<RecordValue, DecodeError> decode_value(const RecordKey& key, std::optional<std::string_view> value);
Expected<Record, DecodeError> decode(std::string_view key, std::optional<std::string_view> value);

}  // namespace skiff::schemareg
