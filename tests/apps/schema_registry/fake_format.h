// A small schema format for the Schema Registry's core tests, until the
// real formats (schema/avro, json, protobuf) land: the text is fields
// "name:type" or "name:type=default" separated by blanks, and "ref:Name"
// tokens that need a resolved reference named Name. Canonical text: the
// tokens joined by one blank; normalized: sorted. The reader (this) can read
// the writer unless a field of its own without default is missing in the
// writer (Avro's READER_FIELD_MISSING_DEFAULT_VALUE) or a shared field's
// type differs (TYPE_MISMATCH), with Avro-like lines naming the reader "the
// new schema" (Confluent's "%s" for the roles). A token without ':' is a parse error. Any thread.
#pragma once

#include "apps/schema_registry/registry_service.h"

namespace skiff::schemareg::testing {

schema::ParseResult parse_fake(const schema::SchemaSource& source);

// How many times parse_fake ran (to see what is cached or skipped).
int fake_parse_count();

}  // namespace skiff::schemareg::testing
