// AvroParser: schema texts to the Avro model, as Apache Avro Java 1.12's
// Schema.Parser reads them inside Confluent's AvroSchema: one parser reads
// the referenced schemas' texts (dependencies first) and then the main text,
// so a name defined in an earlier text is known in a later one. Within a
// text a name may be used before its definition (resolved once the text is
// read, as Avro's ParseContext does). The JSON may hold /* */ and //
// comments (Avro enables Jackson's ALLOW_COMMENTS); text after the schema is
// refused. A refusal's message is Avro's exception message.
//
// Validation is Confluent's: a schema being registered (validate_as_new)
// has its names checked with Avro's STRICT_VALIDATOR and its field defaults
// with validateDefaults; a stored one (read back from `_schemas`) only the
// simple names of the main schema, with Avro's UTF_VALIDATOR.
//
// Bounded: JSON nesting past kMaxJsonDepth and type nesting past
// kMaxTypeDepth (named types expanded once, as printed) are refused.
// Not thread-safe; one parser per schema being built.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "schema/avro/avro_model.h"

namespace skiff::schema::avro {

inline constexpr int kMaxJsonDepth = 512;
inline constexpr int kMaxTypeDepth = 1000;

class AvroParser {
 public:
  AvroParser(NodeArena& arena, bool validate_as_new) : arena_(arena), strict_(validate_as_new) {}

  // Reads one text; its root, or null with error() set. Named types it
  // defines are known to the texts read after it.
  const Node* parse_text(std::string_view text);
  const std::string& error() const { return error_; }

 private:
  const Node* fail(std::string message);
  bool failed() const { return !error_.empty(); }
  bool validate_name(const std::string* name);
  bool validate_namespace(const Name& n);

  const Node* parse(const AvroJson& j, std::string_view ns);
  const Node* parse_object(const AvroJson& j, std::string_view ns);
  const Node* find(const std::string& name, std::string_view ns);
  const Node* placeholder(const std::string& full);
  const Node* parse_primitive(const AvroJson& j, Type t);
  const Node* parse_record(const AvroJson& j, std::string_view ns, bool is_error);
  bool parse_field(const AvroJson& j, std::string_view ns, Field& f);
  bool parse_field_default(const AvroJson& j, Field& f);
  bool parse_order(const AvroJson& j, Field& f);
  bool check_duplicate_fields(const Node& r);
  const Node* parse_enum(const AvroJson& j, std::string_view ns);
  bool parse_symbols(const AvroJson& j, Node& e);
  const Node* parse_container(const AvroJson& j, std::string_view ns, Type t);
  const Node* parse_fixed(const AvroJson& j, std::string_view ns);
  const Node* parse_union(const AvroJson& j, std::string_view ns);
  bool check_union(const Node& u);
  bool parse_name(const AvroJson& j, std::string_view ns, Name& out);
  bool parse_aliases(const AvroJson& j, std::vector<std::string>& out);
  bool parse_type_aliases(const AvroJson& j, Node& n);
  void parse_props(const AvroJson& j, Props& props, const std::vector<std::string_view>& reserved);
  bool named_ctor(const Name& name);
  bool put(const Node* n);

  bool resolve(size_t first_node, const Node*& root);
  bool resolve_node(Node& n);
  bool check_copied_props(const Node& n);
  bool validate_defaults(const Node& n);
  bool validate_main_names(const Node* root);

  NodeArena& arena_;
  bool strict_;
  std::string error_;
  std::map<std::string, const Node*, std::less<>> old_;  // committed: earlier texts
  std::map<std::string, const Node*, std::less<>> new_;  // defined in the text being read
  int placeholders_ = 0;
};

// Java's String.trim(): drops leading and trailing chars <= U+0020.
std::string_view java_trim(std::string_view s);

}  // namespace skiff::schema::avro
