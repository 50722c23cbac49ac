#include "schema/protobuf/proto_printer.h"

#include <algorithm>

#include "schema/protobuf/proto_custom_options.h"
#include "schema/protobuf/proto_layout.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;

namespace {

// The scopes a relative name is looked up in, innermost first, ending with "".
std::vector<std::string> enclosing_scopes(const std::string& scope) {
  std::vector<std::string> scopes;
  std::string s = scope;
  while (!s.empty()) {
    scopes.push_back(s);
    size_t dot = s.rfind('.');
    s = dot == std::string::npos ? "" : s.substr(0, dot);
  }
  scopes.emplace_back();
  return scopes;
}

std::string join_name(const std::string& scope, const std::string& name) {
  if (scope.empty()) return name;
  std::string out;
  out.reserve(scope.size() + 1 + name.size());
  out.append(scope).append(1, '.').append(name);
  return out;
}

std::vector<std::string> sorted_distinct(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

bool is_map_entry(const gp::DescriptorProto& m) { return m.options().map_entry(); }

const gp::DescriptorProto* nested_named(const gp::DescriptorProto& m, const std::string& type_name) {
  size_t dot = type_name.rfind('.');
  std::string last = dot == std::string::npos ? type_name : type_name.substr(dot + 1);
  for (const auto& nested : m.nested_type()) {
    if (nested.name() == last) return &nested;
  }
  return nullptr;
}

bool in_real_oneof(const gp::FieldDescriptorProto& f) { return f.has_oneof_index() && !f.proto3_optional(); }

std::string Printer::file() {
  std::string out;
  file_header(out);
  Located<MessageProto> messages;
  Located<EnumProto> enums;
  for (int i = 0; i < raw_.message_type_size(); ++i) messages.emplace_back(&raw_.message_type(i), ProtoPath{4, i});
  for (int i = 0; i < raw_.enum_type_size(); ++i) enums.emplace_back(&raw_.enum_type(i), ProtoPath{5, i});
  types(out, messages, enums, raw_.package(), false);
  std::string extend_text = extends(raw_.extension(), raw_.package());
  if (!extend_text.empty()) out += "\n" + extend_text;
  if (raw_.service_size() > 0) {
    out += '\n';
    for (const auto& s : raw_.service()) out += service(s);
  }
  return out;
}

void Printer::file_header(std::string& out) {
  if (!raw_.syntax().empty() && (!normalize() || raw_.syntax() == "proto3")) {
    out += "syntax = \"" + raw_.syntax() + "\";\n";
  }
  if (!raw_.package().empty()) out += "package " + raw_.package() + ";\n";
  std::vector<std::string> imports;
  std::vector<std::string> public_imports;
  for (int i = 0; i < raw_.dependency_size(); ++i) {
    bool is_public = std::find(raw_.public_dependency().begin(), raw_.public_dependency().end(), i) !=
                     raw_.public_dependency().end();
    (is_public ? public_imports : imports).push_back(raw_.dependency(i));
  }
  if (normalize()) {
    imports = sorted_distinct(std::move(imports));
    public_imports = sorted_distinct(std::move(public_imports));
  }
  if (!imports.empty() || !public_imports.empty()) out += '\n';
  for (const auto& name : imports) out += "import \"" + name + "\";\n";
  for (const auto& name : public_imports) out += "import public \"" + name + "\";\n";
  std::string file_options = option_lines(raw_.options(), raw_.package());
  if (!file_options.empty()) out += "\n" + file_options;
}

void Printer::types(std::string& out, const Located<MessageProto>& messages, const Located<EnumProto>& enums,
                    const std::string& scope, bool nested) {
  std::string text;
  for (const auto& [m, path] : messages) text += message(*m, scoped(scope, m->name()), path);
  for (const auto& [e, path] : enums) text += enumeration(*e, scope, path);
  if (text.empty()) return;
  out += '\n';
  if (nested) {
    append_indented(out, text);
  } else {
    out += text;
  }
}

std::string Printer::message(const MessageProto& m, const std::string& full_name, const ProtoPath& path) {
  std::string out = "message " + m.name() + " {";
  out += reserved(m, path);
  std::string message_options = option_lines(m.options(), full_name);
  if (!message_options.empty()) {
    out += '\n';
    append_indented(out, message_options);
  }
  fields_section(out, m, full_name);
  oneofs_section(out, m, full_name);
  groups_section(out, m, full_name);
  out += extension_ranges(m, path);
  std::string extend_text = extends(m.extension(), full_name);
  if (!extend_text.empty()) {
    out += '\n';
    append_indented(out, extend_text);
  }
  Located<MessageProto> nested;
  Located<EnumProto> enums;
  for (int i = 0; i < m.nested_type_size(); ++i) {
    const MessageProto& n = m.nested_type(i);
    bool is_group = std::any_of(m.field().begin(), m.field().end(), [&](const FieldProto& f) {
      return f.type() == FieldProto::TYPE_GROUP && nested_named(m, f.type_name()) == &n;
    });
    if (hidden_nested(n, scoped(full_name, n.name())) || is_group) continue;
    nested.emplace_back(&n, path);
    nested.back().second.insert(nested.back().second.end(), {3, i});
  }
  for (int i = 0; i < m.enum_type_size(); ++i) {
    enums.emplace_back(&m.enum_type(i), path);
    enums.back().second.insert(enums.back().second.end(), {4, i});
  }
  types(out, nested, enums, full_name, true);
  return out + "}\n";
}

std::string Printer::enumeration(const EnumProto& e, const std::string& scope, const ProtoPath& path) {
  std::string out = "enum " + e.name() + " {";
  std::string reserved_text = enum_reserved(e, path);
  out += reserved_text;
  std::string scope_name = scoped(scope, e.name());
  std::string enum_options = option_lines(e.options(), scope_name);
  if (reserved_text.empty() && (!enum_options.empty() || e.value_size() > 0)) out += '\n';
  if (!enum_options.empty()) append_indented(out, enum_options);
  std::vector<const gp::EnumValueDescriptorProto*> values;
  for (const auto& v : e.value()) values.push_back(&v);
  if (normalize()) {
    std::stable_sort(values.begin(), values.end(), [](auto* a, auto* b) {
      return a->number() != b->number() ? a->number() < b->number() : a->name() < b->name();
    });
  }
  for (const auto* v : values) {
    std::string line = v->name() + " = " + std::to_string(v->number());
    std::vector<OptionItem> value_options = options(v->options(), scope_name);
    if (!value_options.empty()) {
      line += " ";
      if (value_options.size() == 1) {
        line += "[" + format_option(value_options[0], normalize()) + "]";
      } else {
        line += "[\n";
        for (size_t i = 0; i < value_options.size(); ++i) {
          append_indented(line,
                          format_option(value_options[i], normalize()) + (i + 1 < value_options.size() ? "," : ""));
        }
        line += "]";
      }
    }
    append_indented(out, line + ";\n");
  }
  return out + "}\n";
}

std::string Printer::service(const gp::ServiceDescriptorProto& s) {
  std::string out = "service " + s.name() + " {";
  std::string scope = scoped(raw_.package(), s.name());
  std::string service_options = option_lines(s.options(), scope);
  if (!service_options.empty()) {
    out += '\n';
    append_indented(out, service_options);
  }
  if (s.method_size() > 0) {
    out += '\n';
    for (const auto& m : s.method()) append_indented(out, rpc(m, scope));
  }
  return out + "}\n";
}

std::string Printer::rpc(const gp::MethodDescriptorProto& m, const std::string& scope) {
  std::string out = "rpc " + m.name() + " (";
  if (m.client_streaming()) out += "stream ";
  out += normalize() ? resolve_type(m.input_type(), scope) : m.input_type();
  out += ") returns (";
  if (m.server_streaming()) out += "stream ";
  out += normalize() ? resolve_type(m.output_type(), scope) : m.output_type();
  out += ")";
  std::string method_options = option_lines(m.options(), scope);
  if (!method_options.empty()) {
    out += " {\n";
    append_indented(out, method_options);
    out += "}";
  }
  return out + ";\n";
}

std::vector<OptionItem> Printer::options(const gp::Message& message, const std::string& scope) const {
  return finish_options(written_options(message), scope);
}

std::vector<OptionItem> Printer::written_options(const gp::Message& message) const {
  std::vector<OptionItem> items = collect_options(message);
  if (!serialized_) return items;
  std::vector<OptionItem> custom = custom_options(message, pool_);
  items.insert(items.end(), custom.begin(), custom.end());
  return items;
}

std::vector<OptionItem> Printer::finish_options(std::vector<OptionItem> items, const std::string& scope) const {
  if (!normalize() || items.empty()) return items;
  const gp::DescriptorPool* pool = &pool_;
  return normalize_options(std::move(items), [pool, scope](const std::string& name) -> const gp::FieldDescriptor* {
    if (!name.empty() && name[0] == '.') return pool->FindExtensionByName(name.substr(1));
    for (const std::string& s : enclosing_scopes(scope)) {
      if (const auto* ext = pool->FindExtensionByName(join_name(s, name))) return ext;
    }
    return nullptr;
  });
}

std::string Printer::option_lines(const gp::Message& message, const std::string& scope) const {
  std::string out;
  for (const OptionItem& item : options(message, scope)) out += "option " + format_option(item, normalize()) + ";\n";
  return out;
}

std::string Printer::resolve_type(const std::string& name, const std::string& scope) const {
  if (name.empty() || name[0] == '.') return name;
  const gp::DescriptorPool* pool = &pool_;
  for (const std::string& s : enclosing_scopes(scope)) {
    std::string candidate = join_name(s, name);
    if (pool->FindMessageTypeByName(candidate) != nullptr || pool->FindEnumTypeByName(candidate) != nullptr) {
      return "." + candidate;
    }
  }
  return name;
}

const gp::Descriptor* Printer::map_entry_of(const FieldProto& f, const MessageProto* owner,
                                            const std::string& scope) const {
  if (!normalize() || owner == nullptr || f.label() != FieldProto::LABEL_REPEATED || !f.has_type_name()) {
    return nullptr;
  }
  std::string name = resolve_type(f.type_name(), scope);
  if (!name.empty() && name[0] == '.') name.erase(0, 1);
  const gp::Descriptor* d = pool_.FindMessageTypeByName(name);
  return d != nullptr && d->options().map_entry() ? d : nullptr;
}

bool Printer::hidden_nested(const MessageProto& n, const std::string& full_name) const {
  if (!normalize()) return !serialized_ && is_map_entry(n);
  const gp::Descriptor* d = pool_.FindMessageTypeByName(full_name);
  return d != nullptr && d->options().map_entry();
}

std::string print_canonical(const BuiltSchema& schema) {
  return Printer(schema.raw, schema.spans, *schema.pool, false, schema.serialized).file();
}

std::string print_normalized(const BuiltSchema& schema) {
  return Printer(schema.raw, schema.spans, *schema.pool, true, schema.serialized).file();
}

}  // namespace skiff::schema::protobuf
