// Avro binary to JSON (schema/avro/avro_decode.h): every type in Avro's
// JSON encoding, and hostile payloads refused within the limits.
#include "schema/avro/avro_decode.h"

#include <catch2/catch.hpp>
#include <string>

#include "avro_test_util.h"

using namespace skiff::schema::avro_test;
using skiff::schema::AvroSchema;
using skiff::schema::avro::avro_to_json;
using skiff::schema::avro::AvroDecodeLimits;

namespace {

std::string decode(const std::string& schema, const std::string& bytes, AvroDecodeLimits limits = {}) {
  auto parsed = parse(schema);
  REQUIRE(parsed);
  const auto* avro = dynamic_cast<const AvroSchema*>(parsed->get());
  REQUIRE(avro != nullptr);
  auto r = avro_to_json(avro->root(), bytes, limits);
  return r ? r->json : "ERROR: " + r.error();
}

}  // namespace

TEST_CASE("avro decode: every type in Avro's JSON encoding", "[avro]") {
  const std::string schema =
      R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"},)"
      R"({"name":"c","type":["null","long"]},{"name":"d","type":{"type":"array","items":"int"}},)"
      R"({"name":"e","type":{"type":"map","values":"string"}},)"
      R"({"name":"f","type":{"type":"enum","name":"E","namespace":"x","symbols":["A","B"]}},)"
      R"({"name":"g","type":{"type":"fixed","name":"G","size":2}},{"name":"h","type":"double"},)"
      R"({"name":"i","type":"boolean"},{"name":"j","type":"bytes"},{"name":"k","type":["null","x.E"]},)"
      R"({"name":"l","type":"float"},{"name":"m","type":"long"}]})";
  const std::string bytes = std::string("\x02\x04hi\x02\x0a\x04\x02\x04\x00\x02\x02k\x02v\x00\x02", 17) +
                            std::string("\x00\xff", 2) + std::string("\x00\x00\x00\x00\x00\x00\xf8\x3f", 8) +
                            std::string("\x01\x02\x01\x02\x00", 5) + std::string("\x00\x00\xc0\x7f", 4) +
                            std::string("\x01", 1);
  CHECK(decode(schema, bytes) == R"({"a":1,"b":"hi","c":{"long":5},"d":[1,2],"e":{"k":"v"},"f":"B","g":"\u0000)"
                                 "\xc3\xbf"
                                 R"(","h":1.5,"i":true,"j":"\u0001","k":{"x.E":"A"},"l":"NaN","m":-1})");
}

TEST_CASE("avro decode: blocks with byte sizes, strings that are not UTF-8", "[avro]") {
  CHECK(decode(R"({"type":"array","items":"long"})", std::string("\x05\x0c\x02\x04\x06\x00", 6)) == "[1,2,3]");
  CHECK(decode(R"("string")", std::string("\x06\x61\xff\x62", 4)) ==
        "\"a\xef\xbf\xbd"
        "b\"");
}

TEST_CASE("avro decode: hostile payloads are refused within the limits", "[avro]") {
  CHECK(decode(R"("string")", "\x7f") == "ERROR: a negative length at byte 1");
  CHECK(decode(R"("bytes")", "\x80\x01") == "ERROR: the data ending inside a value of 64 bytes at byte 2");
  CHECK(decode(R"("long")", std::string(11, '\xff')) == "ERROR: a malformed varint at byte 10");
  CHECK(decode(R"("int")", "\x80\x80\x80\x80\x10") == "ERROR: an int out of range at byte 5");
  CHECK(decode(R"({"type":"enum","name":"E","symbols":["A"]})", "\x02") ==
        "ERROR: an enum index out of range at byte 1");
  const std::string many_nulls =
      std::string("\xfe\xff\xff\xff\xff\xff\xff\xff\x7f", 9);  // a huge count of zero-byte items
  CHECK(
      decode(R"({"type":"array","items":"null"})", many_nulls, {1000, 100}).rfind("ERROR: JSON longer than 1000", 0) ==
      0);
  const std::string list = R"({"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]})";
  CHECK(decode(list, std::string(300, '\x02')).rfind("ERROR: nesting deeper than 100", 0) == 0);
  CHECK(decode(list, std::string(10, '\x02') + std::string(1, '\x00')).size() > 10);
}
