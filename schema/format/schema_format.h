// The interface every schema format of the Schema Registry implements
// (schema/avro/, schema/json/, schema/protobuf/), as Confluent's
// io.confluent.kafka.schemaregistry.ParsedSchema and SchemaProvider shape it.
//
// A format parses the text a client registers (with the texts of the
// schemas it references, already resolved by the registry) into a
// ParsedSchema. The registry stores and serves the canonical text, looks a
// schema up by it (or by the normalized text when the client asks for
// `normalize`), and asks a new schema whether it can read data written with
// an older one. The compatibility levels (BACKWARD, FORWARD, FULL and their
// transitive forms) and Confluent's verbose messages around each difference
// ({oldSchemaVersion: ..., oldSchema: ..., compatibility: ...}) are the
// registry's (apps/schema_registry/), built from the one check here.
//
// Threads: a ParsedSchema is immutable after parse and may be read from any
// thread. Parsing is pure (no I/O, no globals), bounded by the input: hostile
// text costs linear time and bounded stack (nesting past a bound is an error).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "common/json.h"

namespace skiff::schema {

// Confluent's schemaType names: "AVRO" (the default when a request omits
// it), "PROTOBUF", "JSON".
enum class SchemaType { kAvro, kProtobuf, kJson };
std::string_view type_name(SchemaType t);
std::optional<SchemaType> parse_type_name(std::string_view name);

// A reference as a registration names it: `name` is how the referring
// schema names the other (an Avro full name, a .proto import path, a JSON
// Schema $ref URL), `subject` and `version` where the registry keeps it.
struct SchemaReference {
  std::string name;
  std::string subject;
  int32_t version = 0;
};

// A referenced schema's text, resolved by the registry, with its own
// references' texts before it: a reference's dependencies come first in the
// list handed to parse().
struct ResolvedReference {
  std::string name;  // as SchemaReference::name
  std::string text;  // that schema's registered (canonical) text
};

// The input of parse(): what the client registered.
struct SchemaSource {
  SchemaType type = SchemaType::kAvro;
  std::string text;
  std::vector<SchemaReference> references;  // stored with the schema as given
  std::vector<ResolvedReference> resolved;  // their texts, dependencies first
};

// A parse failure: Confluent answers 42201 "Invalid schema" with this
// message (Confluent's: "Invalid schema {...} with refs [] of type AVRO,
// details: <message>"; the registry adds the prefix, the format says why).
struct ParseError {
  std::string message;
};

// What ParsedSchema::decode() makes of a framed record value.
struct DecodedValue {
  std::string json;       // the value as JSON text
  std::string type_name;  // the record or message type written; empty when the format names none
};

class ParsedSchema {
 public:
  virtual ~ParsedSchema() = default;
  virtual SchemaType type() const = 0;

  // Confluent's canonicalString(): the text the registry stores and serves
  // (GET /schemas/ids/{id}) and compares on lookup. Avro: Apache Avro
  // Java's Schema.toString() of the parsed schema; JSON: the document
  // re-written compactly, members in their order; Protobuf: the .proto
  // printed in Confluent's layout.
  virtual std::string canonical() const = 0;

  // Confluent's normalize() then canonicalString(): the text registered and
  // looked up with normalize=true (Avro: aliases/defaults kept, properties
  // ordered as Confluent orders them; Protobuf: options and imports sorted,
  // fully qualified types; JSON: as Confluent's JsonSchema.normalize()).
  virtual std::string normalized() const = 0;

  // Confluent's formattedString(format): the text in a named output format
  // (`?format=` on the schema reads). Protobuf serves "serialized" (the
  // base64 FileDescriptorProto Confluent's deserializers ask for); an
  // unknown format is the canonical text, as Confluent answers it (for
  // forward compatibility of formats).
  virtual std::string formatted(std::string_view /*format*/) const { return canonical(); }

  // A record key or value written with this schema, for the web console's
  // message browser: the payload after Confluent's 5-byte header (magic 0,
  // the schema id) as JSON text, with the name of the type it was written
  // as where the format names one (an Avro record's or a Protobuf message's
  // full name). The error says what was wrong, and where. Avro: Avro's JSON
  // encoding (schema/avro/avro_decode.h); Protobuf: the message indexes,
  // then the message (schema/protobuf/protobuf_decode.h); JSON: the payload
  // itself, checked to be JSON. Bounded by the formats' decode limits.
  virtual Expected<DecodedValue, std::string> decode(std::string_view payload) const = 0;

  // The inverse of decode(), for the REST proxy's embedded formats: `json`
  // (a value as a client posts it) as the payload that follows Confluent's
  // 5-byte header. Avro: `json` in Avro's JSON encoding (unions as
  // {"type": value}), written in Avro's binary encoding; Protobuf: the
  // message indexes of `message_name` (empty: the first message), then the
  // message from protobuf's JSON mapping; JSON Schema: `json` validated
  // against the schema, then its compact text. The error says what did not
  // match, and where (the proxy answers 42201 with it).
  virtual Expected<std::string, std::string> encode(const skiff::JsonValue& json,
                                                    std::string_view message_name = {}) const {
    (void)json;
    (void)message_name;
    return unexpected(std::string("encoding is not supported for this schema type"));
  }

  // The names of the schemas this one refers to that must be registered
  // first (an Avro named type not defined here, a .proto import that is not
  // a well-known type, a JSON $ref outside the document).
  virtual std::vector<std::string> unresolved_names() const { return {}; }

  // Whether this schema, as the reader (the new schema), can read data
  // written with `writer` (the older schema); Confluent's
  // isBackwardCompatible(previous). Empty when it can; otherwise one line
  // per difference in Confluent's format for the type, still holding
  // Confluent's two "%s" for the reader's and the writer's role, which the
  // registry fills as SchemaValidatorBuilder does (fill_roles below):
  // ("new", "old") when the new schema reads, ("old", "new") when it is read.
  // Avro's, for example:
  //   "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'f' at path
  //    '/fields/1' in the %s schema has no default value and is missing in the %s schema',
  //    additionalInfo:'f'}"
  // A writer of another type is never compatible ("Incompatible because of
  // different schema type").
  virtual std::vector<std::string> incompatibilities(const ParsedSchema& writer) const = 0;
};

using ParseResult = Expected<std::unique_ptr<ParsedSchema>, ParseError>;

// Java's String.format(line, reader, writer) over an incompatibility line:
// the first "%s" becomes `reader`, the second `writer`, "%%" a '%'.
std::string fill_roles(std::string_view line, std::string_view reader, std::string_view writer);

// Each format's entry point has this shape (schema/avro/avro_schema.h's
// parse_avro, schema/json/json_schema.h's parse_json_schema,
// schema/protobuf/protobuf_schema.h's parse_protobuf); schema/schema_parse.h
// picks one by the source's type.

}  // namespace skiff::schema
