// The v2 API's embedded formats (Confluent's EmbeddedFormat): how a record's
// key or value travels inside the JSON bodies of produce requests and of
// consumer records. binary: base64 of the bytes; json: any JSON value, the
// record holds its compact text; avro, jsonschema, protobuf: JSON that the
// schema encodes (ParsedSchema::encode), the record framed as Confluent's
// serializers frame it: byte 0, the schema id (int32 big-endian), payload.
// Content types: application/vnd.kafka.<format>.v2+json
// (application/vnd.kafka.v2+json and application/json: binary).
// Errors: RestError with Confluent's v2 codes (42203 a value that does not
// convert, 42207 a value the schema does not encode or a framed record
// whose schema cannot be found).
// Threads: pure functions; the EmbeddedFormats port is thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "apps/rest_proxy/embedded_formats.h"
#include "apps/rest_proxy/rest_media.h"
#include "apps/rest_proxy/v3_records.h"  // json_text
#include "common/json.h"

namespace skiff::restproxy {

// EmbeddedFormat and format_name(): rest_media.h's (kNone there: a v2 type
// that names no format, which v2 produce takes as binary).
inline constexpr const char* kV2ContentType = kV2Json;

// "binary", "json", "avro", "jsonschema", "protobuf" (a consumer's "format").
std::optional<EmbeddedFormat> parse_format_name(std::string_view name);
// The format a produce request's Content-Type names (parameters ignored;
// none named or no type: binary); nullopt for a type that is not v2's.
std::optional<EmbeddedFormat> format_of_content_type(std::string_view content_type);
// application/vnd.kafka.<format>.v2+json
std::string content_type_of(EmbeddedFormat f);
bool needs_schema(EmbeddedFormat f);
schema::SchemaType schema_type_of(EmbeddedFormat f);

// A produce request's key or value as the record's bytes; nullopt for a
// JSON null. `schema` is required for the schema formats.
std::optional<std::string> encode_embedded(EmbeddedFormat f, const JsonValue& v, const SchemaHandle* schema);

// A record's key or value as the JSON value of a consumer record; "null"
// for nullopt. Schema formats look the id up in `formats` (may be null:
// 42207), caching by id in `cache`.
class EmbeddedDecoder {
 public:
  EmbeddedDecoder(EmbeddedFormat f, EmbeddedFormats* formats) : format_(f), formats_(formats) {}
  std::string decode(const std::optional<std::string>& bytes);

 private:
  std::string decode_framed(const std::string& bytes);

  EmbeddedFormat format_;
  EmbeddedFormats* formats_;
  std::map<int32_t, SchemaHandle> cache_;
};

}  // namespace skiff::restproxy
