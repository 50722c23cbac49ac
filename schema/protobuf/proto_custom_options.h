// The custom options (extensions of google.protobuf.*Options) of a
// serialized FileDescriptorProto, as Confluent's ProtobufSchema.toProtoFile
// lists them: Confluent's Meta options (confluent.file_meta, field_meta, ...)
// first, as its toOption(name, Meta) shapes them (doc, params as a list of
// {key, value}, tags, rules), then every other extension not in the
// `confluent.` package, a repeated one as one option per value, a message
// as a map of its set fields.
//
// A serialized file keeps them as unknown fields of its options messages;
// they are read again here against the schema's pool, which knows the
// extensions the file imports.
//
// Threads: pure; the pool is only read.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <vector>

#include "schema/protobuf/proto_options.h"

namespace skiff::schema::protobuf {

std::vector<OptionItem> custom_options(const google::protobuf::Message& options,
                                       const google::protobuf::DescriptorPool& pool);

}  // namespace skiff::schema::protobuf
