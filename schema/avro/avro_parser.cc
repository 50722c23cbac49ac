#include "schema/avro/avro_parser.h"

#include <unordered_map>
#include <unordered_set>

#include "schema/avro/avro_defaults.h"
#include "schema/avro/avro_printer.h"
#include "schema/avro/avro_text.h"

namespace skiff::schema::avro {
namespace {

const std::vector<std::string_view> kSchemaReserved = {"doc",  "fields",  "items",  "name", "namespace",
                                                       "size", "symbols", "values", "type", "aliases"};
const std::vector<std::string_view> kEnumReserved = {"doc",     "fields", "items", "name",    "namespace", "size",
                                                     "symbols", "values", "type",  "aliases", "default"};
const std::vector<std::string_view> kFieldReserved = {"default", "doc", "name", "order", "type", "aliases"};

// Schema.getOptionalText: a member's text, or null when absent or not a string.
const std::string* optional_text(const AvroJson& j, std::string_view key) {
  const AvroJson* v = j.get(key);
  return v ? v->text_value() : nullptr;
}

bool is_ascii_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// NameValidator.STRICT_VALIDATOR (ASCII) or, when !strict, UTF_VALIDATOR
// (Character.isLetter: any non-ASCII character counts as a letter here).
std::string name_error(const std::string* name, bool strict) {
  if (name == nullptr) return "Null name";
  if (name->empty()) return "Empty name";
  auto letter = [&](unsigned char c) { return is_ascii_letter(c) || c == '_' || (!strict && c >= 0x80); };
  if (!letter(static_cast<unsigned char>((*name)[0]))) return "Illegal initial character: " + *name;
  for (size_t i = 1; i < name->size(); ++i) {
    const auto c = static_cast<unsigned char>((*name)[i]);
    if (!letter(c) && !is_ascii_digit(c)) return "Illegal character in: " + *name;
  }
  return {};
}

std::string field_string(const Field& f) {
  return f.name + " type:" + std::string(type_upper(f.type->type)) + " pos:" + std::to_string(f.pos);
}

std::string to_upper_ascii(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

}  // namespace

std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) s.remove_suffix(1);
  return s;
}

const Node* AvroParser::fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
  return nullptr;
}

bool AvroParser::validate_name(const std::string* name) {
  if (!strict_) return true;
  std::string e = name_error(name, true);
  if (e.empty()) return true;
  fail(std::move(e));
  return false;
}

// ParseContext.requireValidFullName: each namespace part of a full name.
bool AvroParser::validate_namespace(const Name& n) {
  if (!strict_ || n.space.empty()) return true;
  std::string_view full = n.full;
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = full.find('.', start)) != std::string_view::npos; start = dot + 1)
    parts.emplace_back(full.substr(start, dot - start));
  for (const auto& part : parts) {
    std::string e = name_error(&part, true);
    if (!e.empty()) return fail("Namespace part \"" + part + "\" is invalid: " + std::move(e)), false;
  }
  return true;
}

const Node* AvroParser::parse_text(std::string_view text) {
  error_.clear();
  new_.clear();
  SchemaText read = read_schema_text(text, kMaxJsonDepth);
  if (!read.error.empty()) return fail(read.error);
  if (!read.value) return fail("Cannot parse <null> schema");
  const size_t first_node = arena_.size();
  const Node* root = parse(*read.value, "");
  if (root == nullptr) return nullptr;
  if (!resolve(first_node, root)) return nullptr;
  std::set<std::string, std::less<>> known;
  std::string printed;
  if (!print_schema(root, known, "", printed, kMaxTypeDepth))
    return fail("Schema nesting is too deep (more than " + std::to_string(kMaxTypeDepth) + " levels)");
  if (!read.dangling.empty()) return fail("dangling content after end of schema: " + read.dangling);
  if (!strict_ && !validate_main_names(root)) return nullptr;
  return root;
}

// Schema.parse(JsonNode, ParseContext, namespace).
const Node* AvroParser::parse(const AvroJson& j, std::string_view ns) {
  switch (j.kind) {
    case AvroJson::Kind::kString:
      return find(j.text, ns);
    case AvroJson::Kind::kObject:
      return parse_object(j, ns);
    case AvroJson::Kind::kArray:
      return parse_union(j, ns);
    default:
      return fail("Schema not yet supported: " + to_json(j));
  }
}

const Node* AvroParser::parse_object(const AvroJson& j, std::string_view ns) {
  const std::string* type = optional_text(j, "type");
  if (type == nullptr) return fail("No type: " + to_json(j));
  if (auto primitive = primitive_type(*type)) return parse_primitive(j, *primitive);
  if (*type == "record" || *type == "error") return parse_record(j, ns, *type == "error");
  if (*type == "enum") return parse_enum(j, ns);
  if (*type == "array") return parse_container(j, ns, Type::kArray);
  if (*type == "map") return parse_container(j, ns, Type::kMap);
  if (*type == "fixed") return parse_fixed(j, ns);
  return fail(
      "A schema \"type\" MUST be a primitive type or one of \"enum\", \"fixed\", \"record\", \"error\", \"array\" or "
      "\"map\".");
}

// ParseContext.find: a primitive, a name known so far (in the namespace,
// then as written), else a placeholder resolved when the text is read.
const Node* AvroParser::find(const std::string& name, std::string_view ns) {
  if (auto primitive = primitive_type(name)) return &arena_.make(*primitive);
  const std::string full = (!ns.empty() && name.find('.') == std::string::npos) ? std::string(ns) + "." + name : name;
  for (const std::string* key : {&full, &name}) {
    if (auto it = old_.find(*key); it != old_.end()) return it->second;
    if (auto it = new_.find(*key); it != new_.end()) return it->second;
  }
  return placeholder(full);
}

// SchemaResolver.unresolvedSchema.
const Node* AvroParser::placeholder(const std::string& full) {
  Node& n = arena_.make(Type::kRecord);
  n.name = Name::make("UnresolvedSchema_" + std::to_string(placeholders_++), "org.apache.avro.compiler");
  n.doc = "unresolved schema";
  n.props.emplace_back("org.apache.avro.idl.unresolved.name", AvroJson::string(full));
  n.unresolved = true;
  n.ref = full;
  return &n;
}

const Node* AvroParser::parse_primitive(const AvroJson& j, Type t) {
  Node& n = arena_.make(t);
  parse_props(j, n.props, kSchemaReserved);
  n.logical = logical_type_of(n);
  return &n;
}

void AvroParser::parse_props(const AvroJson& j, Props& props, const std::vector<std::string_view>& reserved) {
  for (const auto& [name, value] : j.members) {
    bool skip = false;
    for (auto r : reserved) skip |= (r == name);
    if (!skip) props.emplace_back(name, value);
  }
}

bool AvroParser::parse_name(const AvroJson& j, std::string_view ns, Name& out) {
  const std::string* space = optional_text(j, "namespace");
  const std::string* name = optional_text(j, "name");
  if (name == nullptr) return fail("No name in schema: " + to_json(j)), false;
  out = Name::make(*name, space ? std::string_view(*space) : ns);
  return validate_name(&out.name);
}

// NamedSchema's constructor: a named type may not be called as a primitive.
bool AvroParser::named_ctor(const Name& name) {
  if (primitive_type(name.full)) return fail("Schemas may not be named after primitives: " + name.full), false;
  return true;
}

bool AvroParser::parse_aliases(const AvroJson& j, std::vector<std::string>& out) {
  const AvroJson* aliases = j.get("aliases");
  if (aliases == nullptr) return true;
  if (aliases->kind != AvroJson::Kind::kArray) return fail("aliases not an array: " + to_json(j)), false;
  std::unordered_set<std::string_view> seen;
  for (const AvroJson& a : aliases->items) {
    if (a.kind != AvroJson::Kind::kString) return fail("alias not a string: " + to_json(a)), false;
    if (seen.insert(a.text).second) out.push_back(a.text);
  }
  return true;
}

bool AvroParser::parse_type_aliases(const AvroJson& j, Node& n) {
  std::vector<std::string> aliases;
  if (!parse_aliases(j, aliases)) return false;
  std::unordered_set<std::string> seen;
  for (const auto& a : aliases) {
    Name alias = Name::make(a, n.name.space);
    if (!validate_name(&alias.name)) return false;
    if (seen.insert(alias.full).second) n.aliases.push_back(std::move(alias));
  }
  return true;
}

// ParseContext.put: a name may be defined again only as an equal schema.
bool AvroParser::put(const Node* n) {
  if (!validate_namespace(n->name)) return false;
  if (auto it = old_.find(n->name.full); it != old_.end()) {
    if (!schema_equals(n, it->second)) return fail("Can't redefine: " + n->name.full), false;
    return true;
  }
  auto [it, inserted] = new_.emplace(n->name.full, n);
  if (!inserted && !schema_equals(it->second, n)) return fail("Can't redefine: " + n->name.full), false;
  return true;
}

const Node* AvroParser::parse_record(const AvroJson& j, std::string_view ns, bool is_error) {
  Name name;
  if (!parse_name(j, ns, name)) return nullptr;
  const std::string* doc = optional_text(j, "doc");
  if (!named_ctor(name)) return nullptr;
  const AvroJson* fields = j.get("fields");
  if (fields == nullptr || fields->kind != AvroJson::Kind::kArray) return fail("Record has no fields: " + to_json(j));
  Node& r = arena_.make(Type::kRecord);
  r.name = std::move(name);
  if (doc) r.doc = *doc;
  r.is_error = is_error;
  for (const AvroJson& fj : fields->items) {
    Field f;
    if (!parse_field(fj, r.name.space, f)) return nullptr;
    f.pos = static_cast<int>(r.fields.size());
    r.fields.push_back(std::move(f));
  }
  if (!check_duplicate_fields(r)) return nullptr;
  parse_props(j, r.props, kSchemaReserved);
  r.logical = logical_type_of(r);
  if (!parse_type_aliases(j, r) || !put(&r)) return nullptr;
  return &r;
}

bool AvroParser::check_duplicate_fields(const Node& r) {
  std::unordered_map<std::string_view, size_t> seen;
  for (size_t i = 0; i < r.fields.size(); ++i) {
    auto [it, inserted] = seen.emplace(r.fields[i].name, i);
    if (inserted) continue;
    return fail("Duplicate field " + r.fields[i].name + " in record " + r.name.full + ": " + field_string(r.fields[i]) +
                " and " + field_string(r.fields[it->second]) + "."),
           false;
  }
  return true;
}

bool AvroParser::parse_field(const AvroJson& j, std::string_view ns, Field& f) {
  const std::string* name = optional_text(j, "name");
  if (name == nullptr) return fail("No field name: " + to_json(j)), false;
  f.name = *name;
  if (const std::string* doc = optional_text(j, "doc")) f.doc = *doc;
  const AvroJson* type = j.get("type");
  if (type == nullptr) return fail("No field type: " + to_json(j)), false;
  f.type = parse(*type, ns);
  if (f.type == nullptr || !parse_order(j, f) || !parse_field_default(j, f)) return false;
  parse_props(j, f.props, kFieldReserved);
  return parse_aliases(j, f.aliases);
}

bool AvroParser::parse_order(const AvroJson& j, Field& f) {
  const AvroJson* order = j.get("order");
  if (order == nullptr) return true;
  if (order->kind != AvroJson::Kind::kString)
    return fail(
               "Cannot invoke \"String.toUpperCase(java.util.Locale)\" because the return value of "
               "\"com.fasterxml.jackson.databind.JsonNode.textValue()\" is null"),
           false;
  const std::string upper = to_upper_ascii(order->text);
  if (upper == "ASCENDING")
    f.order = Order::kAscending;
  else if (upper == "DESCENDING")
    f.order = Order::kDescending;
  else if (upper == "IGNORE")
    f.order = Order::kIgnore;
  else
    return fail("No enum constant org.apache.avro.Schema.Field.Order." + upper), false;
  return true;
}

// A float or double field's default written as a string is read as a
// number (Double.parseDouble); then the Field constructor checks the name
// and, when validating, the default against the type.
bool AvroParser::parse_field_default(const AvroJson& j, Field& f) {
  if (const AvroJson* d = j.get("default")) {
    f.default_value = *d;
    if ((f.type->type == Type::kFloat || f.type->type == Type::kDouble) && d->kind == AvroJson::Kind::kString) {
      double v = 0;
      const std::string_view trimmed = java_trim(d->text);
      if (!java_parse_double(d->text, v))
        return fail(trimmed.empty() ? "empty String" : "For input string: \"" + std::string(trimmed) + "\""), false;
      f.default_value = AvroJson::from_double(v);
    }
  }
  if (!validate_name(&f.name)) return false;
  if (strict_ && f.default_value && !is_valid_default(f.type, *f.default_value))
    return fail("Invalid default for field " + f.name + ": " + to_json(*f.default_value) + " not a " +
                schema_to_string(f.type)),
           false;
  return true;
}

const Node* AvroParser::parse_enum(const AvroJson& j, std::string_view ns) {
  Name name;
  if (!parse_name(j, ns, name)) return nullptr;
  const std::string* doc = optional_text(j, "doc");
  const AvroJson* symbols = j.get("symbols");
  if (symbols == nullptr || symbols->kind != AvroJson::Kind::kArray) return fail("Enum has no symbols: " + to_json(j));
  if (!named_ctor(name)) return nullptr;
  Node& e = arena_.make(Type::kEnum);
  e.name = std::move(name);
  if (doc) e.doc = *doc;
  if (const std::string* d = optional_text(j, "default")) e.enum_default = *d;
  if (!parse_symbols(*symbols, e)) return nullptr;
  parse_props(j, e.props, kEnumReserved);
  e.logical = logical_type_of(e);
  if (!parse_type_aliases(j, e) || !put(&e)) return nullptr;
  return &e;
}

bool AvroParser::parse_symbols(const AvroJson& symbols, Node& e) {
  std::unordered_set<std::string> seen;
  for (const AvroJson& s : symbols.items) {
    const std::string* symbol = s.text_value();
    if (symbol == nullptr) return fail("Null name"), false;  // Avro: strict validation; Confluent: its name check
    if (!validate_name(symbol)) return false;
    if (!seen.insert(*symbol).second) return fail("Duplicate enum symbol: " + *symbol), false;
    e.symbols.push_back(*symbol);
  }
  if (e.enum_default && !e.has_symbol(*e.enum_default)) {
    std::string set = "[";
    for (size_t i = 0; i < e.symbols.size(); ++i) set += (i ? ", " : "") + e.symbols[i];
    return fail("The Enum Default: " + *e.enum_default + " is not in the enum symbol set: " + set + "]"), false;
  }
  return true;
}

const Node* AvroParser::parse_container(const AvroJson& j, std::string_view ns, Type t) {
  const AvroJson* inner = j.get(t == Type::kArray ? "items" : "values");
  if (inner == nullptr)
    return fail((t == Type::kArray ? "Array has no items type: " : "Map has no values type: ") + to_json(j));
  const Node* items = parse(*inner, ns);
  if (items == nullptr) return nullptr;
  Node& n = arena_.make(t);
  n.items = items;
  parse_props(j, n.props, kSchemaReserved);
  n.logical = logical_type_of(n);
  return &n;
}

const Node* AvroParser::parse_fixed(const AvroJson& j, std::string_view ns) {
  Name name;
  if (!parse_name(j, ns, name)) return nullptr;
  const std::string* doc = optional_text(j, "doc");
  const AvroJson* size = j.get("size");
  if (size == nullptr || size->kind != AvroJson::Kind::kInt) return fail("Invalid or no size: " + to_json(j));
  if (!named_ctor(name)) return nullptr;
  if (size->integer < 0) return fail("Malformed data. Length is negative: " + std::to_string(size->integer));
  if (size->integer > 2147483639) return fail("Cannot read arrays longer than 2147483639 bytes in Java library");
  Node& f = arena_.make(Type::kFixed);
  f.name = std::move(name);
  if (doc) f.doc = *doc;
  f.size = static_cast<int32_t>(size->integer);
  parse_props(j, f.props, kSchemaReserved);
  f.logical = logical_type_of(f);
  if (!parse_type_aliases(j, f) || !put(&f)) return nullptr;
  return &f;
}

const Node* AvroParser::parse_union(const AvroJson& j, std::string_view ns) {
  Node& u = arena_.make(Type::kUnion);
  for (const AvroJson& b : j.items) {
    const Node* branch = parse(b, ns);
    if (branch == nullptr) return nullptr;
    u.branches.push_back(branch);
  }
  return check_union(u) ? &u : nullptr;
}

// UnionSchema's constructor: no union in a union, no two branches of one name.
bool AvroParser::check_union(const Node& u) {
  std::unordered_set<std::string_view> names;
  for (const Node* b : u.branches) {
    if (b->type == Type::kUnion) return fail("Nested union: " + schema_to_string(&u)), false;
    if (!names.insert(b->full_name()).second) return fail("Duplicate in union:" + std::string(b->full_name())), false;
  }
  return true;
}

}  // namespace skiff::schema::avro
