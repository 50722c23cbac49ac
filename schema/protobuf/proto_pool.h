// Builds a Protobuf schema and the schemas it imports into one
// DescriptorPool, validating them as protoc would: every import is a
// reference the registry resolved (matched by import path = reference
// name) or a built-in file of well_known.h.
//
// Threads: build_schema is pure; a BuiltSchema is immutable afterwards and
// may be read from any thread (its pool has no fallback database).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <map>
#include <memory>
#include <string>

#include "common/expected.h"
#include "schema/format/schema_format.h"
#include "schema/protobuf/proto_spans.h"

namespace skiff::schema::protobuf {

struct BuiltSchema {
  std::unique_ptr<google::protobuf::DescriptorPool> pool;
  google::protobuf::FileDescriptorProto raw;               // the schema as written (proto_text.h)
  const google::protobuf::FileDescriptor* file = nullptr;  // raw, built in pool
  bool serialized = false;                                 // raw came as a base64 FileDescriptorProto
  // Where raw's reserved and extension ranges were written (raw itself
  // keeps no source info).
  SourceSpans spans;
  // The schema's direct references by name (= the imported file's name).
  std::map<std::string, SchemaReference> references;
};

// The error is the message of Confluent's 42201 "Invalid schema" answer.
Expected<BuiltSchema, std::string> build_schema(const SchemaSource& source);

}  // namespace skiff::schema::protobuf
