#include "schema/avro/avro_schema.h"

namespace skiff::schema {

ParseResult parse_avro(const SchemaSource&) { return unexpected(ParseError{"this schema type is not served yet"}); }

}  // namespace skiff::schema
