// The imports a Protobuf schema may name without a reference, as
// Confluent's ProtobufSchema.KNOWN_DEPENDENCIES lists them: Google's
// well-known types (google/protobuf/*.proto, copied from the descriptors
// compiled into libprotobuf), Confluent's own (confluent/meta.proto,
// confluent/type/decimal.proto, confluent/type/variant.proto) and the
// common google/type/*.proto files that Confluent builds in.
//
// Threads: well_known_pool() is built once, on first use (thread-safe
// static initialization), and only read afterwards; a const DescriptorPool
// without a fallback database may be read from any thread.
#pragma once

#include <google/protobuf/descriptor.h>

#include <string_view>

namespace skiff::schema::protobuf {

// Whether `import_path` is one of the built-in files.
bool is_well_known(std::string_view import_path);

// The pool holding every built-in file; a schema's pool has it as underlay.
const google::protobuf::DescriptorPool& well_known_pool();

}  // namespace skiff::schema::protobuf
