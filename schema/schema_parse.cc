#include "schema/schema_parse.h"

#include "schema/avro/avro_schema.h"
#include "schema/json/json_schema.h"
#include "schema/protobuf/protobuf_schema.h"

namespace skiff::schema {

ParseResult parse(const SchemaSource& source) {
  switch (source.type) {
    case SchemaType::kAvro:
      return parse_avro(source);
    case SchemaType::kJson:
      return parse_json_schema(source);
    case SchemaType::kProtobuf:
      return parse_protobuf(source);
  }
  return unexpected(ParseError{"unknown schema type"});
}

}  // namespace skiff::schema
