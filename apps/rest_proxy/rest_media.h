// Confluent REST Proxy's content types and their negotiation (issue 53),
// as kafka-rest's Versions and EmbeddedFormat name them:
//   application/vnd.kafka.v2+json            v2, no embedded format
//   application/vnd.kafka.binary.v2+json     v2, base64 keys and values
//   application/vnd.kafka.json.v2+json       v2, JSON keys and values
//   application/vnd.kafka.avro.v2+json       v2, Avro (through the registry)
//   application/vnd.kafka.jsonschema.v2+json v2, JSON Schema
//   application/vnd.kafka.protobuf.v2+json   v2, Protobuf
//   application/vnd.kafka+json, application/json, application/octet-stream
// Parameters (";charset=utf-8") are ignored; names compare ignoring case.
// A request body in another type is 415; an Accept that admits none of
// the answer's types is 406 (error bodies: rest_errors.h).
// Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace skiff::restproxy {

inline constexpr const char* kV2Json = "application/vnd.kafka.v2+json";
inline constexpr const char* kJson = "application/json";

enum class EmbeddedFormat { kNone, kBinary, kJson, kAvro, kJsonSchema, kProtobuf };

struct MediaType {
  std::string name;  // lower-cased, parameters dropped: "application/vnd.kafka.binary.v2+json"
  EmbeddedFormat format = EmbeddedFormat::kNone;
  bool v2 = false;  // one of the vnd.kafka.*v2+json types (or vnd.kafka+json)
};

// `content_type` as one of Confluent's request types; nullopt for another
// (or a malformed one).
std::optional<MediaType> parse_media_type(std::string_view content_type);

// The type a v2 answer is written in, from the request's Accept (q-values
// honoured, 0 excluded; empty and */* accept anything): kV2Json or
// application/json; nullopt when neither is acceptable (406).
std::optional<std::string> negotiate_v2(std::string_view accept);
// The same for v3, whose answers are application/json only.
bool accepts_json(std::string_view accept);

const char* format_name(EmbeddedFormat f);  // "binary", "json", "avro", ...

}  // namespace skiff::restproxy
