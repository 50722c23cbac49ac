// The Avro parser (schema/avro/avro_parser.h): what it accepts, Avro Java's
// messages for what it refuses, references read before the main text,
// Confluent's two validation modes, and hostile input refused in bounded
// time and stack.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "avro_test_util.h"

using namespace skiff::schema::avro_test;

TEST_CASE("avro parse: primitives written as names or objects", "[avro]") {
  CHECK(canonical(R"("int")") == R"("int")");
  CHECK(canonical(R"({"type":"string"})") == R"("string")");
  CHECK(canonical(R"({"type":"long","logicalType":"timestamp-millis"})") ==
        R"({"type":"long","logicalType":"timestamp-millis"})");
  CHECK(canonical(R"(  ["null" , "string"]  )") == R"(["null","string"])");
}

TEST_CASE("avro parse: comments as Jackson allows them, dangling content refused", "[avro]") {
  CHECK(canonical("/* a */ {\"type\": // the type\n \"int\"}") == R"("int")");
  CHECK(refusal(R"({"type":"int"} {"type":"long"})") == R"(dangling content after end of schema: {"type":"long"})");
  CHECK(refusal(R"({"type":"int"} // trailing)") == "dangling content after end of schema: // trailing");
  CHECK(refusal("  ") == "Cannot parse <null> schema");
  CHECK(refusal("/* only a comment */") == "Cannot parse <null> schema");
}

TEST_CASE("avro parse: Avro's messages for what it refuses", "[avro]") {
  CHECK(refusal(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]})") ==
        "Duplicate field a in record R: a type:LONG pos:1 and a type:INT pos:0.");
  CHECK(refusal(R"({"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":"Missing"}]})") ==
        "Undefined schema: n.Missing");
  CHECK(refusal(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]})") ==
        R"(Invalid default for field a: "x" not a "int")");
  CHECK(refusal(R"({"type":"enum","name":"E","symbols":["A"],"default":"B"})") ==
        "The Enum Default: B is not in the enum symbol set: [A]");
  CHECK(refusal(R"({"type":"record","name":"R","fields":[{"name":"a","type":"float","default":"abc"}]})") ==
        R"(For input string: "abc")");
  CHECK(refusal(R"({"type":"fixed","name":"F","size":-1})") == "Malformed data. Length is negative: -1");
  CHECK(refusal(R"({"type":"record","name":"R","aliases":["1bad"],"fields":[]})") == "Illegal initial character: 1bad");
  CHECK(refusal(R"(["int",{"type":"int","x":1}])") == "Duplicate in union:int");
}

TEST_CASE("avro parse: a name used before its definition is resolved once the text is read", "[avro]") {
  const std::string fwd = R"({"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":"F"},)"
                          R"({"name":"b","type":{"type":"fixed","name":"F","size":2}}]})";
  CHECK(
      canonical(fwd) ==
      R"({"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":{"type":"fixed","name":"F","size":2}},{"name":"b","type":"F"}]})");
  // A forward-referenced enum is a placeholder record while the field is
  // read, so a string default is refused then, as Avro refuses it.
  CHECK(refusal(R"({"type":"record","name":"R","fields":[{"name":"a","type":"E","default":"A"},)"
                R"({"name":"b","type":{"type":"enum","name":"E","symbols":["A"]}}]})")
            .rfind("Invalid default for field a: \"A\" not a {\"type\":\"record\",\"name\":\"UnresolvedSchema_", 0) ==
        0);
}

TEST_CASE("avro parse: a text defining the same name twice must define it equally", "[avro]") {
  const std::string fixed = R"({"type":"fixed","name":"F","size":2})";
  CHECK(
      canonical(R"({"type":"record","name":"R","fields":[{"name":"a","type":)" + fixed + R"(},{"name":"b","type":)" +
                fixed + "}]}") ==
      R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"fixed","name":"F","size":2}},{"name":"b","type":"F"}]})");
  CHECK(refusal(R"({"type":"record","name":"R","fields":[{"name":"a","type":)" + fixed +
                R"(},{"name":"b","type":{"type":"fixed","name":"F","size":3}}]})") == "Can't redefine: F");
}

TEST_CASE("avro parse: references are read first and written by name", "[avro]") {
  const std::string address =
      R"({"type":"record","name":"Address","namespace":"com.acme","fields":[{"name":"street","type":"string"},)"
      R"({"name":"geo","type":{"type":"record","name":"Geo","fields":[{"name":"lat","type":"double"}]}}]})";
  const std::string user =
      R"({"type":"record","name":"User","namespace":"com.acme","fields":[{"name":"home","type":"Address"},)"
      R"({"name":"work","type":["null","com.acme.Address"],"default":null},{"name":"spot","type":"Geo"}]})";
  // Confluent knows the referenced schemas' own names only: a type nested
  // in a reference is written in full where the main schema first uses it.
  CHECK(canonical(user, {address}) ==
        R"({"type":"record","name":"User","namespace":"com.acme","fields":[{"name":"home","type":"Address"},)"
        R"({"name":"work","type":["null","Address"],"default":null},)"
        R"({"name":"spot","type":{"type":"record","name":"Geo","fields":[{"name":"lat","type":"double"}]}}]})");
  CHECK(refusal(user) == "Undefined schema: com.acme.Address");
  auto parsed = parse(user, {address});
  REQUIRE(parsed);
  CHECK((*parsed)->unresolved_names() == std::vector<std::string>{"com.acme.Address", "com.acme.Geo"});
  // A reference's dependencies come before it.
  const std::string holder = R"({"type":"record","name":"Holder","fields":[{"name":"u","type":"com.acme.User"}]})";
  CHECK(canonical(holder, {address, user}) ==
        R"({"type":"record","name":"Holder","fields":[{"name":"u","type":"com.acme.User"}]})");
  CHECK(refusal(holder, {user, address}) == "Undefined schema: com.acme.Address");
  // Redefining a referenced type differently is refused; equally, allowed.
  CHECK(refusal(R"({"type":"record","name":"Address","namespace":"com.acme","fields":[]})", {address}) ==
        "Can't redefine: com.acme.Address");
}

TEST_CASE("avro parse: a stored schema is read as Confluent reads it back", "[avro]") {
  const std::string loose =
      R"({"type":"record","name":"R","namespace":"a-b","fields":[{"name":"f","type":"int","default":"x"}]})";
  CHECK(refusal(loose) == R"(Invalid default for field f: "x" not a "int")");  // fields are read before the name is put
  CHECK(refusal(R"({"type":"record","name":"R","namespace":"a-b","fields":[]})") ==
        R"(Namespace part "a-b" is invalid: Illegal character in: a-b)");
  CHECK(canonical(loose, {}, false) == loose);
  CHECK(refusal(R"({"type":"record","name":"R","fields":[{"name":"1f","type":"int"}]})", {}, false) ==
        "Illegal initial character: 1f");
  CHECK(canonical(R"({"type":"enum","name":"E","symbols":["é"]})", {}, false) ==
        R"({"type":"enum","name":"E","symbols":["é"]})");
}

TEST_CASE("avro parse: hostile input is refused in bounded time and stack", "[avro]") {
  SECTION("deep JSON nesting") {
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += R"({"type":"array","items":)";
    deep += R"("int")";
    for (int i = 0; i < 100000; ++i) deep += "}";
    CHECK_FALSE(parse(deep));
    CHECK_FALSE(parse(std::string(100000, '[')));
  }
  SECTION("a chain of named types expanded deeper than the bound") {
    std::string chain = "[";
    for (int i = 0; i < 3000; ++i)
      chain += (i ? "," : "") + std::string(R"({"type":"record","name":"R)") + std::to_string(i) +
               R"(","fields":[{"name":"next","type":["null","R)" + std::to_string(i + 1) + R"("]}]})";
    chain += R"(,{"type":"record","name":"R3000","fields":[]}])";
    auto r = parse(chain);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("too deep") != std::string::npos);
  }
  SECTION("invalid UTF-8, huge numbers, many fields") {
    CHECK_FALSE(parse("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"\xff\"]}"));
    CHECK(refusal(R"({"type":"fixed","name":"F","size":99999999999999999999999})") ==
          R"(Invalid or no size: {"type":"fixed","name":"F","size":99999999999999999999999})");
    std::string wide = R"({"type":"record","name":"W","fields":[)";
    for (int i = 0; i < 20000; ++i)
      wide += (i ? "," : "") + std::string(R"({"name":"f)") + std::to_string(i) + R"(","type":"int"})";
    wide += "]}";
    CHECK(parse(wide));
    // Checked against itself: every field looked up in the other record.
    auto w = parse(wide);
    REQUIRE(w);
    CHECK((*w)->incompatibilities(**w).empty());
  }
  SECTION("linear in the members of an object, aliases and properties") {
    std::string props = R"({"type":"fixed","name":"F","size":1)";
    for (int i = 0; i < 100000; ++i) props += R"(,"p)" + std::to_string(i) + R"(":{"a":1})";
    props += "}";
    std::string aliases = R"({"type":"enum","name":"E","symbols":["A"],"aliases":[)";
    for (int i = 0; i < 100000; ++i) aliases += (i ? ",\"a" : "\"a") + std::to_string(i % 50000) + "\"";
    aliases += "]}";
    CHECK(parse(aliases));
    // The same fixed twice: Avro compares the two definitions.
    CHECK(parse("[" + props + ",{\"type\":\"array\",\"items\":" + props + "}]"));
  }
}
