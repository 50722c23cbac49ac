// Confluent's normalize() (AvroSchemaUtils.toNormalizedString, re-read and
// printed): properties and aliases sorted, valid logical types' attributes
// first, defaults converted through their type, references by name.
#include <catch2/catch.hpp>
#include <string>

#include "avro_test_util.h"

using namespace skiff::schema::avro_test;

TEST_CASE("avro normalize: properties, aliases and object members sorted", "[avro]") {
  const std::string in =
      R"({"type":"record","name":"R","namespace":"n","doc":"","aliases":["z","a"],"zz":1,"aa":{"b":1,"a":2},)"
      R"("fields":[{"name":"f","type":"double","default":1,"b":2,"a":1,"aliases":["y","x"],"doc":""},)"
      R"({"name":"g","type":{"type":"bytes","x":1,"scale":0,"precision":4,"logicalType":"decimal"}}]})";
  CHECK(normalized(in) ==
        R"({"type":"record","name":"R","namespace":"n","fields":[{"name":"f","type":"double","doc":"","default":1.0,)"
        R"("aliases":["x","y"],"a":1,"b":2},{"name":"g","type":{"type":"bytes","logicalType":"decimal","precision":4,)"
        R"("scale":0,"x":1}}],"aa":{"a":2,"b":1},"zz":1,"aliases":["a","z"]})");
  // The canonical text keeps the order as written.
  CHECK(canonical(in).find(R"("zz":1,"aa":{"b":1,"a":2})") != std::string::npos);
}

TEST_CASE("avro normalize: defaults converted through their type", "[avro]") {
  CHECK(
      normalized(
          R"({"type":"record","name":"R","fields":[{"name":"f","type":"float","default":1.1},)"
          R"({"name":"b","type":"bytes","default":"\u00ff\u0100"},{"name":"u","type":["null","long"],"default":null},)"
          R"({"name":"m","type":{"type":"map","values":"double"},"default":{"y":2,"x":1}}]})") ==
      R"({"type":"record","name":"R","fields":[{"name":"f","type":"float","default":1.1},)"
      "{\"name\":\"b\",\"type\":\"bytes\",\"default\":\"\xc3\xbf?\"},"
      R"({"name":"u","type":["null","long"],"default":null},)"
      R"({"name":"m","type":{"type":"map","values":"double"},"default":{"x":1.0,"y":2.0}}]})");
}

TEST_CASE("avro normalize: an error is a record, orders and names written once, references by name", "[avro]") {
  CHECK(normalized(R"({"type":"error","name":"E","fields":[{"name":"n","type":"long","order":"ignore"},)"
                   R"({"name":"s","type":{"type":"enum","name":"x.S","symbols":["A","B"],"default":"B","doc":"d"}},)"
                   R"({"name":"t","type":"x.S"}]})") ==
        R"({"type":"record","name":"E","fields":[{"name":"n","type":"long","order":"ignore"},)"
        R"({"name":"s","type":{"type":"enum","name":"S","namespace":"x","doc":"d","symbols":["A","B"],"default":"B"}},)"
        R"({"name":"t","type":"x.S"}]})");
  const std::string ref = R"({"type":"fixed","name":"Id","namespace":"k","size":16,"logicalType":"uuid"})";
  CHECK(normalized(R"({"type":"record","name":"R","namespace":"k","fields":[{"name":"id","type":"Id"}]})", {ref}) ==
        R"({"type":"record","name":"R","namespace":"k","fields":[{"name":"id","type":"Id"}]})");
}
