// The field-level parts of proto_layout.h's Printer: fields, oneofs,
// groups, reserved and extension ranges, extend blocks.
#include <algorithm>

#include "schema/protobuf/proto_layout.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;

namespace {

constexpr int64_t kMaxTag = 536'870'911;  // Wire's MAX_TAG_VALUE, printed "max"

// One reserved or extension range, [start, last], as Wire prints it.
std::string range_text(int64_t start, int64_t last) {
  if (start == last) return std::to_string(start);
  return std::to_string(start) + " to " + (last < kMaxTag ? std::to_string(last) : std::string("max"));
}

struct RangeItem {
  int64_t start = 0;
  std::string text;
  bool is_name = false;
};

// Confluent prints each statement's items in one line; normalized, one
// statement per item, numbers by start, then names.
std::string range_statements(const std::string& keyword, std::vector<std::vector<RangeItem>> statements,
                             bool normalize) {
  std::string body;
  if (normalize) {
    std::vector<RangeItem> items;
    for (auto& s : statements) items.insert(items.end(), s.begin(), s.end());
    std::stable_sort(items.begin(), items.end(), [](const RangeItem& a, const RangeItem& b) {
      if (a.is_name != b.is_name) return b.is_name;
      return a.is_name ? a.text < b.text : a.start < b.start;
    });
    for (const RangeItem& item : items) body += keyword + " " + item.text + ";\n";
  } else {
    for (const auto& items : statements) {
      std::string line;
      for (const RangeItem& item : items) line += (line.empty() ? "" : ", ") + item.text;
      if (!line.empty()) body.append(keyword).append(" ").append(line).append(";\n");
    }
  }
  if (body.empty()) return "";
  std::string out = "\n";
  append_indented(out, body);
  return out;
}

std::string bracketed_options(const std::vector<OptionItem>& items, bool normalize) {
  if (items.empty()) return "";
  if (items.size() == 1) return " [" + format_option(items[0], normalize) + "]";
  std::string out = " [\n";
  for (size_t i = 0; i < items.size(); ++i) {
    append_indented(out, format_option(items[i], normalize) + (i + 1 < items.size() ? "," : ""));
  }
  return out + "]";
}

OptionValue default_value(const gp::FieldDescriptorProto& f) {
  using T = gp::FieldDescriptorProto;
  const std::string& text = f.default_value();
  switch (f.type()) {
    case T::TYPE_STRING:
      return OptionValue{OptionValue::Kind::kString, text, {}, {}};
    case T::TYPE_BOOL:
      return OptionValue{OptionValue::Kind::kBoolean, text, {}, {}};
    case T::TYPE_BYTES:
      return OptionValue{OptionValue::Kind::kEnum, "\"" + text + "\"", {}, {}};  // kept C-escaped
    case T::TYPE_ENUM:
    case T::TYPE_MESSAGE:
    case T::TYPE_GROUP:
      return OptionValue{OptionValue::Kind::kEnum, text, {}, {}};
    default:
      return OptionValue{f.has_type() ? OptionValue::Kind::kNumber : OptionValue::Kind::kEnum, text, {}, {}};
  }
}

template <class T, class Less>
std::vector<const T*> pointers(const gp::RepeatedPtrField<T>& items, bool sort, Less less) {
  std::vector<const T*> out;
  for (const T& item : items) out.push_back(&item);
  if (sort) std::stable_sort(out.begin(), out.end(), less);
  return out;
}

std::string label_name(gp::FieldDescriptorProto::Label label) {
  switch (label) {
    case gp::FieldDescriptorProto::LABEL_REQUIRED:
      return "required";
    case gp::FieldDescriptorProto::LABEL_REPEATED:
      return "repeated";
    default:
      return "optional";
  }
}

bool by_number(const gp::FieldDescriptorProto* a, const gp::FieldDescriptorProto* b) {
  return a->number() < b->number();
}

}  // namespace

std::string scalar_type_name(gp::FieldDescriptorProto::Type type) {
  return gp::FieldDescriptor::TypeName(static_cast<gp::FieldDescriptor::Type>(type));
}

void Printer::fields_section(std::string& out, const MessageProto& m, const std::string& full_name) {
  std::vector<const FieldProto*> fields;
  for (const auto& f : m.field()) {
    if (!in_real_oneof(f) && f.type() != FieldProto::TYPE_GROUP) fields.push_back(&f);
  }
  if (fields.empty()) return;
  if (normalize()) std::stable_sort(fields.begin(), fields.end(), by_number);
  out += '\n';
  for (const FieldProto* f : fields) append_indented(out, field(*f, &m, full_name, true));
}

void Printer::oneofs_section(std::string& out, const MessageProto& m, const std::string& full_name) {
  std::vector<std::pair<int, std::vector<const FieldProto*>>> oneofs;
  for (int i = 0; i < m.oneof_decl_size(); ++i) {
    std::vector<const FieldProto*> members;
    bool synthetic = false;
    for (const auto& f : m.field()) {
      if (!f.has_oneof_index() || f.oneof_index() != i) continue;
      if (f.proto3_optional()) {
        synthetic = true;
      } else {
        members.push_back(&f);
      }
    }
    if (synthetic || (normalize() && members.empty())) continue;
    if (normalize()) std::stable_sort(members.begin(), members.end(), by_number);
    oneofs.emplace_back(i, std::move(members));
  }
  if (oneofs.empty()) return;
  if (normalize()) {
    std::stable_sort(oneofs.begin(), oneofs.end(),
                     [](const auto& a, const auto& b) { return a.second[0]->number() < b.second[0]->number(); });
  }
  out += '\n';
  for (const auto& [index, members] : oneofs) {
    const auto& decl = m.oneof_decl(index);
    std::string text = "oneof " + decl.name() + " {";
    std::string oneof_options = option_lines(decl.options(), full_name);
    if (!oneof_options.empty()) {
      text += '\n';
      append_indented(text, oneof_options);
    }
    std::string fields;
    std::string groups;
    for (const FieldProto* f : members) {
      if (f->type() == FieldProto::TYPE_GROUP) {
        append_indented(groups, group(*f, m, full_name, true));
      } else {
        append_indented(fields, field(*f, &m, full_name, false));
      }
    }
    if (!fields.empty()) text += "\n" + fields;
    if (!groups.empty()) text += "\n" + groups;
    append_indented(out, text + "}\n");
  }
}

void Printer::groups_section(std::string& out, const MessageProto& m, const std::string& full_name) {
  std::vector<const FieldProto*> groups;
  for (const auto& f : m.field()) {
    if (!in_real_oneof(f) && f.type() == FieldProto::TYPE_GROUP) groups.push_back(&f);
  }
  if (groups.empty()) return;
  if (normalize()) std::stable_sort(groups.begin(), groups.end(), by_number);
  out += '\n';
  for (const FieldProto* f : groups) append_indented(out, group(*f, m, full_name, false));
}

std::string Printer::group(const FieldProto& f, const MessageProto& owner, const std::string& full_name,
                           bool in_oneof) {
  std::string out;
  if (!in_oneof) out += label_name(f.label()) + " ";
  const MessageProto* type = nested_named(owner, f.type_name());
  out += "group " + (type != nullptr ? type->name() : f.type_name()) + " = " + std::to_string(f.number()) + " {";
  if (type != nullptr && type->field_size() > 0) {
    out += '\n';
    std::string scope = scoped(full_name, type->name());
    for (const FieldProto* g : pointers(type->field(), normalize(), by_number)) {
      append_indented(out, field(*g, type, scope, true));
    }
  }
  return out + "}\n";
}

std::string Printer::field(const FieldProto& f, const MessageProto* owner, const std::string& scope, bool with_label) {
  std::string type = field_type(f, owner, scope);
  std::string out;
  bool is_map = type.rfind("map<", 0) == 0;
  if (with_label && !is_map) {
    if (f.proto3_optional()) {
      out += "optional ";
    } else if (raw_.syntax() != "proto3" || f.label() == FieldProto::LABEL_REPEATED) {
      out += label_name(f.label()) + " ";
    }
  }
  out += type + " " + f.name() + " = " + std::to_string(f.number());
  return out + field_options(f, scope) + ";\n";
}

std::string Printer::field_type(const FieldProto& f, const MessageProto* owner, const std::string& scope) const {
  if (const gp::Descriptor* entry = map_entry_of(f, owner, scope)) {
    auto text = [](const gp::FieldDescriptor* e) {
      if (e->message_type() != nullptr) return "." + e->message_type()->full_name();
      if (e->enum_type() != nullptr) return "." + e->enum_type()->full_name();
      return std::string(e->type_name());
    };
    return "map<" + text(entry->map_key()) + ", " + text(entry->map_value()) + ">";
  }
  if (owner != nullptr && !normalize() && !serialized_ && f.label() == FieldProto::LABEL_REPEATED &&
      f.has_type_name()) {
    const MessageProto* raw_entry = nested_named(*owner, f.type_name());
    const FieldProto* key = nullptr;
    const FieldProto* value = nullptr;
    if (raw_entry != nullptr && is_map_entry(*raw_entry)) {
      for (const auto& e : raw_entry->field()) (e.number() == 1 ? key : value) = &e;
    }
    if (key != nullptr && value != nullptr) {
      return "map<" + field_type(*key, nullptr, scope) + ", " + field_type(*value, nullptr, scope) + ">";
    }
  }
  if (f.has_type_name()) return normalize() ? resolve_type(f.type_name(), scope) : f.type_name();
  return scalar_type_name(f.type());
}

std::string Printer::field_options(const FieldProto& f, const std::string& scope) const {
  std::vector<OptionItem> items = written_options(f.options());
  if (f.has_default_value()) items.push_back(OptionItem{"default", false, {}, default_value(f)});
  if (f.has_json_name()) {
    items.push_back(OptionItem{"json_name", false, {}, OptionValue{OptionValue::Kind::kString, f.json_name(), {}, {}}});
  }
  return bracketed_options(finish_options(std::move(items), scope), normalize());
}

std::string Printer::range_section(const std::string& keyword, const ProtoPath& path, const Ranges& list) const {
  std::vector<std::pair<SourceSpan, std::vector<RangeItem>>> statements;
  ProtoPath element = path;
  element.insert(element.end(), {list.range_field, 0});
  for (const auto& s : spans_.statements(path, list.range_field, static_cast<int>(list.ranges.size()))) {
    auto& items = statements.emplace_back(s.start, std::vector<RangeItem>{}).second;
    for (int i : s.elements) {
      auto [start, last] = list.ranges[i];
      element.back() = i;
      std::optional<SourceSpan> span = spans_.span(element);
      bool written_as_range = span && span->end_line == span->line &&
                              span->end_column - span->column > static_cast<int>(std::to_string(start).size());
      items.push_back({start, written_as_range && !normalize() && start == last
                                  ? std::to_string(start) + " to " + std::to_string(last)
                                  : range_text(start, last)});
    }
  }
  for (const auto& s : spans_.statements(path, list.name_field, static_cast<int>(list.names.size()))) {
    auto& items = statements.emplace_back(s.start, std::vector<RangeItem>{}).second;
    for (int i : s.elements) items.push_back({0, "\"" + list.names[i] + "\"", true});
  }
  std::stable_sort(statements.begin(), statements.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<RangeItem>> lines;
  lines.reserve(statements.size());
  for (auto& [start, items] : statements) lines.push_back(std::move(items));
  return range_statements(keyword, std::move(lines), normalize());
}

std::string Printer::reserved(const MessageProto& m, const ProtoPath& path) const {
  Ranges list{{}, {}, gp::DescriptorProto::kReservedRangeFieldNumber, gp::DescriptorProto::kReservedNameFieldNumber};
  for (const auto& r : m.reserved_range()) list.ranges.emplace_back(r.start(), int64_t{r.end()} - 1);
  list.names.assign(m.reserved_name().begin(), m.reserved_name().end());
  return range_section("reserved", path, list);
}

std::string Printer::enum_reserved(const EnumProto& e, const ProtoPath& path) const {
  Ranges list{
      {}, {}, gp::EnumDescriptorProto::kReservedRangeFieldNumber, gp::EnumDescriptorProto::kReservedNameFieldNumber};
  for (const auto& r : e.reserved_range()) list.ranges.emplace_back(r.start(), r.end());
  list.names.assign(e.reserved_name().begin(), e.reserved_name().end());
  return range_section("reserved", path, list);
}

std::string Printer::extension_ranges(const MessageProto& m, const ProtoPath& path) const {
  Ranges list{{}, {}, gp::DescriptorProto::kExtensionRangeFieldNumber, 0};
  for (const auto& r : m.extension_range()) list.ranges.emplace_back(r.start(), int64_t{r.end()} - 1);
  return range_section("extensions", path, list);
}

std::string Printer::extends(const gp::RepeatedPtrField<FieldProto>& fields, const std::string& scope) {
  // Blocks of (extendee, fields): consecutive fields of one extendee as
  // written; normalized, one block per resolved extendee.
  std::vector<std::pair<std::string, std::vector<const FieldProto*>>> blocks;
  for (const FieldProto& f : fields) {
    std::string extendee = normalize() ? resolve_type(f.extendee(), scope) : f.extendee();
    std::pair<std::string, std::vector<const FieldProto*>>* block = nullptr;
    if (normalize() || serialized_) {  // Confluent groups by extendee then
      for (auto& b : blocks) block = b.first == extendee ? &b : block;
    } else if (!blocks.empty() && blocks.back().first == extendee) {
      block = &blocks.back();
    }
    if (block == nullptr) block = &blocks.emplace_back(extendee, std::vector<const FieldProto*>{});
    block->second.push_back(&f);
  }
  std::string out;
  for (auto& [extendee, members] : blocks) {
    if (normalize()) std::stable_sort(members.begin(), members.end(), by_number);
    out += "extend " + extendee + " {\n";
    for (const FieldProto* f : members) append_indented(out, field(*f, nullptr, scope, true));
    out += "}\n";
  }
  return out;
}

}  // namespace skiff::schema::protobuf
