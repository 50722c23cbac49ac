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

std::string fill_roles(std::string_view line, std::string_view reader, std::string_view writer) {
  std::string out;
  out.reserve(line.size() + reader.size() + writer.size());
  int filled = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    if (line[i] == '%' && next == 's' && filled < 2) {
      out += filled++ == 0 ? reader : writer;
      ++i;
    } else if (line[i] == '%' && next == '%') {
      out += '%';
      ++i;
    } else {
      out += line[i];
    }
  }
  return out;
}

}  // namespace skiff::schema
