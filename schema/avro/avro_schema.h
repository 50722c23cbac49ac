// Avro schemas for the Schema Registry: Confluent's AvroSchema over Apache
// Avro Java 1.12's rules. parse_avro reads a registered schema (its
// references' texts first, so their named types are known), canonical() is
// Java's Schema.toString() with the referenced types by name (what Confluent
// stores), normalized() Confluent's normalize() text re-read and printed,
// incompatibilities() Avro's SchemaCompatibility worded as Confluent's
// isBackwardCompatible: one "{errorType:'...', description:'...',
// additionalInfo:'...'}" line per incompatibility whose description keeps
// Confluent's two "%s" for the reader's and the writer's role; the registry
// fills them ("new", "old" when the new schema reads, "old", "new" when it
// is read), as Confluent's SchemaValidatorBuilder does with String.format.
// Threads: an AvroSchema is immutable after parse; any thread may read it.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "schema/avro/avro_model.h"
#include "schema/format/schema_format.h"

namespace skiff::schema {

struct AvroParseOptions {
  // Confluent's validateAsNew: a schema being registered (strict names,
  // defaults checked) rather than one read back from storage.
  bool validate_as_new = true;
};

ParseResult parse_avro(const SchemaSource& source);
ParseResult parse_avro(const SchemaSource& source, const AvroParseOptions& options);

class AvroSchema final : public ParsedSchema {
 public:
  // `arena` holds the references' nodes first, the main text's from `main_first`.
  AvroSchema(SchemaSource source, AvroParseOptions options, std::unique_ptr<avro::NodeArena> arena, size_t main_first,
             const avro::Node* root, std::set<std::string, std::less<>> referenced);

  SchemaType type() const override { return SchemaType::kAvro; }
  std::string canonical() const override { return canonical_; }
  std::string normalized() const override;
  std::vector<std::string> incompatibilities(const ParsedSchema& writer) const override;
  Expected<DecodedValue, std::string> decode(std::string_view payload) const override;
  // avro_encode.h's json_to_avro; `message_name` is not used (the schema
  // names its one type).
  Expected<std::string, std::string> encode(const skiff::JsonValue& json,
                                            std::string_view message_name = {}) const override;
  // The full names of the named types this schema uses that its references
  // define (those it cannot be read without), sorted. A name defined
  // nowhere is a parse error ("Undefined schema: <name>").
  std::vector<std::string> unresolved_names() const override;

  // The parsed schema, for readers of Avro data (avro_decode.h).
  const avro::Node* root() const { return root_; }
  // Confluent's AvroSchema.name(): a record's full name, else empty.
  std::string name() const;

 private:
  SchemaSource source_;
  AvroParseOptions options_;
  std::unique_ptr<avro::NodeArena> arena_;
  size_t main_first_;
  const avro::Node* root_;
  std::set<std::string, std::less<>> referenced_;  // the referenced schemas' full names
  std::string canonical_;
};

}  // namespace skiff::schema
