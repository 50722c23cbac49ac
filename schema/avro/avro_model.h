// The Avro schema model: what Apache Avro Java's Schema holds after parsing
// (org.apache.avro.Schema and Schema.Field), as a graph of nodes. A named
// type (record, enum, fixed) is one node however many times it is named, so
// a reference to it is a pointer to that node and recursive types are
// cycles; every other type is a node per place it is written, as in Java
// (the compatibility checker memoizes by node identity, as Avro's does).
// Nodes live in a NodeArena that owns them; a node never moves.
// Plain data; read-only after parse; any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schema/avro/avro_json.h"

namespace skiff::schema::avro {

enum class Type {
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
  kString,
  kBytes,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBoolean,
  kNull
};

// "record", "int", ... (Schema.Type.getName()).
std::string_view type_name(Type t);
// "RECORD", "INT", ... (Schema.Type.name(), as Java's messages print a type).
std::string_view type_upper(Type t);
std::optional<Type> primitive_type(std::string_view name);  // "int" -> kInt; null for the rest
bool is_type_name(std::string_view name);                   // any Type's name ("record", "union", ...)
inline bool is_named(Type t) { return t == Type::kRecord || t == Type::kEnum || t == Type::kFixed; }

// Schema.Name: `space` empty means none (Avro reads "" as none).
struct Name {
  std::string name;
  std::string space;
  std::string full;

  static Name make(std::string_view name, std::string_view space);  // splits a dotted name, as Name's constructor
  // Name.getQualified: the simple name when `default_space` is this name's
  // space and the name is not a type's name, else the full name.
  std::string qualified(std::string_view default_space) const;
};

using Props = std::vector<std::pair<std::string, AvroJson>>;  // in the order they were written

enum class Order { kAscending, kDescending, kIgnore };

// A valid logical type (LogicalTypes.fromSchemaIgnoreInvalid): the name,
// and for "decimal" its precision and scale.
struct LogicalType {
  std::string name;
  int32_t precision = 0;
  int32_t scale = 0;
};

struct Node;

struct Field {
  std::string name;
  const Node* type = nullptr;
  std::optional<std::string> doc;
  std::optional<AvroJson> default_value;
  Order order = Order::kAscending;
  std::vector<std::string> aliases;  // a set, in the order written
  Props props;
  int pos = 0;
};

struct Node {
  Type type = Type::kNull;
  Props props;
  std::optional<LogicalType> logical;

  // record, enum, fixed
  Name name;
  std::optional<std::string> doc;
  std::vector<Name> aliases;  // a set, in the order written
  // record
  bool is_error = false;
  std::vector<Field> fields;
  // enum
  std::vector<std::string> symbols;
  std::optional<std::string> enum_default;
  // fixed
  int32_t size = 0;
  // array items, map values
  const Node* items = nullptr;
  // union
  std::vector<const Node*> branches;

  // A name not yet defined where it was used (Avro's unresolved schema
  // placeholder, a record with no fields): `ref` is the full name it stands
  // for, `target` the definition once the whole text is read.
  bool unresolved = false;
  std::string ref;
  const Node* target = nullptr;

  // Schema.getFullName(): the full name of a named type, else the type's name.
  std::string_view full_name() const { return is_named(type) ? std::string_view(name.full) : type_name(type); }
  // Schema.getAliases(): ".x" for an alias without namespace of a type with one.
  std::vector<std::string> alias_strings() const;
  const Field* field(std::string_view field_name) const;
  bool has_symbol(std::string_view symbol) const;
};

// Owns the nodes of a schema and of the schemas it references.
class NodeArena {
 public:
  Node& make(Type t) {
    nodes_.emplace_back();
    nodes_.back().type = t;
    return nodes_.back();
  }
  size_t size() const { return nodes_.size(); }
  Node& at(size_t i) { return nodes_[i]; }
  const Node& at(size_t i) const { return nodes_[i]; }

 private:
  std::deque<Node> nodes_;
};

// Schema.equals: types, names, properties, fields (name, type, default,
// order, properties), symbols, sizes; not docs nor aliases. Recursion-safe.
bool schema_equals(const Node* a, const Node* b);

// LogicalTypes.fromSchemaIgnoreInvalid over a node's properties.
std::optional<LogicalType> logical_type_of(const Node& n);

}  // namespace skiff::schema::avro
