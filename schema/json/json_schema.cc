#include "schema/json/json_schema.h"

#include "common/json.h"
#include "common/utf8.h"
#include "schema/json/jackson_text.h"
#include "schema/json/json_validate.h"
#include "schema/json/schema_diff.h"
#include "schema/json/schema_loader.h"

namespace skiff::schema {

namespace {

using json::LoadedSchema;

constexpr size_t kMaxDecodedValue = 4 << 20;

bool valid_utf8(std::string_view s);

class JsonSchema final : public ParsedSchema {
 public:
  explicit JsonSchema(std::unique_ptr<LoadedSchema> loaded) : loaded_(std::move(loaded)) {
    const JsonValue& doc = *loaded_->documents.front().root;
    canonical_ = json::jackson_compact(doc, false);
    normalized_ = json::jackson_compact(doc, true);
  }

  SchemaType type() const override { return SchemaType::kJson; }
  std::string canonical() const override { return canonical_; }
  std::string normalized() const override { return normalized_; }
  std::vector<std::string> unresolved_names() const override { return loaded_->external_refs; }

  std::vector<std::string> incompatibilities(const ParsedSchema& writer) const override {
    return json::incompatibilities(*this, writer, json::CompatibilityPolicy::kStrict);
  }

  // The payload is the value's JSON text itself (Confluent's
  // KafkaJsonSchemaSerializer writes it as is): shown once it parses.
  Expected<DecodedValue, std::string> decode(std::string_view payload) const override {
    if (payload.size() > kMaxDecodedValue) return unexpected(std::string("the value is too large to decode"));
    if (!valid_utf8(payload)) return unexpected(std::string("the value is not valid UTF-8"));
    if (!parse_json(payload, json::kMaxDepth)) return unexpected(std::string("the value is not a JSON document"));
    return DecodedValue{std::string(payload), {}};
  }

  // The value validated (json_validate.h), then Jackson's compact text of
  // it, which Confluent's KafkaJsonSchemaSerializer writes.
  Expected<std::string, std::string> encode(const JsonValue& json, std::string_view /*message_name*/) const override {
    if (!json::jackson_numbers_valid(json))
      return unexpected(std::string("the value has a number Jackson cannot read"));
    std::string failures = json::validate_value(*loaded_, json, patterns_);
    if (!failures.empty()) return unexpected("the value does not match the schema: " + failures);
    return json::jackson_compact(json, false);
  }

  const LoadedSchema& loaded() const { return *loaded_; }

 private:
  std::unique_ptr<LoadedSchema> loaded_;
  mutable json::PatternCache patterns_;  // compiled once, used by every encode
  std::string canonical_, normalized_;
};

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = utf8_length(s, i, cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

const char* node_type(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kNull:
      return "NULL";
    case JsonValue::Kind::kBool:
      return "BOOLEAN";
    case JsonValue::Kind::kNumber:
      return "NUMBER";
    case JsonValue::Kind::kString:
      return "STRING";
    case JsonValue::Kind::kArray:
      return "ARRAY";
    case JsonValue::Kind::kObject:
      return "OBJECT";
  }
  return "MISSING";
}

}  // namespace

ParseResult parse_json_schema(const SchemaSource& source) {
  if (!valid_utf8(source.text)) return unexpected(ParseError{"Invalid JSON schema: the text is not valid UTF-8"});
  auto doc = parse_json(source.text, json::kMaxDepth + 2);
  if (!doc)
    return unexpected(ParseError{"Invalid JSON schema: the text is not a JSON document (or nests deeper than " +
                                 std::to_string(json::kMaxDepth) + " levels)"});
  if (!json::jackson_numbers_valid(*doc))
    return unexpected(ParseError{"Invalid JSON schema: a number is out of range"});
  if (doc->kind != JsonValue::Kind::kObject && doc->kind != JsonValue::Kind::kBool)
    return unexpected(ParseError{std::string("Invalid JSON schema: expected an object or boolean at the root, found ") +
                                 node_type(*doc)});
  auto loaded = json::load_schema(std::make_unique<JsonValue>(std::move(*doc)), source);
  if (!loaded) return unexpected(ParseError{"Invalid JSON: " + loaded.error()});
  return std::unique_ptr<ParsedSchema>(std::make_unique<JsonSchema>(std::move(*loaded)));
}

namespace json {

std::string loaded_draft(const ParsedSchema& schema) {
  const auto* s = dynamic_cast<const JsonSchema*>(&schema);
  return s ? draft_name(s->loaded().draft) : std::string();
}

std::vector<std::string> incompatibilities(const ParsedSchema& reader, const ParsedSchema& writer,
                                           CompatibilityPolicy policy) {
  const auto* r = dynamic_cast<const JsonSchema*>(&reader);
  const auto* w = dynamic_cast<const JsonSchema*>(&writer);
  if (!r || !w) return {"Incompatible because of different schema type"};
  return incompatible_messages(w->loaded().root, r->loaded().root, policy);
}

}  // namespace json

}  // namespace skiff::schema
