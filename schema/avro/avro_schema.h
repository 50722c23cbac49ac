// Avro schemas for the Schema Registry (in progress).
#pragma once

#include "schema/format/schema_format.h"

namespace skiff::schema {

ParseResult parse_avro(const SchemaSource& source);

}  // namespace skiff::schema
