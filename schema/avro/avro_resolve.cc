// AvroParser, once a text is read: its names committed, the names used
// before their definition resolved (ParseContext.resolve and Avro's
// SchemaResolver, with the checks the copy it makes repeats), and
// Confluent's name check of a stored schema.
#include <unordered_set>

#include "schema/avro/avro_defaults.h"
#include "schema/avro/avro_parser.h"
#include "schema/avro/avro_printer.h"

namespace skiff::schema::avro {
namespace {

bool contains_big_int(const AvroJson& v) {
  if (v.kind == AvroJson::Kind::kBigInt) return true;
  for (const auto& item : v.items)
    if (contains_big_int(item)) return true;
  for (const auto& m : v.members)
    if (contains_big_int(m.second)) return true;
  return false;
}

// NameValidator.UTF_VALIDATOR's message for a name, or "" when valid.
std::string utf_name_error(const std::string& name) {
  if (name.empty()) return "Empty name";
  auto letter = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
  };
  if (!letter(static_cast<unsigned char>(name[0]))) return "Illegal initial character: " + name;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (!letter(c) && !(c >= '0' && c <= '9')) return "Illegal character in: " + name;
  }
  return {};
}

// AvroSchemaUtils.validateNames: simple names, field names and symbols.
std::string main_name_error(const Node* n, std::unordered_set<const Node*>& seen) {
  if (!seen.insert(n).second) return {};
  std::string e;
  switch (n->type) {
    case Type::kRecord:
      e = utf_name_error(n->name.name);
      for (size_t i = 0; e.empty() && i < n->fields.size(); ++i) {
        e = utf_name_error(n->fields[i].name);
        if (e.empty()) e = main_name_error(n->fields[i].type, seen);
      }
      return e;
    case Type::kEnum:
      e = utf_name_error(n->name.name);
      for (size_t i = 0; e.empty() && i < n->symbols.size(); ++i) e = utf_name_error(n->symbols[i]);
      return e;
    case Type::kFixed:
      return utf_name_error(n->name.name);
    case Type::kArray:
    case Type::kMap:
      return main_name_error(n->items, seen);
    case Type::kUnion:
      for (size_t i = 0; e.empty() && i < n->branches.size(); ++i) e = main_name_error(n->branches[i], seen);
      return e;
    default:
      return {};
  }
}

}  // namespace

bool AvroParser::resolve(size_t first_node, const Node*& root) {
  for (auto& [name, node] : new_) old_.emplace(name, node);
  new_.clear();
  auto target = [&](const Node*& p) {
    if (!p->unresolved) return true;
    auto it = old_.find(p->ref);
    if (it == old_.end()) return fail("Undefined schema: " + p->ref), false;
    p = it->second;
    return true;
  };
  if (!target(root)) return false;
  const size_t end = arena_.size();
  for (size_t i = first_node; i < end; ++i) {
    Node& n = arena_.at(i);
    if (n.unresolved) continue;
    if (n.items && !target(n.items)) return false;
    for (auto& b : n.branches)
      if (!target(b)) return false;
    for (auto& f : n.fields)
      if (!target(f.type)) return false;
    if (n.type == Type::kUnion && !check_union(n)) return false;
  }
  for (size_t i = first_node; i < end; ++i) {
    const Node& n = arena_.at(i);
    if (!n.unresolved && (!check_copied_props(n) || !validate_defaults(n))) return false;
  }
  return true;
}

// SchemaResolver copies records, arrays and maps with their properties
// through Java objects, where an integer beyond a long has none.
bool AvroParser::check_copied_props(const Node& n) {
  if (n.type != Type::kRecord && n.type != Type::kArray && n.type != Type::kMap) return true;
  for (const auto& [name, value] : n.props) {
    if (value.kind == AvroJson::Kind::kBigInt) return fail("Can't set a property to null: " + name), false;
    if (contains_big_int(value)) return fail("Cannot invoke \"Object.getClass()\" because \"datum\" is null"), false;
  }
  return true;
}

// The copied fields' defaults are checked again, against resolved types.
bool AvroParser::validate_defaults(const Node& n) {
  if (!strict_ || n.type != Type::kRecord) return true;
  for (const Field& f : n.fields) {
    if (f.default_value && !is_valid_default(f.type, *f.default_value))
      return fail("Invalid default for field " + f.name + ": " + to_json(*f.default_value) + " not a " +
                  schema_to_string(f.type)),
             false;
  }
  return true;
}

bool AvroParser::validate_main_names(const Node* root) {
  std::unordered_set<const Node*> seen;
  std::string e = main_name_error(root, seen);
  if (!e.empty()) return fail(std::move(e)), false;
  return true;
}

}  // namespace skiff::schema::avro
