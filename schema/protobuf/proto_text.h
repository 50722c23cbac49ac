// Turns a registered Protobuf schema text into an unbuilt
// google::protobuf::FileDescriptorProto, as Confluent's ProtobufSchema
// reads it: `.proto` text (proto2 or proto3) through libprotoc's Parser,
// or, when that fails, a base64-encoded serialized FileDescriptorProto.
//
// The result is the file as written: type names unresolved, options kept as
// uninterpreted options in their order (the printer of proto_printer.h
// prints them back), maps as libprotoc's synthetic map-entry messages.
// Building and validating it is proto_pool.h's.
//
// Hostile text costs linear time and bounded stack: the text is bounded in
// size and its brace nesting is checked before libprotoc recurses over it;
// libprotoc's log output is silenced while it runs.
//
// Threads: pure functions, callable from any thread.
#pragma once

#include <google/protobuf/descriptor.pb.h>

#include <string>
#include <string_view>

#include "common/expected.h"

namespace skiff::schema::protobuf {

inline constexpr size_t kMaxSchemaBytes = 4 * 1024 * 1024;
inline constexpr int kMaxNesting = 64;

// Parses `text` as a .proto file named `file_name`. The error is Confluent's
// wording, "Could not parse Protobuf - <why>", where <why> lists libprotoc's
// errors as "line:column: message" (one-based), at most ten of them.
// `serialized`, when given, is set to whether the text was a base64
// FileDescriptorProto.
Expected<google::protobuf::FileDescriptorProto, std::string> parse_proto_text(std::string_view text,
                                                                              const std::string& file_name,
                                                                              bool* serialized = nullptr);

// The deepest brace nesting of `text`, outside strings and comments.
int brace_depth(std::string_view text);

}  // namespace skiff::schema::protobuf
