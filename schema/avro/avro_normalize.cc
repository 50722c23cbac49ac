#include "schema/avro/avro_normalize.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "schema/avro/avro_parser.h"

namespace skiff::schema::avro {
namespace {

using Kind = AvroJson::Kind;

// JacksonUtils.toObject(node, schema) then Confluent's toJsonNode(object)
// written: false where toObject gives null (`null_result` set) or Java
// throws on the way.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) {}

  // A top-level conversion: Java null leaves nothing written and `is_null`.
  bool write(const AvroJson& v, const Node* schema, bool& is_null) {
    std::string saved = out_;
    is_null = false;
    if (convert(v, schema, 0)) return true;
    out_ = std::move(saved);
    is_null = null_;
    return false;
  }

 private:
  bool number(double d, bool as_float) {
    std::string s = as_float ? java_float(static_cast<float>(d)) : java_double(d);
    if (std::isfinite(d))
      out_ += s;
    else
      write_json_string(s, out_);
    return true;
  }

  bool none() {
    null_ = true;
    return false;
  }

  bool integral(const AvroJson& v, Type t) {
    if (t == Type::kFloat || t == Type::kDouble) return number(static_cast<double>(v.integer), t == Type::kFloat);
    if (t == Type::kInt || t == Type::kLong) {
      out_ += std::to_string(v.integer);
      return true;
    }
    return none();
  }

  bool text(const AvroJson& v, Type t) {
    if (t == Type::kString || t == Type::kEnum) {
      write_json_string(v.text, out_);
      return true;
    }
    if (t != Type::kBytes && t != Type::kFixed) return none();
    write_json_string(latin1(v.text), out_);
    return true;
  }

  // String.getBytes(ISO_8859_1) then new String(bytes, ISO_8859_1): what is
  // not Latin-1 becomes '?' (one per UTF-16 unit).
  static std::string latin1(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
      const auto c = static_cast<unsigned char>(s[i]);
      const size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
      if (len == 2 && c <= 0xc3)
        out.append(s, i, 2);
      else if (len == 1)
        out.push_back(static_cast<char>(c));
      else
        out += len == 4 ? "??" : "?";
      i += len;
    }
    return out;
  }

  bool array(const AvroJson& v, const Node* schema, int depth) {
    if (schema && schema->type != Type::kArray) return false;  // getElementType throws
    out_.push_back('[');
    for (size_t i = 0; i < v.items.size(); ++i) {
      if (i) out_.push_back(',');
      if (!convert(v.items[i], schema ? schema->items : nullptr, depth + 1)) return null_ = false, false;
    }
    out_.push_back(']');
    return true;
  }

  bool object(const AvroJson& v, const Node* schema, int depth) {
    std::map<std::string, std::string> sorted;
    for (const auto& [key, value] : v.members) {
      const Node* s = nullptr;
      if (schema && schema->type == Type::kMap) s = schema->items;
      if (schema && schema->type == Type::kRecord) {
        const Field* f = schema->field(key);
        if (f == nullptr) return false;  // getField(key).schema(): a NullPointerException
        s = f->type;
      }
      std::string member;
      ObjectWriter inner(member);
      if (!inner.convert(value, s, depth + 1)) return false;
      sorted[key] = std::move(member);
    }
    out_.push_back('{');
    bool first = true;
    for (const auto& [key, value] : sorted) {
      if (!first) out_.push_back(',');
      first = false;
      write_json_string(key, out_);
      out_.push_back(':');
      out_ += value;
    }
    out_.push_back('}');
    return true;
  }

  bool convert(const AvroJson& v, const Node* schema, int depth) {
    if (depth > kMaxTypeDepth) return false;
    if (v.kind == Kind::kNull) return out_ += "null", true;
    if (schema && schema->type == Type::kUnion) return union_value(v, schema, depth);
    const Type t = schema ? schema->type : Type::kNull;
    switch (v.kind) {
      case Kind::kBool:
        out_ += v.boolean ? "true" : "false";
        return true;
      case Kind::kInt:
      case Kind::kLong:
        return schema ? integral(v, t) : (out_ += std::to_string(v.integer), true);
      case Kind::kDouble:
        if (!schema || t == Type::kDouble || t == Type::kFloat) return number(v.number, t == Type::kFloat);
        return none();
      case Kind::kString:
        if (!schema) return write_json_string(v.text, out_), true;
        return text(v, t);
      case Kind::kArray:
        return array(v, schema, depth);
      case Kind::kObject:
        return object(v, schema, depth);
      default:
        return none();  // a BigInteger: toObject gives null
    }
  }

  bool union_value(const AvroJson& v, const Node* schema, int depth) {
    for (const Node* b : schema->branches) {
      if (b->type == Type::kNull) continue;
      std::string branch;
      ObjectWriter inner(branch);
      if (inner.convert(v, b, depth + 1)) {
        out_ += branch;
        return true;
      }
      if (!inner.null_) return false;
    }
    return none();
  }

  std::string& out_;
  bool null_ = false;
};

class Normalizer {
 public:
  explicit Normalizer(const std::set<std::string, std::less<>>& known) : env_(known) {}

  bool build(const Node* s, std::string& o, int depth) {
    if (depth > kMaxTypeDepth) return false;
    switch (s->type) {
      case Type::kUnion:
        o.push_back('[');
        for (size_t i = 0; i < s->branches.size(); ++i) {
          if (i) o.push_back(',');
          if (!build(s->branches[i], o, depth + 1)) return false;
        }
        o.push_back(']');
        return true;
      case Type::kArray:
      case Type::kMap:
        o += "{\"type\":\"" + std::string(type_name(s->type)) + "\"";
        o += s->type == Type::kArray ? ",\"items\":" : ",\"values\":";
        if (!build(s->items, o, depth + 1)) return false;
        logical_props(s, o);
        return simple_props(s->props, o) && (o.push_back('}'), true);
      case Type::kRecord:
      case Type::kEnum:
      case Type::kFixed:
        return named(s, o, depth);
      default:
        if (!s->logical && s->props.empty()) return o += "\"" + std::string(type_name(s->type)) + "\"", true;
        o += "{\"type\":\"" + std::string(type_name(s->type)) + "\"";
        logical_props(s, o);
        return simple_props(s->props, o) && (o.push_back('}'), true);
    }
  }

 private:
  bool named(const Node* s, std::string& o, int depth) {
    const std::string qname = "\"" + s->name.full + "\"";
    if (env_.count(s->name.full)) return o += qname, true;
    env_.insert(s->name.full);
    o += "{\"name\":" + qname + ",\"type\":\"" + std::string(type_name(s->type)) + "\"";
    if (s->type == Type::kEnum) {
      o += ",\"symbols\":[";
      for (size_t i = 0; i < s->symbols.size(); ++i) o += (i ? ",\"" : "\"") + s->symbols[i] + "\"";
      o += "]";
    } else if (s->type == Type::kFixed) {
      o += ",\"size\":" + std::to_string(s->size);
    } else {
      o += ",\"fields\":[";
      for (size_t i = 0; i < s->fields.size(); ++i) {
        if (i) o.push_back(',');
        const Field& f = s->fields[i];
        o += "{\"name\":\"" + f.name + "\",\"type\":";
        if (!build(f.type, o, depth + 1) || !field_props(f, o)) return false;
        o.push_back('}');
      }
      o += "]";
    }
    logical_props(s, o);
    complex_props(s, o);
    return simple_props(s->props, o) && (o.push_back('}'), true);
  }

  static void logical_props(const Node* s, std::string& o) {
    if (!s->logical) return;
    o += ",\"logicalType\":\"" + s->logical->name + "\"";
    if (s->logical->name != "decimal") return;
    o += ",\"precision\":" + std::to_string(s->logical->precision);
    if (s->logical->scale != 0) o += ",\"scale\":" + std::to_string(s->logical->scale);
  }

  static void string_array(std::vector<std::string> items, std::string& o) {
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    o.push_back('[');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) o.push_back(',');
      write_json_string(items[i], o);
    }
    o.push_back(']');
  }

  static void complex_props(const Node* s, std::string& o) {
    if (s->doc && !s->doc->empty()) {
      o += ",\"doc\":";
      write_json_string(*s->doc, o);
    }
    if (!s->aliases.empty()) {
      o += ",\"aliases\":";
      string_array(s->alias_strings(), o);
    }
    if (s->type == Type::kEnum && s->enum_default) {
      o += ",\"default\":";
      write_json_string(*s->enum_default, o);
    }
  }

  static bool field_props(const Field& f, std::string& o) {
    static constexpr const char* kOrder[] = {"ASCENDING", "DESCENDING", "IGNORE"};
    o += ",\"order\":\"" + std::string(kOrder[static_cast<int>(f.order)]) + "\"";
    if (f.doc) {
      o += ",\"doc\":";
      write_json_string(*f.doc, o);
    }
    if (!f.aliases.empty()) {
      o += ",\"aliases\":";
      string_array(f.aliases, o);
    }
    if (f.default_value) {
      std::string value;
      bool is_null = false;
      if (ObjectWriter(value).write(*f.default_value, f.type, is_null))
        o += ",\"default\":" + value;
      else if (!is_null)
        return false;
    }
    return simple_props(f.props, o);
  }

  static bool simple_props(const Props& props, std::string& o) {
    std::map<std::string, const AvroJson*> sorted;
    for (const auto& [name, value] : props) sorted[name] = &value;
    for (const auto& [name, value] : sorted) {
      std::string text;
      bool is_null = false;
      if (!ObjectWriter(text).write(*value, nullptr, is_null)) return false;
      o += ",\"";
      o += name;
      o += "\":";
      o += text;
    }
    return true;
  }

  std::set<std::string, std::less<>> env_;
};

}  // namespace

std::optional<std::string> normalized_text(const Node* root, const std::set<std::string, std::less<>>& known) {
  std::string out;
  if (!Normalizer(known).build(root, out, 0)) return std::nullopt;
  return out;
}

}  // namespace skiff::schema::avro
