// The built-in Schema Registry as the web console reads it: the Schemas
// page (GET /api/schemas, GET /api/schema) and the message browser's
// decoding of keys and values framed with a registry id.
//
// SchemaCatalog is a port: apps/console/ may not include its sibling
// apps/schema_registry/, so server/ binds it to the registry's service
// (server/console_schema_catalog.h). The registry's state is not Kafka data
// a Kafka request could fetch (it is the registry's replay of `_schemas`),
// which is why this reads it through a port rather than the in-process
// client; the console's own login guards it, as the registry guards reads.
//
// Confluent's wire format, which decode() recognizes:
//   byte 0     magic, 0
//   bytes 1-4  the schema id, big-endian int32
//   bytes 5-   the payload as the schema's format writes it
//
// Threads: any; the implementation guards its own state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::console {

class SchemaCatalog {
 public:
  struct Subject {
    std::string name;
    std::string type;  // of the latest version: AVRO, PROTOBUF, JSON
    int32_t latest_version = 0;
    int32_t latest_id = 0;
    int32_t versions = 0;       // live versions
    std::string compatibility;  // the level in force for the subject
  };
  struct Reference {
    std::string name;
    std::string subject;
    int32_t version = 0;
  };
  struct Version {
    int32_t version = 0;
    int32_t id = 0;
    std::string type;
    std::string schema;  // the registered text
    std::vector<Reference> references;
  };
  struct SubjectDetail {
    std::string name;
    std::string compatibility;
    bool compatibility_own = false;  // set on the subject itself, not inherited
    std::vector<Version> versions;   // live ones, oldest first
  };
  // A framed key or value: the id, its schema's type and the JSON, or why
  // it could not be decoded.
  struct Decoded {
    int32_t id = 0;
    std::string type;
    std::string type_name;  // the record or message type, when the format names one
    std::optional<std::string> json;
    std::string error;  // when json is empty
  };

  struct SubjectPage {
    std::vector<Subject> subjects;  // the first `limit`
    size_t total = 0;               // all that match
  };

  virtual ~SchemaCatalog() = default;
  // Subjects with a live version whose name starts with `prefix`, sorted.
  virtual SubjectPage subjects(std::string_view prefix, size_t limit) const = 0;
  // nullopt: no live version under that name.
  virtual std::optional<SubjectDetail> subject(const std::string& name) const = 0;
  // nullopt when `bytes` is not in the wire format above with an id the
  // registry knows (most plain values are not).
  virtual std::optional<Decoded> decode(std::string_view bytes) const = 0;
};

}  // namespace skiff::console
