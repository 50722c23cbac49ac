// EmbeddedFormats: the REST proxy's port to the Schema Registry, for the
// embedded formats avro, jsonschema and protobuf (v2 produce and consumer
// instances, v3 produce with a schema). server/ binds it to the built-in
// registry's RegistryService (the proxy never includes apps/schema_registry/:
// an app never includes another). Records are framed as Confluent's
// serializers frame them: magic byte 0, the schema id (4 bytes, big-endian),
// then ParsedSchema::encode()'s payload.
// Errors: RestError (rest_errors.h) with Confluent's code (the schema not
// found, an invalid schema: 42201, the registry off).
// Threads: any (the registry's service is thread-safe).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "schema/format/schema_format.h"

namespace skiff::restproxy {

struct SchemaHandle {
  int32_t id = -1;
  std::shared_ptr<const schema::ParsedSchema> schema;
};

class EmbeddedFormats {
 public:
  virtual ~EmbeddedFormats() = default;
  // The schema registered with `id`.
  virtual SchemaHandle by_id(int32_t id) = 0;
  // `text` (of `type`) registered under `subject`, or found there when it
  // already is: its id, as the REST proxy registers an inline schema under
  // "<topic>-key" / "<topic>-value".
  virtual SchemaHandle register_schema(const std::string& subject, schema::SchemaType type,
                                       const std::string& text) = 0;
  // The latest (version < 0) or given version of `subject`.
  virtual SchemaHandle by_subject(const std::string& subject, int version) = 0;
};

}  // namespace skiff::restproxy
