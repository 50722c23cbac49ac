#include "apps/rest_proxy/v2_formats.h"

#include "apps/rest_proxy/rest_errors.h"
#include "common/base64.h"
#include "common/byte_order.h"
#include "common/json_writer.h"

namespace skiff::restproxy {
namespace {

constexpr EmbeddedFormat kNamedFormats[] = {EmbeddedFormat::kBinary, EmbeddedFormat::kJson, EmbeddedFormat::kAvro,
                                            EmbeddedFormat::kJsonSchema, EmbeddedFormat::kProtobuf};

[[noreturn]] void serialization_error(const std::string& why) {
  throw RestError(422, 42207, "Error serializing message. " + why);
}

}  // namespace

std::optional<EmbeddedFormat> parse_format_name(std::string_view name) {
  for (const auto f : kNamedFormats) {
    if (name == format_name(f)) return f;
  }
  return std::nullopt;
}

std::optional<EmbeddedFormat> format_of_content_type(std::string_view content_type) {
  if (content_type.find_first_not_of(' ') == std::string_view::npos) return EmbeddedFormat::kBinary;
  const auto media = parse_media_type(content_type);
  if (!media || (!media->v2 && media->name != kJson)) return std::nullopt;
  return media->format == EmbeddedFormat::kNone ? EmbeddedFormat::kBinary : media->format;
}

std::string content_type_of(EmbeddedFormat f) {
  return "application/vnd.kafka." + std::string(format_name(f)) + ".v2+json";
}

bool needs_schema(EmbeddedFormat f) {
  return f == EmbeddedFormat::kAvro || f == EmbeddedFormat::kJsonSchema || f == EmbeddedFormat::kProtobuf;
}

schema::SchemaType schema_type_of(EmbeddedFormat f) {
  if (f == EmbeddedFormat::kProtobuf) return schema::SchemaType::kProtobuf;
  if (f == EmbeddedFormat::kJsonSchema) return schema::SchemaType::kJson;
  return schema::SchemaType::kAvro;
}

std::optional<std::string> encode_embedded(EmbeddedFormat f, const JsonValue& v, const SchemaHandle* schema) {
  if (v.kind == JsonValue::Kind::kNull) return std::nullopt;
  if (f == EmbeddedFormat::kBinary) {
    if (v.kind != JsonValue::Kind::kString)
      throw RestError(422, 42203, "Conversion of JSON to Object failed: a binary key or value must be a base64 string");
    auto bytes = base64_decode(v.string);
    if (!bytes) throw RestError(422, 42203, "Conversion of JSON to Object failed: not valid base64");
    return bytes;
  }
  if (f == EmbeddedFormat::kJson) return compact_json(v);
  if (!schema || !schema->schema) serialization_error("No schema for the record");
  auto payload = schema->schema->encode(v);
  if (!payload) serialization_error(payload.error());
  std::string out(5, '\0');
  store_be32(reinterpret_cast<uint8_t*>(out.data() + 1), static_cast<uint32_t>(schema->id));
  out += *payload;
  return out;
}

std::string EmbeddedDecoder::decode(const std::optional<std::string>& bytes) {
  if (!bytes) return "null";
  if (format_ == EmbeddedFormat::kBinary) return JsonWriter().value(base64_encode(*bytes)).take();
  if (format_ == EmbeddedFormat::kJson) {
    if (!parse_json(*bytes, 64)) throw RestError(500, 50002, "Kafka error: a record is not JSON");
    return *bytes;
  }
  return decode_framed(*bytes);
}

std::string EmbeddedDecoder::decode_framed(const std::string& bytes) {
  if (bytes.size() < 5 || bytes[0] != 0) serialization_error("Unknown magic byte!");
  const auto id = static_cast<int32_t>(load_be32(reinterpret_cast<const uint8_t*>(bytes.data() + 1)));
  auto it = cache_.find(id);
  if (it == cache_.end()) {
    if (!formats_) serialization_error("Schema Registry is not configured");
    it = cache_.emplace(id, formats_->by_id(id)).first;
  }
  if (!it->second.schema) serialization_error("Error retrieving schema for id " + std::to_string(id));
  auto decoded = it->second.schema->decode(std::string_view(bytes).substr(5));
  if (!decoded) serialization_error(decoded.error());
  return decoded->json;
}

}  // namespace skiff::restproxy
