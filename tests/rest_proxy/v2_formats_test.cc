#include "apps/rest_proxy/v2_formats.h"

#include <catch2/catch.hpp>

#include "apps/rest_proxy/rest_errors.h"
#include "common/json_writer.h"

namespace skiff::restproxy {
namespace {

// A schema whose payload is the JSON text reversed, so framing is visible.
class ReversingSchema : public schema::ParsedSchema {
 public:
  schema::SchemaType type() const override { return schema::SchemaType::kAvro; }
  std::string canonical() const override { return "\"string\""; }
  std::string normalized() const override { return canonical(); }
  Expected<schema::DecodedValue, std::string> decode(std::string_view payload) const override {
    return schema::DecodedValue{std::string(payload.rbegin(), payload.rend()), ""};
  }
  Expected<std::string, std::string> encode(const JsonValue& json, std::string_view) const override {
    if (json.kind != JsonValue::Kind::kString) return unexpected(std::string("not a string"));
    const std::string text = skiff::compact_json(json);
    return std::string(text.rbegin(), text.rend());
  }
  std::vector<std::string> incompatibilities(const ParsedSchema&) const override { return {}; }
};

class OneSchemaFormats : public EmbeddedFormats {
 public:
  SchemaHandle by_id(int32_t id) override {
    ++lookups;
    if (id != 7) throw RestError(422, 42207, "Error serializing message. no such id");
    return {7, std::make_shared<ReversingSchema>()};
  }
  SchemaHandle register_schema(const std::string&, schema::SchemaType, const std::string&) override { return by_id(7); }
  SchemaHandle by_subject(const std::string&, int) override { return by_id(7); }
  int lookups = 0;
};

JsonValue json_of(const std::string& text) { return *parse_json(text); }

int code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const RestError& e) {
    return e.error_code;
  }
  return 0;
}

}  // namespace

TEST_CASE("v2 formats: content types name the embedded format", "[rest_proxy]") {
  CHECK(format_of_content_type("application/vnd.kafka.binary.v2+json") == EmbeddedFormat::kBinary);
  CHECK(format_of_content_type("application/vnd.kafka.json.v2+json; charset=utf-8") == EmbeddedFormat::kJson);
  CHECK(format_of_content_type("application/vnd.kafka.avro.v2+json") == EmbeddedFormat::kAvro);
  CHECK(format_of_content_type("application/vnd.kafka.jsonschema.v2+json") == EmbeddedFormat::kJsonSchema);
  CHECK(format_of_content_type("application/vnd.kafka.protobuf.v2+json") == EmbeddedFormat::kProtobuf);
  CHECK(format_of_content_type("application/vnd.kafka.v2+json") == EmbeddedFormat::kBinary);
  CHECK_FALSE(format_of_content_type("application/vnd.kafka.xml.v2+json").has_value());
  CHECK_FALSE(format_of_content_type("text/plain").has_value());
  CHECK(content_type_of(EmbeddedFormat::kProtobuf) == "application/vnd.kafka.protobuf.v2+json");
  // GET .../records asked with its format's type is answerable (not 406).
  CHECK(negotiate_v2("application/vnd.kafka.binary.v2+json") == std::string(kV2Json));
  CHECK(negotiate_v2("application/vnd.kafka.avro.v2+json;q=0.5") == std::string(kV2Json));
}

TEST_CASE("v2 formats: binary is base64 both ways, json is the compact text", "[rest_proxy]") {
  CHECK(encode_embedded(EmbeddedFormat::kBinary, json_of("\"aGk=\""), nullptr) == "hi");
  CHECK_FALSE(encode_embedded(EmbeddedFormat::kBinary, json_of("null"), nullptr).has_value());
  CHECK(code_of([] { encode_embedded(EmbeddedFormat::kBinary, json_of("12"), nullptr); }) == 42203);
  CHECK(code_of([] { encode_embedded(EmbeddedFormat::kBinary, json_of("\"!!\""), nullptr); }) == 42203);
  CHECK(encode_embedded(EmbeddedFormat::kJson, json_of("{ \"a\" : [1, 2.50, true, null] }"), nullptr) ==
        "{\"a\":[1,2.50,true,null]}");
  EmbeddedDecoder binary(EmbeddedFormat::kBinary, nullptr);
  CHECK(binary.decode(std::string("hi")) == "\"aGk=\"");
  CHECK(binary.decode(std::nullopt) == "null");
  EmbeddedDecoder json(EmbeddedFormat::kJson, nullptr);
  CHECK(json.decode(std::string("{\"a\":1}")) == "{\"a\":1}");
}

TEST_CASE("v2 formats: schema formats frame the payload with magic 0 and the id", "[rest_proxy]") {
  OneSchemaFormats formats;
  const SchemaHandle h = formats.by_id(7);
  const auto bytes = encode_embedded(EmbeddedFormat::kAvro, json_of("\"ab\""), &h);
  REQUIRE(bytes);
  CHECK(*bytes == std::string("\0\0\0\0\x07\"ba\"", 9));
  CHECK(code_of([&] { encode_embedded(EmbeddedFormat::kAvro, json_of("5"), &h); }) == 42207);
  CHECK(code_of([] { encode_embedded(EmbeddedFormat::kAvro, json_of("\"x\""), nullptr); }) == 42207);

  EmbeddedDecoder decoder(EmbeddedFormat::kAvro, &formats);
  formats.lookups = 0;
  CHECK(decoder.decode(*bytes) == "\"ab\"");
  CHECK(decoder.decode(*bytes) == "\"ab\"");
  CHECK(formats.lookups == 1);  // cached by id
  CHECK(code_of([&] { decoder.decode(std::string("\x01xxxx", 5)); }) == 42207);
  CHECK(code_of([&] { decoder.decode(std::string("\0\0\0\0\x08x", 6)); }) == 42207);
  EmbeddedDecoder no_registry(EmbeddedFormat::kProtobuf, nullptr);
  CHECK(code_of([&] { no_registry.decode(*bytes); }) == 42207);
}

}  // namespace skiff::restproxy
