#include "schema/avro/avro_schema.h"

#include <unordered_set>

#include "schema/avro/avro_compat.h"
#include "schema/avro/avro_decode.h"
#include "schema/avro/avro_encode.h"
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
  const size_t main_first = arena->size();
  const avro::Node* root = parser.parse_text(source.text);
  if (root == nullptr) return unexpected(ParseError{parser.error()});
  return std::unique_ptr<ParsedSchema>(
      std::make_unique<AvroSchema>(source, options, std::move(arena), main_first, root, std::move(referenced)));
}

AvroSchema::AvroSchema(SchemaSource source, AvroParseOptions options, std::unique_ptr<avro::NodeArena> arena,
                       size_t main_first, const avro::Node* root, std::set<std::string, std::less<>> referenced)
    : source_(std::move(source)),
      options_(options),
      arena_(std::move(arena)),
      main_first_(main_first),
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

std::vector<std::string> AvroSchema::unresolved_names() const {
  std::unordered_set<const avro::Node*> from_refs, seen;
  for (size_t i = 0; i < main_first_; ++i) from_refs.insert(&arena_->at(i));
  std::set<std::string> names;
  std::vector<const avro::Node*> stack = {root_};
  while (!stack.empty()) {
    const avro::Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (from_refs.count(n)) {
      names.insert(std::string(n->full_name()));
      continue;
    }
    if (n->items) stack.push_back(n->items);
    for (const avro::Node* b : n->branches) stack.push_back(b);
    for (const auto& f : n->fields) stack.push_back(f.type);
  }
  return {names.begin(), names.end()};
}

std::string AvroSchema::name() const { return root_->type == avro::Type::kRecord ? root_->name.full : std::string(); }

Expected<DecodedValue, std::string> AvroSchema::decode(std::string_view payload) const {
  auto decoded = avro::avro_to_json(root_, payload);
  if (!decoded) return unexpected(std::move(decoded.error()));
  if (decoded->consumed != payload.size())
    return unexpected(std::to_string(payload.size() - decoded->consumed) + " bytes follow the value, at byte offset " +
                      std::to_string(decoded->consumed));
  return DecodedValue{std::move(decoded->json), name()};
}

Expected<std::string, std::string> AvroSchema::encode(const skiff::JsonValue& json,
                                                      std::string_view /*message_name*/) const {
  return avro::json_to_avro(root_, json);
}

}  // namespace skiff::schema
