#include "schema/protobuf/proto_custom_options.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>

#include <cmath>
#include <memory>
#include <string>

#include "schema/protobuf/proto_numbers.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;
using Kind = OptionValue::Kind;

namespace {

OptionValue scalar(Kind kind, std::string text) { return OptionValue{kind, std::move(text), {}, {}}; }

// Java's Double.toString for the common cases: "1.0", "0.5".
std::string java_double(double value) {
  std::string text = shortest_double(value);
  if (std::isfinite(value) && text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

OptionValue message_map(const gp::Message& message);

// A number field's value (element `index` of a repeated one).
OptionValue number_value(const gp::Message& m, const gp::FieldDescriptor& f, int index) {
  const gp::Reflection& r = *m.GetReflection();
  bool rep = f.is_repeated();
  switch (f.cpp_type()) {
    case gp::FieldDescriptor::CPPTYPE_INT32:
      return scalar(Kind::kNumber, std::to_string(rep ? r.GetRepeatedInt32(m, &f, index) : r.GetInt32(m, &f)));
    case gp::FieldDescriptor::CPPTYPE_INT64:
      return scalar(Kind::kNumber, std::to_string(rep ? r.GetRepeatedInt64(m, &f, index) : r.GetInt64(m, &f)));
    case gp::FieldDescriptor::CPPTYPE_UINT32:
      return scalar(Kind::kNumber, std::to_string(rep ? r.GetRepeatedUInt32(m, &f, index) : r.GetUInt32(m, &f)));
    case gp::FieldDescriptor::CPPTYPE_UINT64:
      return scalar(Kind::kNumber, std::to_string(rep ? r.GetRepeatedUInt64(m, &f, index) : r.GetUInt64(m, &f)));
    case gp::FieldDescriptor::CPPTYPE_DOUBLE:
      return scalar(Kind::kNumber, java_double(rep ? r.GetRepeatedDouble(m, &f, index) : r.GetDouble(m, &f)));
    case gp::FieldDescriptor::CPPTYPE_FLOAT:
      return scalar(Kind::kNumber, java_double(rep ? r.GetRepeatedFloat(m, &f, index) : r.GetFloat(m, &f)));
    default:
      return scalar(Kind::kEnum, "");
  }
}

// One value of a field (element `index` of a repeated one), as
// ProtobufSchema.toOptionValue converts it.
OptionValue field_value(const gp::Message& m, const gp::FieldDescriptor& f, int index) {
  const gp::Reflection& r = *m.GetReflection();
  bool rep = f.is_repeated();
  switch (f.cpp_type()) {
    case gp::FieldDescriptor::CPPTYPE_MESSAGE:
      return message_map(rep ? r.GetRepeatedMessage(m, &f, index) : r.GetMessage(m, &f));
    case gp::FieldDescriptor::CPPTYPE_STRING:
      return scalar(Kind::kString, rep ? r.GetRepeatedString(m, &f, index) : r.GetString(m, &f));
    case gp::FieldDescriptor::CPPTYPE_BOOL:
      return scalar(Kind::kBoolean, (rep ? r.GetRepeatedBool(m, &f, index) : r.GetBool(m, &f)) ? "true" : "false");
    case gp::FieldDescriptor::CPPTYPE_ENUM:
      return scalar(Kind::kEnum, (rep ? r.GetRepeatedEnum(m, &f, index) : r.GetEnum(m, &f))->name());
    default:
      return number_value(m, f, index);
  }
}

OptionValue field_values(const gp::Message& m, const gp::FieldDescriptor& f) {
  if (!f.is_repeated()) return field_value(m, f, -1);
  OptionValue list{Kind::kList, {}, {}, {}};
  for (int i = 0; i < m.GetReflection()->FieldSize(m, &f); ++i) list.list.push_back(field_value(m, f, i));
  return list;
}

// ProtobufSchema.toOptionMap: the set fields, an extension as "[full.name]".
OptionValue message_map(const gp::Message& message) {
  OptionValue map{Kind::kMap, {}, {}, {}};
  std::vector<const gp::FieldDescriptor*> fields;
  message.GetReflection()->ListFields(message, &fields);
  for (const gp::FieldDescriptor* f : fields) {
    std::string key = f->is_extension() ? "[" + f->full_name() + "]" : f->name();
    map.map.push_back(OptionEntry{key, field_values(message, *f)});
  }
  return map;
}

std::string string_field(const gp::Message& m, const char* name) {
  const gp::FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(name);
  return f != nullptr && !f->is_repeated() && f->cpp_type() == gp::FieldDescriptor::CPPTYPE_STRING
             ? m.GetReflection()->GetString(m, f)
             : std::string();
}

std::vector<const gp::Message*> messages_of(const gp::Message& m, const char* name) {
  std::vector<const gp::Message*> out;
  const gp::FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(name);
  if (f == nullptr || !f->is_repeated() || f->cpp_type() != gp::FieldDescriptor::CPPTYPE_MESSAGE) return out;
  for (int i = 0; i < m.GetReflection()->FieldSize(m, f); ++i) {
    out.push_back(&m.GetReflection()->GetRepeatedMessage(m, f, i));
  }
  return out;
}

void add_string(OptionValue& map, const char* key, const std::string& value) {
  if (!value.empty()) map.map.push_back(OptionEntry{key, scalar(Kind::kString, value)});
}

// ProtobufSchema.toOption(name, Meta).
OptionValue meta_map(const gp::Message& meta) {
  OptionValue map{Kind::kMap, {}, {}, {}};
  add_string(map, "doc", string_field(meta, "doc"));
  OptionValue params{Kind::kList, {}, {}, {}};
  for (const gp::Message* entry : messages_of(meta, "params")) {
    std::string key = string_field(*entry, "key");
    OptionValue pair{Kind::kMap, {}, {}, {}};
    OptionEntry k{"key", scalar(Kind::kString, key)};
    OptionEntry v{"value", scalar(Kind::kString, string_field(*entry, "value"))};
    bool value_first = key == "precision" || key == "scale";  // Confluent's order, for compatibility
    pair.map = value_first ? std::vector<OptionEntry>{v, k} : std::vector<OptionEntry>{k, v};
    params.list.push_back(std::move(pair));
  }
  if (!params.list.empty()) map.map.push_back(OptionEntry{"params", std::move(params)});
  const gp::FieldDescriptor* tags = meta.GetDescriptor()->FindFieldByName("tags");
  if (tags != nullptr && tags->is_repeated() && meta.GetReflection()->FieldSize(meta, tags) > 0) {
    map.map.push_back(OptionEntry{"tags", field_values(meta, *tags)});
  }
  OptionValue rules{Kind::kList, {}, {}, {}};
  for (const gp::Message* rule : messages_of(meta, "rules")) {
    OptionValue entry{Kind::kMap, {}, {}, {}};
    for (const char* key : {"name", "doc", "expr", "sql"}) add_string(entry, key, string_field(*rule, key));
    if (!entry.map.empty()) rules.list.push_back(std::move(entry));
  }
  if (!rules.list.empty()) map.map.push_back(OptionEntry{"rules", std::move(rules)});
  return map;
}

}  // namespace

std::vector<OptionItem> custom_options(const gp::Message& options, const gp::DescriptorPool& pool) {
  std::vector<OptionItem> items;
  if (options.GetReflection()->GetUnknownFields(options).empty()) return items;
  const gp::Descriptor* type = pool.FindMessageTypeByName(options.GetDescriptor()->full_name());
  if (type == nullptr) return items;
  gp::DynamicMessageFactory factory(&pool);
  std::unique_ptr<gp::Message> read(factory.GetPrototype(type)->New());
  std::string bytes = options.SerializeAsString();
  gp::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  input.SetExtensionRegistry(&pool, &factory);
  if (!read->MergePartialFromCodedStream(&input)) return items;
  std::vector<const gp::FieldDescriptor*> fields;
  read->GetReflection()->ListFields(*read, &fields);
  std::vector<OptionItem> others;
  for (const gp::FieldDescriptor* f : fields) {
    if (!f->is_extension()) continue;
    const bool confluent = f->full_name().rfind("confluent.", 0) == 0;
    if (confluent && f->message_type() != nullptr && f->message_type()->full_name() == "confluent.Meta" &&
        !f->is_repeated()) {
      OptionValue meta = meta_map(read->GetReflection()->GetMessage(*read, f));
      if (!meta.map.empty()) items.push_back(OptionItem{f->full_name(), true, {}, std::move(meta)});
      continue;
    }
    if (confluent) continue;
    int count = f->is_repeated() ? read->GetReflection()->FieldSize(*read, f) : 1;
    for (int i = 0; i < count; ++i) {
      others.push_back(OptionItem{f->full_name(), true, {}, field_value(*read, *f, f->is_repeated() ? i : -1)});
    }
  }
  items.insert(items.end(), others.begin(), others.end());
  return items;
}

}  // namespace skiff::schema::protobuf
