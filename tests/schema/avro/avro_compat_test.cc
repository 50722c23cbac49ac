// Avro's reader/writer compatibility (schema/avro/avro_compat.h) worded as
// Confluent's AvroSchema.isBackwardCompatible: the cases the generated
// oracle corpus does not single out.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "avro_test_util.h"

using namespace skiff::schema::avro_test;
using Lines = std::vector<std::string>;

namespace {

std::string record(const std::string& fields, const std::string& extra = "") {
  return R"({"type":"record","name":"R")" + extra + R"(,"fields":[)" + fields + "]}";
}

class OtherSchema final : public skiff::schema::ParsedSchema {
 public:
  skiff::schema::SchemaType type() const override { return skiff::schema::SchemaType::kJson; }
  std::string canonical() const override { return "{}"; }
  std::string normalized() const override { return "{}"; }
  std::vector<std::string> incompatibilities(const ParsedSchema&) const override { return {}; }
  skiff::Expected<skiff::schema::DecodedValue, std::string> decode(std::string_view) const override {
    return skiff::schema::DecodedValue{};
  }
};

}  // namespace

TEST_CASE("avro compat: a new field needs a default to read old data", "[avro]") {
  CHECK(differences(record(R"({"name":"a","type":"int"},{"name":"b","type":"string"})"),
                    record(R"({"name":"a","type":"int"})")) ==
        Lines{"{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in the "
              "%s schema has no default value and is missing in the %s schema', additionalInfo:'b'}"});
  CHECK(differences(record(R"({"name":"a","type":"int"},{"name":"b","type":"string","default":""})"),
                    record(R"({"name":"a","type":"int"})"))
            .empty());
}

TEST_CASE("avro compat: promotions one way only", "[avro]") {
  CHECK(differences(R"("double")", R"("int")").empty());
  CHECK(differences(R"("string")", R"("bytes")").empty());
  CHECK(differences(R"("int")", R"("long")") ==
        Lines{"{errorType:'TYPE_MISMATCH', description:'The type (path '/') of a field in the %s schema does not match "
              "with the %s schema', additionalInfo:'reader type: INT not compatible with writer type: LONG'}"});
}

TEST_CASE("avro compat: unions, enums with a default, fixed sizes", "[avro]") {
  CHECK(differences(R"(["null","int"])", R"(["null","int","string"])") ==
        Lines{"{errorType:'MISSING_UNION_BRANCH', description:'The %s schema is missing a type inside a union field at "
              "path '/2' in the %s schema', additionalInfo:'reader union lacking writer type: STRING'}"});
  CHECK(differences(R"({"type":"enum","name":"E","symbols":["A"],"default":"A"})",
                    R"({"type":"enum","name":"E","symbols":["A","B"]})")
            .empty());
  CHECK(differences(R"({"type":"enum","name":"E","symbols":["A"]})",
                    R"({"type":"enum","name":"E","symbols":["C","B","A"]})") ==
        Lines{"{errorType:'MISSING_ENUM_SYMBOLS', description:'The %s schema is missing enum symbols '[B, C]' at path "
              "'/symbols' in the %s schema', additionalInfo:'[B, C]'}"});
  CHECK(differences(R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"G","size":8})") ==
        Lines{"{errorType:'NAME_MISMATCH', description:'The name of the schema has changed (path '/name')', "
              "additionalInfo:'expected: G'}",
              "{errorType:'FIXED_SIZE_MISMATCH', description:'The size of FIXED type field at path '/size' in the %s "
              "schema does not match with the %s schema', additionalInfo:'expected: 8, found: 4'}"});
}

TEST_CASE("avro compat: names match by simple name or the reader's aliases", "[avro]") {
  CHECK(
      differences(R"({"type":"enum","name":"a.E","symbols":["A"]})", R"({"type":"enum","name":"b.E","symbols":["A"]})")
          .empty());
  CHECK(differences(R"({"type":"enum","name":"E2","aliases":["b.E"],"symbols":["A"]})",
                    R"({"type":"enum","name":"b.E","symbols":["A"]})")
            .empty());
  CHECK(differences(record(R"({"name":"n","type":"int","aliases":["o"]})"), record(R"({"name":"o","type":"int"})"))
            .empty());
}

TEST_CASE("avro compat: recursive types terminate, and a shared named type reports where first met", "[avro]") {
  const std::string list_int =
      record(R"({"name":"v","type":"int"},{"name":"next","type":["null","R"],"default":null})");
  const std::string list_long =
      record(R"({"name":"v","type":"long"},{"name":"next","type":["null","R"],"default":null})");
  CHECK(differences(list_long, list_int).empty());
  CHECK(differences(list_int, list_long).size() == 1);
  const std::string s = R"({"type":"record","name":"S","fields":[{"name":"x","type":"int"}]})";
  const std::string s2 = R"({"type":"record","name":"S","fields":[{"name":"x","type":"string"}]})";
  const Lines lines = differences(record(R"({"name":"a","type":)" + s + R"(},{"name":"b","type":"S"})"),
                                  record(R"({"name":"a","type":)" + s2 + R"(},{"name":"b","type":"S"})"));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == lines[1]);  // memoized: both at /fields/0/type/fields/0/type, as Java reports them
  CHECK(lines[0].find("/fields/0/type/fields/0/type") != std::string::npos);
}

TEST_CASE("avro compat: what Confluent reports instead of a verdict", "[avro]") {
  CHECK(differences(record(R"({"name":"a","type":"int","aliases":["b"]})"),
                    record(R"({"name":"a","type":"int"},{"name":"b","type":"int"})")) ==
        Lines{"Unexpected exception during compatibility check: Reader record field a type:INT pos:0 matches multiple "
              "fields in writer record schema "
              R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]})"});
  auto avro = parse(R"("int")");
  REQUIRE(avro);
  CHECK((*avro)->incompatibilities(OtherSchema()) == Lines{"Incompatible because of different schema type"});
}

TEST_CASE("avro compat: two recursive types whose pairs nest past the bound end with an exception", "[avro]") {
  auto cycle = [](const std::string& prefix, int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) {
      s += i ? "," : "";
      s += R"({"type":"record","name":")" + prefix + std::to_string(i);
      s += R"(","fields":[{"name":"next","type":")" + prefix + std::to_string((i + 1) % n) + R"("}]})";
    }
    return s + "]";
  };
  const Lines lines = differences(cycle("A", 37), cycle("B", 31));
  REQUIRE_FALSE(lines.empty());
}
