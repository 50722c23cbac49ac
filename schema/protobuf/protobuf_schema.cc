#include "schema/protobuf/protobuf_schema.h"

namespace skiff::schema {

ParseResult parse_protobuf(const SchemaSource&) { return unexpected(ParseError{"this schema type is not served yet"}); }

}  // namespace skiff::schema
