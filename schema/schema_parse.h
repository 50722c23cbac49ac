// schema::parse: the one entry point from a registered schema's source to
// its ParsedSchema, dispatching on the source's type to the format's parser.
// Pure; any thread.
#pragma once

#include "schema/format/schema_format.h"

namespace skiff::schema {

ParseResult parse(const SchemaSource& source);

}  // namespace skiff::schema
