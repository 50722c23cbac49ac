// The canonical text (Schema.toString() of Avro Java, what Confluent
// stores): numbers as Jackson writes the nodes it read, namespaces written
// only where they change, named types once, properties in order.
#include <catch2/catch.hpp>
#include <string>

#include "avro_test_util.h"
#include "schema/avro/avro_json.h"

using namespace skiff::schema::avro_test;
using skiff::schema::avro::java_double;
using skiff::schema::avro::java_float;

TEST_CASE("avro canonical: Java's Double.toString and Float.toString", "[avro]") {
  CHECK(java_double(1000) == "1000.0");
  CHECK(java_double(1e7) == "1.0E7");
  CHECK(java_double(9999999) == "9999999.0");
  CHECK(java_double(0.001) == "0.001");
  CHECK(java_double(0.0001) == "1.0E-4");
  CHECK(java_double(-0.0) == "-0.0");
  CHECK(java_double(123456789.5) == "1.234567895E8");
  CHECK(java_double(0.1) == "0.1");
  CHECK(java_double(1.7976931348623157e308) == "1.7976931348623157E308");
  CHECK(java_double(4.9e-324) == "4.9E-324");
  CHECK(java_double(1e23) == "1.0E23");
  CHECK(java_float(16777216.0f) == "1.6777216E7");
  CHECK(java_float(1.1f) == "1.1");
}

TEST_CASE("avro canonical: numbers keep what Jackson keeps of their lexeme", "[avro]") {
  CHECK(
      canonical(
          R"({"type":"int","a":1.0,"b":1e3,"c":-0,"d":12345678901234567890123,"e":1E-4,"f":1e400,"g":2147483648})") ==
      R"({"type":"int","a":1.0,"b":1000.0,"c":0,"d":12345678901234567890123,"e":1.0E-4,"f":"Infinity","g":2147483648})");
  CHECK(canonical(R"({"type":"record","name":"R","fields":[{"name":"d","type":"double","default":"NaN"},)"
                  R"({"name":"f","type":"float","default":" 2.5f "},{"name":"l","type":"long","default":-0}]})") ==
        R"({"type":"record","name":"R","fields":[{"name":"d","type":"double","default":"NaN"},)"
        R"({"name":"f","type":"float","default":2.5},{"name":"l","type":"long","default":0}]})");
}

TEST_CASE("avro canonical: strings escaped as Jackson escapes them", "[avro]") {
  CHECK(canonical("{\"type\":\"string\",\"p\":\"a\\u0001\\t\\u007f/\\u00e9\\\"\"}") ==
        "{\"type\":\"string\",\"p\":\"a\\u0001\\t\x7f/\xc3\xa9\\\"\"}");
}

TEST_CASE("avro canonical: namespaces written where they change, named types once", "[avro]") {
  const std::string in =
      R"({"namespace":"a","name":"R","type":"record","aliases":["x","b.y",".z"],"fields":[)"
      R"({"name":"s","type":{"type":"record","name":"S","namespace":"","fields":[)"
      R"({"name":"e","type":{"type":"enum","name":"int","namespace":"a","symbols":["A"]}},{"name":"f","type":"a.int"}]}},)"
      R"({"name":"t","type":{"type":"fixed","name":"a.T","size":1}},{"name":"u","type":"S"},{"name":"v","type":"R"}],)"
      R"("doc":"d","custom":{"k":[1,2]}})";
  CHECK(
      canonical(in) ==
      R"({"type":"record","name":"R","namespace":"a","doc":"d","fields":[)"
      R"({"name":"s","type":{"type":"record","name":"S","namespace":"","fields":[)"
      R"({"name":"e","type":{"type":"enum","name":"int","namespace":"a","symbols":["A"]}},{"name":"f","type":"a.int"}]}},)"
      R"({"name":"t","type":{"type":"fixed","name":"T","size":1}},{"name":"u","type":"S"},{"name":"v","type":"R"}],)"
      R"("custom":{"k":[1,2]},"aliases":["x","b.y","z"]})");
}

TEST_CASE("avro canonical: fields keep doc, default, order, aliases and properties in Java's order", "[avro]") {
  CHECK(canonical(R"({"type":"record","name":"R","fields":[{"x":true,"aliases":["o","o"],"order":"DESCENDING",)"
                  R"("default":[],"doc":"the f","type":{"type":"array","items":"int"},"name":"f"}]})") ==
        R"({"type":"record","name":"R","fields":[{"name":"f","type":{"type":"array","items":"int"},"doc":"the f",)"
        R"("default":[],"order":"descending","aliases":["o"],"x":true}]})");
  CHECK(canonical(R"({"type":"error","name":"E","fields":[]})") == R"({"type":"error","name":"E","fields":[]})");
}
