#include "schema/avro/avro_printer.h"

namespace skiff::schema::avro {
namespace {

class Printer {
 public:
  Printer(std::set<std::string, std::less<>>& known, std::string& out, int max_depth)
      : known_(known), out_(out), max_depth_(max_depth) {}

  bool schema(const Node* n, std::string_view ns, int depth) {
    if (depth > max_depth_) return false;
    switch (n->type) {
      case Type::kRecord:
        return record(n, ns, depth);
      case Type::kEnum:
        return enumeration(n, ns);
      case Type::kFixed:
        return fixed(n, ns);
      case Type::kArray:
      case Type::kMap:
        return container(n, ns, depth);
      case Type::kUnion:
        return union_of(n, ns, depth);
      default:
        primitive(n);
        return true;
    }
  }

 private:
  void key(std::string_view k) {
    out_.push_back(',');
    write_json_string(k, out_);
    out_.push_back(':');
  }
  void string_field(std::string_view k, std::string_view v) {
    key(k);
    write_json_string(v, out_);
  }
  void props(const Props& props) {
    for (const auto& [name, value] : props) {
      key(name);
      write_json(value, out_);
    }
  }
  void open(Type t) {
    out_ += "{\"type\":";
    write_json_string(type_name(t), out_);
  }

  void primitive(const Node* n) {
    if (n->props.empty()) {
      write_json_string(type_name(n->type), out_);
      return;
    }
    open(n->type);
    props(n->props);
    out_.push_back('}');
  }

  // Schema.NamedSchema.writeNameRef: true when the name was written as a reference.
  bool name_ref(const Node* n, std::string_view ns) {
    if (known_.insert(n->name.full).second) return false;
    write_json_string(n->name.qualified(ns), out_);
    return true;
  }

  void name(const Node* n, std::string_view ns) {
    string_field("name", n->name.name);
    if (!n->name.space.empty()) {
      if (n->name.space != ns) string_field("namespace", n->name.space);
    } else if (!ns.empty()) {
      string_field("namespace", "");
    }
    if (n->doc) string_field("doc", *n->doc);
  }

  void aliases(const Node* n) {
    if (n->aliases.empty()) return;
    key("aliases");
    out_.push_back('[');
    for (size_t i = 0; i < n->aliases.size(); ++i) {
      if (i) out_.push_back(',');
      write_json_string(n->aliases[i].qualified(n->name.space), out_);
    }
    out_.push_back(']');
  }

  bool record(const Node* n, std::string_view ns, int depth) {
    if (name_ref(n, ns)) return true;
    out_ += n->is_error ? "{\"type\":\"error\"" : "{\"type\":\"record\"";
    name(n, ns);
    key("fields");
    out_.push_back('[');
    for (size_t i = 0; i < n->fields.size(); ++i) {
      if (i) out_.push_back(',');
      if (!field(n->fields[i], n->name.space, depth)) return false;
    }
    out_.push_back(']');
    props(n->props);
    aliases(n);
    out_.push_back('}');
    return true;
  }

  bool field(const Field& f, std::string_view ns, int depth) {
    out_ += "{\"name\":";
    write_json_string(f.name, out_);
    key("type");
    if (!schema(f.type, ns, depth + 1)) return false;
    if (f.doc) string_field("doc", *f.doc);
    if (f.default_value) {
      key("default");
      write_json(*f.default_value, out_);
    }
    if (f.order != Order::kAscending) string_field("order", f.order == Order::kDescending ? "descending" : "ignore");
    if (!f.aliases.empty()) {
      key("aliases");
      out_.push_back('[');
      for (size_t i = 0; i < f.aliases.size(); ++i) {
        if (i) out_.push_back(',');
        write_json_string(f.aliases[i], out_);
      }
      out_.push_back(']');
    }
    props(f.props);
    out_.push_back('}');
    return true;
  }

  bool enumeration(const Node* n, std::string_view ns) {
    if (name_ref(n, ns)) return true;
    out_ += "{\"type\":\"enum\"";
    name(n, ns);
    key("symbols");
    out_.push_back('[');
    for (size_t i = 0; i < n->symbols.size(); ++i) {
      if (i) out_.push_back(',');
      write_json_string(n->symbols[i], out_);
    }
    out_.push_back(']');
    if (n->enum_default) string_field("default", *n->enum_default);
    props(n->props);
    aliases(n);
    out_.push_back('}');
    return true;
  }

  bool fixed(const Node* n, std::string_view ns) {
    if (name_ref(n, ns)) return true;
    out_ += "{\"type\":\"fixed\"";
    name(n, ns);
    key("size");
    out_ += std::to_string(n->size);
    props(n->props);
    aliases(n);
    out_.push_back('}');
    return true;
  }

  bool container(const Node* n, std::string_view ns, int depth) {
    open(n->type);
    key(n->type == Type::kArray ? "items" : "values");
    if (!schema(n->items, ns, depth + 1)) return false;
    props(n->props);
    out_.push_back('}');
    return true;
  }

  bool union_of(const Node* n, std::string_view ns, int depth) {
    out_.push_back('[');
    for (size_t i = 0; i < n->branches.size(); ++i) {
      if (i) out_.push_back(',');
      if (!schema(n->branches[i], ns, depth + 1)) return false;
    }
    out_.push_back(']');
    return true;
  }

  std::set<std::string, std::less<>>& known_;
  std::string& out_;
  int max_depth_;
};

}  // namespace

bool print_schema(const Node* n, std::set<std::string, std::less<>>& known, std::string_view ns, std::string& out,
                  int max_depth) {
  return Printer(known, out, max_depth).schema(n, ns, 0);
}

std::string schema_to_string(const Node* n) {
  std::set<std::string, std::less<>> known;
  std::string out;
  print_schema(n, known, "", out);
  return out;
}

}  // namespace skiff::schema::avro
