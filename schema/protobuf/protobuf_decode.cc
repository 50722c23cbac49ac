#include "schema/protobuf/protobuf_decode.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/json_util.h>

#include <memory>

#include "common/varint.h"

namespace skiff::schema::protobuf {

namespace gp = google::protobuf;

namespace {

constexpr int32_t kMaxIndexes = 64;

Expected<std::vector<int32_t>, std::string> read_indexes(const uint8_t*& p, const uint8_t* end) {
  int32_t count = 0;
  if (!read_varint32(p, end, count)) return unexpected(std::string("truncated message indexes"));
  if (count == 0) return std::vector<int32_t>{0};
  if (count < 0 || count > kMaxIndexes) return unexpected("invalid message index count " + std::to_string(count));
  std::vector<int32_t> indexes;
  for (int32_t i = 0; i < count; ++i) {
    int32_t index = 0;
    if (!read_varint32(p, end, index)) return unexpected(std::string("truncated message indexes"));
    if (index < 0) return unexpected("invalid message index " + std::to_string(index));
    indexes.push_back(index);
  }
  return indexes;
}

// The index-th message Confluent's schema lists in a scope
// (ProtobufSchema.toMessageName): no groups, and no map entries but in a
// schema registered as a serialized descriptor, whose messages they are.
const gp::Descriptor* nth_message(const gp::Descriptor* parent, const gp::FileDescriptor& file, int32_t index,
                                  bool map_entries) {
  int count = parent != nullptr ? parent->nested_type_count() : file.message_type_count();
  for (int i = 0, seen = 0; i < count; ++i) {
    const gp::Descriptor* d = parent != nullptr ? parent->nested_type(i) : file.message_type(i);
    if (d->options().map_entry() && !map_entries) continue;
    bool group = false;
    for (int f = 0; parent != nullptr && f < parent->field_count(); ++f) {
      group = group ||
              (parent->field(f)->type() == gp::FieldDescriptor::TYPE_GROUP && parent->field(f)->message_type() == d);
    }
    if (group) continue;
    if (seen++ == index) return d;
  }
  return nullptr;
}

}  // namespace

Expected<DecodedMessage, std::string> decode_protobuf(const ProtobufSchema& schema, std::string_view payload,
                                                      size_t max_json_bytes) {
  if (payload.size() > kMaxDecodeInput) return unexpected(std::string("the value is too large to decode"));
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const uint8_t* end = p + payload.size();
  auto indexes = read_indexes(p, end);
  if (!indexes) return unexpected(indexes.error());
  const gp::Descriptor* type = nullptr;
  for (int32_t index : *indexes) {
    type = nth_message(type, schema.file(), index, schema.built().serialized);
    if (type == nullptr) return unexpected(std::string("Invalid message indexes: no message at that index"));
  }
  gp::DynamicMessageFactory factory(schema.file().pool());
  std::unique_ptr<gp::Message> message(factory.GetPrototype(type)->New());
  gp::io::CodedInputStream input(p, static_cast<int>(end - p));
  if (!message->MergePartialFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return unexpected("the value is not a valid " + type->full_name());
  }
  DecodedMessage decoded{std::move(*indexes), type->full_name(), {}};
  gp::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  gp::util::Status status = gp::util::MessageToJsonString(*message, &decoded.json, options);
  if (!status.ok())
    return unexpected("cannot print " + type->full_name() + " as JSON: " + std::string(status.message()));
  if (decoded.json.size() > max_json_bytes) return unexpected(std::string("the decoded value is too large to show"));
  return decoded;
}

}  // namespace skiff::schema::protobuf

namespace skiff::schema {

Expected<DecodedValue, std::string> ProtobufSchema::decode(std::string_view payload) const {
  auto decoded = protobuf::decode_protobuf(*this, payload);
  if (!decoded) return unexpected(std::move(decoded.error()));
  return DecodedValue{std::move(decoded->json), std::move(decoded->message_name)};
}

}  // namespace skiff::schema
