// Protobuf schemas of the Schema Registry, as Confluent's ProtobufSchema
// (protobuf-provider) serves them: `.proto` text (proto2, proto3) or a
// base64-encoded serialized FileDescriptorProto, parsed and validated with
// libprotobuf/libprotoc; imports resolved as references (import path =
// reference name) or as built-in well-known types (well_known.h);
// canonical and normalized text in Confluent's layout (proto_printer.h);
// compatibility as Confluent's protobuf diff decides it (proto_diff.h).
//
// Threads: parse_protobuf is pure; a ProtobufSchema is immutable (its
// normalized text is printed once, on first use, under std::call_once, and
// its message factory made once the same way) and may be read from any
// thread.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "schema/format/schema_format.h"
#include "schema/protobuf/proto_pool.h"

namespace skiff::schema {

// A ParseError says why, in Confluent's words where it has them
// ("Could not parse Protobuf - 3:7: Expected \";\".").
ParseResult parse_protobuf(const SchemaSource& source);

class ProtobufSchema final : public ParsedSchema {
 public:
  explicit ProtobufSchema(protobuf::BuiltSchema built);

  SchemaType type() const override { return SchemaType::kProtobuf; }
  std::string canonical() const override { return canonical_; }
  std::string normalized() const override;  // printed on first use
  // The imports that are not well-known types: each must be a reference.
  std::vector<std::string> unresolved_names() const override;
  std::vector<std::string> incompatibilities(const ParsedSchema& writer) const override;
  // protobuf_decode.h's decode_protobuf.
  Expected<DecodedValue, std::string> decode(std::string_view payload) const override;
  // protobuf_encode.h's encode_protobuf.
  Expected<std::string, std::string> encode(const skiff::JsonValue& json,
                                            std::string_view message_name = {}) const override;

  // Confluent's formattedString("serialized"), what GET
  // /schemas/ids/{id}?format=serialized answers and Confluent's Python
  // deserializer asks for: the built FileDescriptorProto (type names fully
  // qualified), serialized and base64-encoded.
  std::string serialized() const;
  // "serialized": serialized(); any other format the canonical text.
  std::string formatted(std::string_view format) const override {
    return format == "serialized" ? serialized() : canonical();
  }

  // The schema built (its pool holds the referenced files too).
  const google::protobuf::FileDescriptor& file() const { return *built_.file; }
  // The schema as written (proto_text.h).
  const google::protobuf::FileDescriptorProto& raw() const { return built_.raw; }
  const protobuf::BuiltSchema& built() const { return built_; }
  // A new, empty message of `type` (a message of this schema's pool), from
  // one DynamicMessageFactory kept for the schema (made on first use;
  // libprotobuf's factory locks, so any thread may ask).
  std::unique_ptr<google::protobuf::Message> new_message(const google::protobuf::Descriptor& type) const;

 private:
  protobuf::BuiltSchema built_;
  std::string canonical_;
  mutable std::once_flag normalized_once_;
  void make_factory() const;
  mutable std::once_flag factory_once_;
  mutable std::unique_ptr<google::protobuf::DynamicMessageFactory> factory_;
  mutable std::string normalized_;
};

}  // namespace skiff::schema
