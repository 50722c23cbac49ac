// compare_schemas() of proto_diff.h: Confluent's SchemaDiff,
// MessageSchemaDiff and FieldSchemaDiff over built descriptors.
#include "schema/protobuf/proto_diff.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "schema/protobuf/java_hash_order.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;

namespace {

using Label = gp::FieldDescriptor::Label;
enum class Kind { kScalar, kMap, kMessage };
enum class ScalarKind { kGeneralNumber, kSignedNumber, kStringOrBytes, kFixed32, kFixed64, kFloat, kDouble };

// The messages and enums a scope declares, as Wire lists them: a map's
// entry message and a group's message are not types of their own.
struct Types {
  std::vector<const gp::Descriptor*> messages;
  std::vector<const gp::EnumDescriptor*> enums;
};

bool is_group_type(const gp::Descriptor& d) {
  const gp::Descriptor* parent = d.containing_type();
  if (parent == nullptr) return false;
  for (int i = 0; i < parent->field_count(); ++i) {
    const gp::FieldDescriptor* f = parent->field(i);
    if (f->type() == gp::FieldDescriptor::TYPE_GROUP && f->message_type() == &d) return true;
  }
  return false;
}

Types file_types(const gp::FileDescriptor& file) {
  Types types;
  for (int i = 0; i < file.message_type_count(); ++i) types.messages.push_back(file.message_type(i));
  for (int i = 0; i < file.enum_type_count(); ++i) types.enums.push_back(file.enum_type(i));
  return types;
}

// A schema registered as a serialized descriptor has its map entries as
// messages of its own (Confluent's toProtoFile keeps them).
Types nested_types(const gp::Descriptor& d, bool map_entries) {
  Types types;
  for (int i = 0; i < d.nested_type_count(); ++i) {
    const gp::Descriptor* n = d.nested_type(i);
    if ((map_entries || !n->options().map_entry()) && !is_group_type(*n)) types.messages.push_back(n);
  }
  for (int i = 0; i < d.enum_type_count(); ++i) types.enums.push_back(d.enum_type(i));
  return types;
}

// Wire's label of a field: none for a proto3 field written without one,
// a oneof member or a map.
std::optional<Label> wire_label(const gp::FieldDescriptor& f) {
  if (f.is_map() || f.real_containing_oneof() != nullptr) return std::nullopt;
  if (f.has_optional_keyword()) return gp::FieldDescriptor::LABEL_OPTIONAL;
  if (f.file()->syntax() == gp::FileDescriptor::SYNTAX_PROTO3 && !f.is_repeated()) return std::nullopt;
  return f.label();
}

Kind kind_of(const gp::FieldDescriptor& f) {
  if (f.is_map()) return Kind::kMap;
  if (f.cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) return Kind::kMessage;
  return Kind::kScalar;
}

ScalarKind scalar_kind(const gp::FieldDescriptor& f) {
  using F = gp::FieldDescriptor;
  switch (f.type()) {
    case F::TYPE_SINT32:
    case F::TYPE_SINT64:
      return ScalarKind::kSignedNumber;
    case F::TYPE_STRING:
    case F::TYPE_BYTES:
      return ScalarKind::kStringOrBytes;
    case F::TYPE_FIXED32:
    case F::TYPE_SFIXED32:
      return ScalarKind::kFixed32;
    case F::TYPE_FIXED64:
    case F::TYPE_SFIXED64:
      return ScalarKind::kFixed64;
    case F::TYPE_FLOAT:
      return ScalarKind::kFloat;
    case F::TYPE_DOUBLE:
      return ScalarKind::kDouble;
    default:
      return ScalarKind::kGeneralNumber;  // int32, int64, uint32, uint64, bool, enum
  }
}

std::string local_name(const gp::Descriptor& d) {
  const std::string& package = d.file()->package();
  if (package.empty()) return d.full_name();
  return d.full_name().substr(package.size() + 1);
}

struct Ref {
  std::string subject;
  int32_t version = 0;
};

// Context.TypeElementInfo.reference(): the schema's own types have the
// dummy reference ("", -1), a direct reference its subject and version,
// well-known types and references of references none.
std::optional<Ref> reference_of(const gp::Descriptor& d, const BuiltSchema& schema) {
  if (d.file() == schema.file) return Ref{"", -1};
  auto it = schema.references.find(d.file()->name());
  if (it == schema.references.end()) return std::nullopt;
  return Ref{it->second.subject, it->second.version};
}

struct FieldIndex {
  std::map<int, const gp::FieldDescriptor*> by_tag;
  std::map<int, std::string> tag_to_oneof;
  std::map<std::string, const gp::OneofDescriptor*> oneofs;
};

FieldIndex index_fields(const gp::Descriptor& d) {
  FieldIndex index;
  for (int i = 0; i < d.field_count(); ++i) {
    const gp::FieldDescriptor* f = d.field(i);
    if (f->type() == gp::FieldDescriptor::TYPE_GROUP) continue;  // Wire keeps groups apart
    index.by_tag[f->number()] = f;
    if (const gp::OneofDescriptor* oneof = f->real_containing_oneof()) {
      index.tag_to_oneof[f->number()] = oneof->name();
      index.oneofs[oneof->name()] = oneof;
    }
  }
  return index;
}

class Differ {
 public:
  Differ(const BuiltSchema& original, const BuiltSchema& update) : original_(original), update_(update) {}

  std::vector<Difference> run() {
    if (original_.file->package() != update_.file->package()) add(DiffType::kPackageChanged);
    compare_types(file_types(*original_.file), file_types(*update_.file));
    return std::move(diffs_);
  }

 private:
  struct Scope {
    Scope(std::vector<std::string>& path, const std::string& part) : path_(path) { path_.push_back(part); }
    ~Scope() { path_.pop_back(); }
    std::vector<std::string>& path_;
  };

  void add(DiffType type) {
    std::string path = "#/";
    for (size_t i = 0; i < path_.size(); ++i) path += (i ? "/" : "") + path_[i];
    diffs_.push_back({type, path});
  }

  void compare_types(const Types& original, const Types& update);
  void compare_enums(const Types& original, const Types& update);
  void compare_message(const gp::Descriptor& original, const gp::Descriptor& update);
  void compare_oneof_moves(const FieldIndex& original, const FieldIndex& update, const gp::Descriptor& d);
  void compare_tag(int tag, const FieldIndex& original, const FieldIndex& update,
                   const std::set<std::string>& deleted_oneofs);
  void compare_field(const gp::FieldDescriptor& original, const gp::FieldDescriptor& update);
  void compare_labels_and_types(const gp::FieldDescriptor& original, const gp::FieldDescriptor& update,
                                std::optional<Label> original_label, std::optional<Label> update_label);
  void compare_message_types(const gp::Descriptor& original, const gp::Descriptor& update);

  const BuiltSchema& original_;
  const BuiltSchema& update_;
  std::vector<std::string> path_;
  std::vector<const gp::Descriptor*> comparing_;  // Context.schemas: the originals being compared
  std::vector<Difference> diffs_;
};

void Differ::compare_types(const Types& original, const Types& update) {
  std::map<std::string, std::pair<const gp::Descriptor*, int>> original_by_name;
  std::map<std::string, std::pair<const gp::Descriptor*, int>> update_by_name;
  std::vector<std::string> original_names;
  std::vector<std::string> update_names;
  for (size_t i = 0; i < original.messages.size(); ++i) {
    original_by_name[original.messages[i]->name()] = {original.messages[i], static_cast<int>(i)};
    original_names.push_back(original.messages[i]->name());
  }
  for (size_t i = 0; i < update.messages.size(); ++i) {
    update_by_name[update.messages[i]->name()] = {update.messages[i], static_cast<int>(i)};
    update_names.push_back(update.messages[i]->name());
  }
  for (const std::string& name : java_hash_set_order(original_names, update_names)) {
    Scope scope(path_, name);
    auto o = original_by_name.find(name);
    auto u = update_by_name.find(name);
    if (u == update_by_name.end()) {
      if (!o->second.first->options().map_entry()) add(DiffType::kMessageRemoved);
    } else if (o == original_by_name.end()) {
      if (!u->second.first->options().map_entry()) add(DiffType::kMessageAdded);
    } else {
      compare_message(*o->second.first, *u->second.first);
      if (o->second.second != u->second.second) add(DiffType::kMessageMoved);
    }
  }
  compare_enums(original, update);
}

void Differ::compare_enums(const Types& original, const Types& update) {
  std::map<std::string, const gp::EnumDescriptor*> original_by_name;
  std::map<std::string, const gp::EnumDescriptor*> update_by_name;
  std::vector<std::string> original_names;
  std::vector<std::string> update_names;
  for (const auto* e : original.enums) original_by_name[e->name()] = e, original_names.push_back(e->name());
  for (const auto* e : update.enums) update_by_name[e->name()] = e, update_names.push_back(e->name());
  for (const std::string& name : java_hash_set_order(original_names, update_names)) {
    Scope scope(path_, name);
    auto o = original_by_name.find(name);
    auto u = update_by_name.find(name);
    if (u == update_by_name.end()) {
      add(DiffType::kEnumRemoved);
      continue;
    }
    if (o == original_by_name.end()) {
      add(DiffType::kEnumAdded);
      continue;
    }
    std::map<int, const gp::EnumValueDescriptor*> original_values;
    std::map<int, const gp::EnumValueDescriptor*> update_values;
    for (int i = 0; i < o->second->value_count(); ++i)
      original_values.emplace(o->second->value(i)->number(), o->second->value(i));
    for (int i = 0; i < u->second->value_count(); ++i)
      update_values.emplace(u->second->value(i)->number(), u->second->value(i));
    std::set<int> tags;
    for (const auto& [tag, v] : original_values) tags.insert(tag);
    for (const auto& [tag, v] : update_values) tags.insert(tag);
    for (int tag : tags) {
      Scope tag_scope(path_, std::to_string(tag));
      auto ov = original_values.find(tag);
      auto uv = update_values.find(tag);
      if (uv == update_values.end()) {
        add(DiffType::kEnumConstRemoved);
      } else if (ov == original_values.end()) {
        add(DiffType::kEnumConstAdded);
      } else if (ov->second->name() != uv->second->name()) {
        add(DiffType::kEnumConstChanged);
      }
    }
  }
}

void Differ::compare_message(const gp::Descriptor& original, const gp::Descriptor& update) {
  if (std::find(comparing_.begin(), comparing_.end(), &original) != comparing_.end()) return;
  comparing_.push_back(&original);
  FieldIndex o = index_fields(original);
  FieldIndex u = index_fields(update);
  // A oneof removed with none of its members left anywhere is a deletion.
  std::set<std::string> deleted_oneofs;
  for (const auto& [name, oneof] : o.oneofs) {
    if (u.oneofs.count(name) != 0) continue;
    bool survives = false;
    for (int i = 0; i < oneof->field_count(); ++i)
      survives = survives || u.by_tag.count(oneof->field(i)->number()) != 0;
    if (!survives) deleted_oneofs.insert(name);
  }
  compare_oneof_moves(o, u, update);
  std::set<std::string> oneof_names;
  for (const auto& [name, oneof] : o.oneofs) oneof_names.insert(name);
  for (const auto& [name, oneof] : u.oneofs) oneof_names.insert(name);
  for (const std::string& name : oneof_names) {
    Scope scope(path_, name);
    if (u.oneofs.count(name) == 0) add(DiffType::kOneofRemoved);
    if (o.oneofs.count(name) == 0) add(DiffType::kOneofAdded);
  }
  std::set<int> tags;
  for (const auto& [tag, f] : o.by_tag) tags.insert(tag);
  for (const auto& [tag, f] : u.by_tag) tags.insert(tag);
  for (int tag : tags) compare_tag(tag, o, u, deleted_oneofs);
  compare_types(nested_types(original, original_.serialized), nested_types(update, update_.serialized));
  comparing_.pop_back();
}

// Fields of the original that were independent and now share a oneof.
void Differ::compare_oneof_moves(const FieldIndex& original, const FieldIndex& update, const gp::Descriptor& d) {
  for (int i = 0; i < d.real_oneof_decl_count(); ++i) {
    const gp::OneofDescriptor* oneof = d.oneof_decl(i);
    Scope scope(path_, oneof->name());
    std::set<std::string> origins;
    int moved_in = 0;
    for (int j = 0; j < oneof->field_count(); ++j) {
      int tag = oneof->field(j)->number();
      if (auto it = original.tag_to_oneof.find(tag); it != original.tag_to_oneof.end()) {
        origins.insert("oneof:" + it->second);
      } else if (original.by_tag.count(tag) != 0) {
        origins.insert("field:" + std::to_string(tag));
        ++moved_in;
      }
    }
    if (origins.size() > 1) {
      add(moved_in > 1 ? DiffType::kMultipleFieldsMovedToOneof : DiffType::kFieldMovedToExistingOneof);
    }
  }
}

void Differ::compare_tag(int tag, const FieldIndex& o, const FieldIndex& u,
                         const std::set<std::string>& deleted_oneofs) {
  auto of = o.by_tag.find(tag);
  auto uf = u.by_tag.find(tag);
  auto oo = o.tag_to_oneof.find(tag);
  auto uo = u.tag_to_oneof.find(tag);
  const std::string tag_text = std::to_string(tag);
  if (uf == u.by_tag.end()) {
    if (oo != o.tag_to_oneof.end()) {
      if (deleted_oneofs.count(oo->second) != 0) return;
      Scope oneof(path_, oo->second);
      Scope field(path_, tag_text);
      add(DiffType::kOneofFieldRemoved);
    } else {
      Scope field(path_, tag_text);
      add(of->second->is_required() ? DiffType::kRequiredFieldRemoved : DiffType::kFieldRemoved);
    }
  } else if (of == o.by_tag.end()) {
    if (uo != u.tag_to_oneof.end()) {
      Scope oneof(path_, uo->second);
      Scope field(path_, tag_text);
      add(DiffType::kOneofFieldAdded);
    } else {
      Scope field(path_, tag_text);
      add(uf->second->is_required() ? DiffType::kRequiredFieldAdded : DiffType::kFieldAdded);
    }
  } else {
    if (oo != o.tag_to_oneof.end() && uo == u.tag_to_oneof.end()) {
      Scope field(path_, tag_text);
      add(DiffType::kOneofFieldMovedToTopLevel);
    }
    std::optional<Scope> oneof;
    if (uo != u.tag_to_oneof.end()) oneof.emplace(path_, uo->second);
    Scope field(path_, tag_text);
    compare_field(*of->second, *uf->second);
  }
}

void Differ::compare_field(const gp::FieldDescriptor& original, const gp::FieldDescriptor& update) {
  if (original.name() != update.name()) add(DiffType::kFieldNameChanged);
  compare_labels_and_types(original, update, wire_label(original), wire_label(update));
}

void Differ::compare_labels_and_types(const gp::FieldDescriptor& original, const gp::FieldDescriptor& update,
                                      std::optional<Label> original_label, std::optional<Label> update_label) {
  Kind kind = kind_of(original);
  if (kind != kind_of(update)) {
    add(DiffType::kFieldKindChanged);
    return;
  }
  if (kind == Kind::kMap) {
    const gp::Descriptor& o = *original.message_type();
    const gp::Descriptor& u = *update.message_type();
    compare_labels_and_types(*o.map_key(), *u.map_key(), std::nullopt, std::nullopt);
    compare_labels_and_types(*o.map_value(), *u.map_value(), std::nullopt, std::nullopt);
    return;
  }
  if (kind == Kind::kMessage) {
    compare_message_types(*original.message_type(), *update.message_type());
    return;
  }
  ScalarKind scalar = scalar_kind(original);
  if (scalar != scalar_kind(update)) {
    add(DiffType::kFieldScalarKindChanged);
  } else if (original_label && update_label && *original_label != *update_label) {
    add(scalar == ScalarKind::kStringOrBytes ? DiffType::kFieldStringOrBytesLabelChanged
                                             : DiffType::kFieldNumericLabelChanged);
  }
}

void Differ::compare_message_types(const gp::Descriptor& original, const gp::Descriptor& update) {
  std::string name = local_name(original);
  if (name != local_name(update)) {
    add(DiffType::kFieldNamedTypeChanged);
    return;
  }
  std::optional<Ref> o = reference_of(original, original_);
  std::optional<Ref> u = reference_of(update, update_);
  if (o && u && o->subject == u->subject && o->version == u->version) return;
  // Compare into the type, in a context of its own named after it.
  Differ sub(original_, update_);
  sub.comparing_ = comparing_;
  for (size_t start = 0; start <= name.size();) {
    size_t dot = std::min(name.find('.', start), name.size());
    sub.path_.push_back(name.substr(start, dot - start));
    start = dot + 1;
  }
  sub.compare_message(original, update);
  bool compatible = true;
  for (Difference& d : sub.diffs_) {
    compatible = compatible && is_compatible_change(d.type);
    diffs_.push_back(std::move(d));
  }
  if (!compatible) add(DiffType::kFieldNamedTypeChanged);
}

}  // namespace

std::vector<Difference> compare_schemas(const BuiltSchema& original, const BuiltSchema& update) {
  return Differ(original, update).run();
}

}  // namespace skiff::schema::protobuf
