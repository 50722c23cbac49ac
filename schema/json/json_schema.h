// JSON Schema documents for the Schema Registry (in progress).
#pragma once

#include "schema/format/schema_format.h"

namespace skiff::schema {

ParseResult parse_json_schema(const SchemaSource& source);

}  // namespace skiff::schema
