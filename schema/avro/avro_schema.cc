#include "schema/avro/avro_schema.h"

#include "schema/avro/avro_compat.h"
#include "schema/avro/avro_normalize.h"
#include "schema/avro/avro_parser.h"
#include "schema/avro/avro_printer.h"

namespace skiff::schema {

ParseResult parse_avro(const SchemaSource& source) { return parse_avro(source, AvroParseOptions{}); }

ParseResult parse_avro(const SchemaSource& source, const AvroParseOptions& options) {
  auto arena = std::make_unique<avro::NodeArena>();
  avro::AvroParser parser(*arena, options.validate_as_new);
  std::set<std::string, std::less<>> referenced;
  for (const auto& ref : source.resolved) {
    const avro::Node* r = parser.parse_text(ref.text);
    if (r == nullptr) return unexpected(ParseError{parser.error()});
    if (avro::is_named(r->type)) referenced.insert(r->name.full);
  }
  const avro::Node* root = parser.parse_text(source.text);
  if (root == nullptr) return unexpected(ParseError{parser.error()});
  return std::unique_ptr<ParsedSchema>(
      std::make_unique<AvroSchema>(source, options, std::move(arena), root, std::move(referenced)));
}

AvroSchema::AvroSchema(SchemaSource source, AvroParseOptions options, std::unique_ptr<avro::NodeArena> arena,
                       const avro::Node* root, std::set<std::string, std::less<>> referenced)
    : source_(std::move(source)),
      options_(options),
      arena_(std::move(arena)),
      root_(root),
      referenced_(std::move(referenced)) {
  auto known = referenced_;
  avro::print_schema(root_, known, "", canonical_);
}

std::string AvroSchema::normalized() const {
  auto text = avro::normalized_text(root_, referenced_);
  if (!text) return canonical_;
  SchemaSource again = source_;
  again.text = std::move(*text);
  auto parsed = parse_avro(again, options_);
  return parsed ? (*parsed)->canonical() : canonical_;
}

std::vector<std::string> AvroSchema::incompatibilities(const ParsedSchema& writer) const {
  if (writer.type() != SchemaType::kAvro) return {"Incompatible because of different schema type"};
  const auto* w = dynamic_cast<const AvroSchema*>(&writer);
  if (w == nullptr) return {"Incompatible because of different schema type"};
  return avro::confluent_differences(avro::check_compatibility(root_, w->root_));
}

std::string AvroSchema::name() const { return root_->type == avro::Type::kRecord ? root_->name.full : std::string(); }

}  // namespace skiff::schema
