// normalize_options() of proto_options.h: Confluent's
// FormatContext.filterOptions with normalize on.
#include <algorithm>
#include <array>

#include "schema/protobuf/proto_options.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;
using Kind = OptionValue::Kind;

namespace {

bool same_value(const OptionValue& a, const OptionValue& b) {
  if (a.kind != b.kind || a.text != b.text || a.map.size() != b.map.size() || a.list.size() != b.list.size()) {
    return false;
  }
  for (size_t i = 0; i < a.map.size(); ++i) {
    if (a.map[i].key != b.map[i].key || !same_value(a.map[i].value, b.map[i].value)) return false;
  }
  for (size_t i = 0; i < a.list.size(); ++i) {
    if (!same_value(a.list[i], b.list[i])) return false;
  }
  return true;
}

// ProtobufSchema.transform: "(a).b.c = v" becomes "(a) = {b: {c: v}}".
void transform(OptionItem& option) {
  for (auto it = option.path.rbegin(); it != option.path.rend(); ++it) {
    std::string key = *it;
    if (key.size() > 2 && key.front() == '(') key = key.substr(1, key.size() - 2);
    OptionValue map{Kind::kMap, {}, {}, {}};
    map.map.push_back(OptionEntry{key, std::move(option.value)});
    option.value = std::move(map);
  }
  option.path.clear();
}

const gp::FieldDescriptor* field_named(const gp::Descriptor* type, const std::string& name) {
  return type == nullptr ? nullptr : type->FindFieldByName(name);
}

OptionValue merge_maps(const gp::Descriptor* type, OptionValue existing, const OptionValue& replacement);

// FormatContext.mergeOptionValues.
OptionValue merge_values(const gp::FieldDescriptor* field, OptionValue v1, const OptionValue& v2) {
  bool singular = field != nullptr && !field->is_repeated();
  if (singular && v1.kind == Kind::kMap && v2.kind == Kind::kMap && field->message_type() != nullptr) {
    return merge_maps(field->message_type(), std::move(v1), v2);
  }
  if (singular) return v2;
  OptionValue list{Kind::kList, {}, {}, {}};
  auto add = [&](const OptionValue& v) {
    bool seen = std::any_of(list.list.begin(), list.list.end(), [&](const OptionValue& x) { return same_value(x, v); });
    if (!seen) list.list.push_back(v);
  };
  for (const OptionValue* v : std::array<const OptionValue*, 2>{&v1, &v2}) {
    if (v->kind == Kind::kList) {
      for (const OptionValue& item : v->list) add(item);
    } else {
      add(*v);
    }
  }
  return list;
}

OptionValue merge_maps(const gp::Descriptor* type, OptionValue existing, const OptionValue& replacement) {
  for (const OptionEntry& entry : replacement.map) {
    auto it = std::find_if(existing.map.begin(), existing.map.end(),
                           [&entry](const OptionEntry& e) { return e.key == entry.key; });
    if (it == existing.map.end()) {
      existing.map.push_back(entry);
    } else {
      it->value = merge_values(field_named(type, entry.key), std::move(it->value), entry.value);
    }
  }
  return existing;
}

}  // namespace

std::vector<OptionItem> normalize_options(std::vector<OptionItem> options, const ExtensionResolver& resolve) {
  std::vector<const gp::FieldDescriptor*> extensions;
  for (OptionItem& option : options) {
    const gp::FieldDescriptor* extension = option.parenthesized ? resolve(option.name) : nullptr;
    if (extension != nullptr) {
      option.name = extension->full_name();
      transform(option);
    }
  }
  std::stable_sort(options.begin(), options.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::vector<OptionItem> out;
  for (size_t i = 0; i < options.size();) {
    size_t end = i;
    while (end < options.size() && options[end].name == options[i].name) ++end;
    const gp::FieldDescriptor* extension = options[i].parenthesized ? resolve(options[i].name) : nullptr;
    if (extension == nullptr || extension->is_repeated()) {
      for (; i < end; ++i) out.push_back(std::move(options[i]));
      continue;
    }
    OptionItem merged = std::move(options[i]);
    for (++i; i < end; ++i) {
      if (merged.value.kind == Kind::kMap && options[i].value.kind == Kind::kMap) {
        merged.value = merge_maps(extension->message_type(), std::move(merged.value), options[i].value);
      } else {
        merged = std::move(options[i]);
      }
    }
    out.push_back(std::move(merged));
  }
  return out;
}

}  // namespace skiff::schema::protobuf
