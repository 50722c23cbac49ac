// Internal to schema/json/: the Loader that schema_loader.cc (documents,
// drafts, $ref resolution) and loader_keywords.cc (one object's keywords,
// as everit's extractors read them) share.
// Threads: one Loader per load.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "schema/json/schema_loader.h"

namespace skiff::schema::json {

// A load error: the message Confluent's loader would give, caught by
// load_schema.
struct LoadFailure {
  std::string message;
};

// Where a JSON value is: its document and JSON pointer ("#/properties/a").
struct Where {
  size_t doc = 0;
  std::string pointer;
  Where child(std::string_view key) const;
  Where index(size_t i) const;
};

class Loader {
 public:
  explicit Loader(LoadedSchema& out) : out_(out) {}

  const Node* load_document(size_t doc);  // its root, then every $ref target
  Draft draft() const { return out_.draft; }

  // One schema value (an object or a boolean) at `at`.
  const Node* load(const JsonValue& v, const Where& at, int depth);
  [[noreturn]] static void fail(const Where& at, const std::string& why);
  [[noreturn]] static void expected(const Where& at, const JsonValue& v, const std::string& type);
  static std::string java_type(const JsonValue& v);

 private:
  // loader_keywords.cc
  const Node* load_object(const JsonValue& o, const Where& at, int depth);
  void load_common(Node* n, const JsonValue& o, const Where& at);
  struct Extracted;
  void extract_typed(Extracted& x, const JsonValue& o, const Where& at, int depth);
  void extract_sniffed(Extracted& x, const JsonValue& o, const Where& at, int depth);
  Node* typed_node(const std::string& type, const JsonValue& o, const Where& at, int depth);
  Node* number_node(const JsonValue& o, const Where& at);
  Node* string_node(const JsonValue& o, const Where& at);
  Node* object_node(const JsonValue& o, const Where& at, int depth);
  Node* array_node(const JsonValue& o, const Where& at, int depth);
  Node* combined_node(Criterion c, const JsonValue& list, const Where& at, int depth);
  void load_properties(ObjectFacet& f, const JsonValue& props, const Where& at, int depth);
  void load_dependencies(ObjectFacet& f, const JsonValue& deps, const Where& at, int depth);
  void load_items(ArrayFacet& f, const JsonValue& o, const Where& at, int depth);
  Node* make(NodeKind kind, const JsonValue* source);

  // schema_loader.cc
  Node* reference(const JsonValue& ref, const Where& at);
  void resolve_pending();
  struct Target {
    size_t doc;
    std::string pointer;
    const JsonValue* value;
  };
  Target resolve(const std::string& ref, const Where& at);
  size_t document_for(const std::string& uri, const Where& at, const std::string& ref);
  const JsonValue& document_root(size_t doc, const Where& at);
  const JsonValue* find_by_id(size_t doc, const std::string& id);
  const JsonValue* evaluate_pointer(size_t doc, const std::string& fragment, std::string& missing);
  std::string base_of(size_t doc);

  struct Pending {
    Node* node;
    std::string ref;
    Where at;
  };
  LoadedSchema& out_;
  std::vector<Pending> pending_;
  std::unordered_map<std::string, const Node*> targets_;  // "doc#pointer" -> loaded node
  const Node* meta_schema_ = nullptr;
  std::unordered_map<size_t, std::unordered_map<std::string, const JsonValue*>> ids_;  // per document
};

// A value that can stand for a schema: an object, or true/false.
inline bool is_schema_value(const JsonValue& v) {
  return v.kind == JsonValue::Kind::kObject || v.kind == JsonValue::Kind::kBool;
}

}  // namespace skiff::schema::json
