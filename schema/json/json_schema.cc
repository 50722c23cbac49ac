#include "schema/json/json_schema.h"

namespace skiff::schema {

ParseResult parse_json_schema(const SchemaSource&) { return unexpected(ParseError{"this schema type is not served yet"}); }

}  // namespace skiff::schema
