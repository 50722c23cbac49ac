#include "schema/protobuf/protobuf_schema.h"

#include "common/base64.h"
#include "schema/protobuf/proto_diff.h"
#include "schema/protobuf/proto_printer.h"
#include "schema/protobuf/well_known.h"

namespace skiff::schema {

ProtobufSchema::ProtobufSchema(protobuf::BuiltSchema built)
    : built_(std::move(built)), canonical_(protobuf::print_canonical(built_)) {}

std::string ProtobufSchema::normalized() const {
  std::call_once(normalized_once_, [this] { normalized_ = protobuf::print_normalized(built_); });
  return normalized_;
}

std::string ProtobufSchema::serialized() const {
  google::protobuf::FileDescriptorProto proto;
  built_.file->CopyTo(&proto);
  return base64_encode(proto.SerializeAsString());
}

std::vector<std::string> ProtobufSchema::unresolved_names() const {
  std::vector<std::string> names;
  for (const std::string& dependency : built_.raw.dependency()) {
    if (!protobuf::is_well_known(dependency)) names.push_back(dependency);
  }
  return names;
}

std::vector<std::string> ProtobufSchema::incompatibilities(const ParsedSchema& writer) const {
  const auto* previous = dynamic_cast<const ProtobufSchema*>(&writer);
  if (writer.type() != SchemaType::kProtobuf || previous == nullptr) {
    return {"Incompatible because of different schema type"};
  }
  std::vector<std::string> messages;
  for (const protobuf::Difference& d : protobuf::compare_schemas(previous->built_, built_)) {
    if (!protobuf::is_compatible_change(d.type)) messages.push_back(protobuf::describe(d));
  }
  return messages;
}

ParseResult parse_protobuf(const SchemaSource& source) {
  auto built = protobuf::build_schema(source);
  if (!built) return unexpected(ParseError{built.error()});
  return std::unique_ptr<ParsedSchema>(std::make_unique<ProtobufSchema>(std::move(*built)));
}

}  // namespace skiff::schema
