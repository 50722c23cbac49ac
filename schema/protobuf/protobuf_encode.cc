#include "schema/protobuf/protobuf_encode.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>

#include <memory>

#include "common/json_writer.h"
#include "common/varint.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;

namespace {

bool is_group_of(const gp::Descriptor* parent, const gp::Descriptor* d) {
  for (int f = 0; parent != nullptr && f < parent->field_count(); ++f) {
    if (parent->field(f)->type() == gp::FieldDescriptor::TYPE_GROUP && parent->field(f)->message_type() == d)
      return true;
  }
  return false;
}

// The place of `d` among the messages Confluent lists in its scope.
int32_t listed_index(const gp::Descriptor& d, bool map_entries) {
  const gp::Descriptor* parent = d.containing_type();
  const int count = parent != nullptr ? parent->nested_type_count() : d.file()->message_type_count();
  int32_t seen = 0;
  for (int i = 0; i < count; ++i) {
    const gp::Descriptor* sibling = parent != nullptr ? parent->nested_type(i) : d.file()->message_type(i);
    if (sibling == &d) break;
    if ((sibling->options().map_entry() && !map_entries) || is_group_of(parent, sibling)) continue;
    ++seen;
  }
  return seen;
}

const gp::FieldDescriptor* field_named(const gp::Descriptor& d, const std::string& name) {
  if (const gp::FieldDescriptor* f = d.FindFieldByName(name)) return f;
  for (int i = 0; i < d.field_count(); ++i)
    if (d.field(i)->json_name() == name) return d.field(i);
  return nullptr;
}

bool is_plain_message(const gp::FieldDescriptor& f) {
  return f.cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE &&
         f.message_type()->file()->package() != "google.protobuf";
}

// What Java's JsonFormat insists on and libprotobuf's parser lets pass: a
// repeated field's value is an array, a map's an object (or null). The
// rest (names, values, nesting past 100) the parser checks.
std::string check_shapes(const gp::Descriptor& d, const JsonValue& v, const std::string& path, int depth) {
  if (v.kind != JsonValue::Kind::kObject || depth > 100) return {};
  for (const JsonMember& m : v.members) {
    const gp::FieldDescriptor* f = field_named(d, m.name);
    if (f == nullptr || m.value.kind == JsonValue::Kind::kNull) continue;
    const std::string at = path.empty() ? m.name : path + "." + m.name;
    std::string e;
    if (f->is_map()) {
      if (m.value.kind != JsonValue::Kind::kObject)
        return "(" + at + "): expected an object for map field " + f->name();
      const gp::FieldDescriptor* value = f->message_type()->map_value();
      for (const JsonMember& entry : m.value.members) {
        if (e.empty() && is_plain_message(*value))
          e = check_shapes(*value->message_type(), entry.value, at + "[\"" + entry.name + "\"]", depth + 1);
      }
    } else if (f->is_repeated()) {
      if (m.value.kind != JsonValue::Kind::kArray)
        return "(" + at + "): expected an array for repeated field " + f->name();
      for (size_t i = 0; e.empty() && is_plain_message(*f) && i < m.value.array.size(); ++i)
        e = check_shapes(*f->message_type(), m.value.array[i], at + "[" + std::to_string(i) + "]", depth + 1);
    } else if (is_plain_message(*f)) {
      e = check_shapes(*f->message_type(), m.value, at, depth + 1);
    }
    if (!e.empty()) return e;
  }
  return {};
}

const gp::Descriptor* find_message(const ProtobufSchema& schema, std::string_view name) {
  const gp::FileDescriptor& file = schema.file();
  if (name.empty()) return file.message_type_count() > 0 ? file.message_type(0) : nullptr;
  if (name.front() == '.') name.remove_prefix(1);
  const gp::Descriptor* d = file.pool()->FindMessageTypeByName(std::string(name));
  if (d == nullptr && !file.package().empty())
    d = file.pool()->FindMessageTypeByName(file.package() + "." + std::string(name));
  return d != nullptr && d->file() == &file ? d : nullptr;
}

}  // namespace

std::vector<int32_t> message_indexes(const gp::Descriptor& type, bool map_entries) {
  std::vector<int32_t> indexes;
  for (const gp::Descriptor* d = &type; d != nullptr; d = d->containing_type())
    indexes.insert(indexes.begin(), listed_index(*d, map_entries));
  return indexes;
}

std::string write_message_indexes(const std::vector<int32_t>& indexes) {
  std::string out;
  auto put = [&out](int32_t v) {
    uint8_t buf[kMaxVarint64Bytes];
    out.append(reinterpret_cast<const char*>(buf), put_uvarint(buf, zigzag_encode32(v)));
  };
  if (indexes.size() == 1 && indexes[0] == 0) {
    put(0);
    return out;
  }
  put(static_cast<int32_t>(indexes.size()));
  for (int32_t i : indexes) put(i);
  return out;
}

Expected<std::string, std::string> encode_protobuf(const ProtobufSchema& schema, const JsonValue& json,
                                                   std::string_view message_name) {
  const gp::Descriptor* type = find_message(schema, message_name);
  if (type == nullptr) {
    return unexpected(message_name.empty() ? std::string("the schema has no message")
                                           : "the schema has no message " + std::string(message_name));
  }
  if (json.kind != JsonValue::Kind::kObject)
    return unexpected("expected a JSON object for message " + type->full_name());
  if (std::string e = check_shapes(*type, json, "", 0); !e.empty())
    return unexpected("invalid " + type->full_name() + ": " + e);
  std::unique_ptr<gp::Message> message = schema.new_message(*type);
  gp::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = gp::util::JsonStringToMessage(compact_json(json), message.get(), options);
  if (!status.ok()) return unexpected("invalid " + type->full_name() + ": " + std::string(status.message()));
  if (!message->IsInitialized())
    return unexpected("invalid " + type->full_name() + ": missing required fields " +
                      message->InitializationErrorString());
  std::string out = write_message_indexes(message_indexes(*type, schema.built().serialized));
  {
    gp::io::StringOutputStream stream(&out);
    gp::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!message->SerializeToCodedStream(&coded)) return unexpected("cannot serialize " + type->full_name());
  }
  return out;
}

}  // namespace skiff::schema::protobuf

namespace skiff::schema {

std::unique_ptr<google::protobuf::Message> ProtobufSchema::new_message(const google::protobuf::Descriptor& type) const {
  make_factory();
  return std::unique_ptr<google::protobuf::Message>(factory_->GetPrototype(&type)->New());
}

void ProtobufSchema::make_factory() const {
  std::call_once(factory_once_,
                 [this] { factory_ = std::make_unique<google::protobuf::DynamicMessageFactory>(built_.file->pool()); });
}

Expected<std::string, std::string> ProtobufSchema::encode(const skiff::JsonValue& json,
                                                          std::string_view message_name) const {
  return protobuf::encode_protobuf(*this, json, message_name);
}

}  // namespace skiff::schema
