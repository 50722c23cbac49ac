#include "schema/format/schema_format.h"

namespace skiff::schema {

std::string_view type_name(SchemaType t) {
  switch (t) {
    case SchemaType::kAvro:
      return "AVRO";
    case SchemaType::kProtobuf:
      return "PROTOBUF";
    case SchemaType::kJson:
      return "JSON";
  }
  return "AVRO";
}

std::optional<SchemaType> parse_type_name(std::string_view name) {
  if (name == "AVRO") return SchemaType::kAvro;
  if (name == "PROTOBUF") return SchemaType::kProtobuf;
  if (name == "JSON") return SchemaType::kJson;
  return std::nullopt;
}

}  // namespace skiff::schema
