// The loaded form of a JSON Schema that Confluent's compatibility check
// diffs: the shape the everit-json-schema loader gives a document (drafts 4,
// 6 and 7; Confluent translates 2019-09 and 2020-12 documents into the same
// shape). One Node per loaded schema: a type keyword makes a String, Number,
// Object, Array, Boolean or Null node (a list of types an anyOf of them);
// keywords of several kinds in one object make a synthetic allOf of one node
// per kind; `$ref` makes a Reference node whose target is loaded once per
// pointer (so recursive schemas are finite graphs).
// Nodes live in a NodeArena and point at each other and into the JSON
// documents they came from, which the arena's owner keeps alive.
// Threads: immutable once loaded; read from any thread.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/json.h"

namespace skiff::schema::json {

enum class NodeKind {
  kEmpty,  // {} or a schema of unknown keywords only
  kTrue,   // true (everit's TrueSchema, an EmptySchema)
  kFalse,
  kBoolean,
  kNull,
  kNumber,
  kString,
  kObject,
  kArray,
  kEnum,
  kConst,
  kCombined,
  kNot,
  kReference,
  kConditional,  // if/then/else: not compared
};

enum class Criterion { kAllOf, kAnyOf, kOneOf };
const char* criterion_name(Criterion c);

struct Node;

// A number as written and as Java's doubleValue() sees it.
struct Number {
  std::string text;
  double value = 0;
};

struct NumberFacet {
  std::optional<Number> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
  bool requires_integer = false;
  bool exclusive_minimum_flag = false, exclusive_maximum_flag = false;  // draft 4's booleans
};

struct StringFacet {
  std::optional<int64_t> min_length, max_length;
  std::optional<std::string> pattern;
  std::optional<std::string> format;  // validation only
};

struct ObjectFacet {
  std::vector<std::pair<std::string, const Node*>> properties;  // first-insertion order, last value
  std::unordered_map<std::string, size_t> property_index;       // name -> its place in `properties`
  std::vector<std::string> required;
  std::unordered_set<std::string> required_set;
  bool additional_properties = true;
  const Node* additional_schema = nullptr;
  std::vector<std::pair<std::string, const Node*>> pattern_properties;
  std::vector<std::pair<std::string, std::vector<std::string>>> property_dependencies;
  std::vector<std::pair<std::string, const Node*>> schema_dependencies;
  std::optional<int64_t> min_properties, max_properties;
  const Node* unevaluated = nullptr;
  const Node* property_names = nullptr;  // validation only

  const Node* property(const std::string& name) const;
  bool is_required(const std::string& name) const;
};

struct ArrayFacet {
  const Node* all_items = nullptr;
  std::vector<const Node*> item_schemas;  // tuple form
  bool additional_items = true;
  const Node* additional_schema = nullptr;
  std::optional<int64_t> min_items, max_items, min_contains, max_contains;
  bool unique_items = false;
  const Node* unevaluated = nullptr;
  const Node* contains = nullptr;  // validation only
};

struct Node {
  NodeKind kind = NodeKind::kEmpty;
  const JsonValue* source = nullptr;  // the JSON it was loaded from
  // Common keywords.
  std::optional<std::string> id, title, description, connect_type;
  const JsonValue* default_value = nullptr;
  // Per kind.
  NumberFacet number;
  StringFacet string;
  ObjectFacet object;
  ArrayFacet array;
  std::vector<const JsonValue*> enum_values;  // kEnum
  const JsonValue* const_value = nullptr;     // kConst
  Criterion criterion = Criterion::kAllOf;    // kCombined
  std::vector<const Node*> subschemas;        // kCombined
  const Node* not_schema = nullptr;           // kNot
  std::string ref;                            // kReference
  const Node* referred = nullptr;             // kReference, set once loaded
  // For validation (json_validate.h), not compared:
  bool typed = false;               // made by a `type` keyword: a value of another type fails (else it passes)
  const Node* if_schema = nullptr;  // kConditional
  const Node* then_schema = nullptr;
  const Node* else_schema = nullptr;
};

// Owns nodes; pointers stay valid for the arena's life.
class NodeArena {
 public:
  Node* make(NodeKind kind, const JsonValue* source) {
    nodes_.emplace_back();
    nodes_.back().kind = kind;
    nodes_.back().source = source;
    return &nodes_.back();
  }
  size_t size() const { return nodes_.size(); }

 private:
  std::deque<Node> nodes_;
};

// Structural equality of two JSON values as Java's equals() sees the values
// everit keeps (numbers: integers by value, decimals by BigDecimal equality).
bool json_equal(const JsonValue& a, const JsonValue& b);

}  // namespace skiff::schema::json
