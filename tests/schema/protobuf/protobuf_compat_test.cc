// incompatibilities() of Protobuf schemas: Confluent's protobuf diff
// (SchemaDiff, MessageSchemaDiff, FieldSchemaDiff), one compatible and one
// incompatible case per kind of difference, its messages word for word.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "protobuf_test_util.h"
#include "schema/protobuf/java_hash_order.h"
#include "schema/protobuf/proto_diff.h"

using namespace skiff::schema;
using namespace skiff::schema::test;
using Strings = std::vector<std::string>;

namespace {

// What the reader (new schema) reports against the writer (old schema).
Strings check(const std::string& writer, const std::string& reader, const std::vector<Ref>& writer_refs = {},
              const std::vector<Ref>& reader_refs = {}) {
  auto w = parse_ok(writer, writer_refs);
  auto r = parse_ok(reader, reader_refs);
  return r->incompatibilities(*w);
}

// Every difference, compatible or not, as "TYPE path".
Strings all_differences(const std::string& writer, const std::string& reader) {
  auto w = parse_ok(writer);
  auto r = parse_ok(reader);
  Strings out;
  for (const auto& d : protobuf::compare_schemas(as_proto(*w).built(), as_proto(*r).built())) {
    out.push_back(std::string(protobuf::diff_type_name(d.type)) + " " + d.path);
  }
  return out;
}

std::string p3(const std::string& body) { return "syntax = \"proto3\";\n" + body; }
std::string p2(const std::string& body) { return "syntax = \"proto2\";\n" + body; }

}  // namespace

TEST_CASE("protobuf compat: the same schema is compatible", "[protobuf][compat]") {
  std::string s = p3("package a; message M { int32 a = 1; oneof o { string x = 2; } }");
  CHECK(check(s, s).empty());
  CHECK(all_differences(s, s).empty());
}

TEST_CASE("protobuf compat: a changed package", "[protobuf][compat]") {
  CHECK(check(p3("package a; message M {}"), p3("package b; message M {}")) ==
        Strings{"{errorType:\"PACKAGE_CHANGED\", description:\"The package at '#/' in the %s schema does not match "
                "the package in the %s schema\"}"});
}

TEST_CASE("protobuf compat: messages added, removed, moved", "[protobuf][compat]") {
  CHECK(check(p3("message A {}"), p3("message A {} message B {}")).empty());
  CHECK(all_differences(p3("message A {}"), p3("message A {} message B {}")) == Strings{"MESSAGE_ADDED #/B"});
  CHECK(check(p3("message A {} message B {}"), p3("message A {}")) ==
        Strings{"{errorType:\"MESSAGE_REMOVED\", description:\"The %s schema is missing a MESSAGE type at path '#/B' "
                "in the %s schema\"}"});
  CHECK(check(p3("message A {} message B {}"), p3("message B {} message A {}")).empty());
  CHECK(all_differences(p3("message A { message N {} }"), p3("message A { message X {} message N {} }")) ==
        Strings{"MESSAGE_ADDED #/A/X", "MESSAGE_MOVED #/A/N"});
}

TEST_CASE("protobuf compat: fields added, removed, renamed", "[protobuf][compat]") {
  CHECK(check(p3("message M { int32 a = 1; }"), p3("message M { int32 a = 1; string b = 2; }")).empty());
  CHECK(check(p3("message M { int32 a = 1; string b = 2; }"), p3("message M { int32 a = 1; }")).empty());
  CHECK(
      all_differences(p3("message M { int32 a = 1; string b = 2; }"), p3("message M { int32 z = 1; int32 c = 3; }")) ==
      Strings{"FIELD_NAME_CHANGED #/M/1", "FIELD_REMOVED #/M/2", "FIELD_ADDED #/M/3"});
}

TEST_CASE("protobuf compat: required fields added or removed", "[protobuf][compat]") {
  CHECK(check(p2("message M { optional int32 a = 1; }"),
              p2("message M { optional int32 a = 1; required int32 b = 2; }")) ==
        Strings{"{errorType:\"REQUIRED_FIELD_ADDED\", description:\"A required field  at path '#/M/2' in the %s schema "
                "is missing in the %s schema\"}"});
  CHECK(check(p2("message M { required int32 a = 1; }"), p2("message M { }")) ==
        Strings{"{errorType:\"REQUIRED_FIELD_REMOVED\", description:\"The %s schema is missing a required field at "
                "path: '#/M/1' in the %s schema\"}"});
  CHECK(check(p2("message M { }"), p2("message M { optional int32 b = 2; }")).empty());
}

TEST_CASE("protobuf compat: a field's kind: scalar, message, map", "[protobuf][compat]") {
  std::string types = "message N { int32 x = 1; } ";
  CHECK(check(p3(types + "message M { int32 a = 1; }"), p3(types + "message M { N a = 1; }")) ==
        Strings{"{errorType:\"FIELD_KIND_CHANGED\", description:\"The type of a field at path '#/M/1' in the %s "
                "schema does not match the %s schema\"}"});
  CHECK(check(p3(types + "message M { N a = 1; }"), p3(types + "message M { map<string, N> a = 1; }")).size() == 1);
  // An enum is a scalar of the integer group.
  CHECK(check(p3("enum E { Z = 0; } message M { int32 a = 1; }"), p3("enum E { Z = 0; } message M { E a = 1; }"))
            .empty());
}

TEST_CASE("protobuf compat: scalar kinds change within Confluent's groups only", "[protobuf][compat]") {
  auto field = [](const std::string& type) { return p3("message M { " + type + " a = 1; }"); };
  const Strings compatible[][2] = {{{"int32"}, {"int64"}},   {{"int32"}, {"uint64"}},     {{"uint32"}, {"bool"}},
                                   {{"sint32"}, {"sint64"}}, {{"fixed32"}, {"sfixed32"}}, {{"fixed64"}, {"sfixed64"}},
                                   {{"string"}, {"bytes"}}};
  for (const auto& pair : compatible) {
    INFO(pair[0][0] << " -> " << pair[1][0]);
    CHECK(check(field(pair[0][0]), field(pair[1][0])).empty());
  }
  const Strings incompatible[][2] = {{{"int32"}, {"sint32"}}, {{"int32"}, {"string"}},  {{"fixed32"}, {"fixed64"}},
                                     {{"float"}, {"double"}}, {{"int64"}, {"fixed64"}}, {{"bytes"}, {"int32"}}};
  for (const auto& pair : incompatible) {
    INFO(pair[0][0] << " -> " << pair[1][0]);
    CHECK(check(field(pair[0][0]), field(pair[1][0])) ==
          Strings{"{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path "
                  "'#/M/1' in the %s schema does not match its kind in the %s schema\"}"});
  }
  CHECK(check(p3("message M { map<string, int32> m = 1; }"), p3("message M { map<string, string> m = 1; }")).size() ==
        1);
  CHECK(check(p3("message M { map<string, int32> m = 1; }"), p3("message M { map<string, int64> m = 1; }")).empty());
}

TEST_CASE("protobuf compat: labels, as Wire has them", "[protobuf][compat]") {
  CHECK(check(p2("message M { optional int32 a = 1; }"), p2("message M { repeated int32 a = 1; }")) ==
        Strings{"{errorType:\"FIELD_NUMERIC_LABEL_CHANGED\", description:\"The label for a NUMERIC field at path "
                "'#/M/1' in the %s schema does not match its label in the %s schema\"}"});
  CHECK(check(p2("message M { optional string a = 1; }"), p2("message M { repeated string a = 1; }")).empty());
  CHECK(all_differences(p2("message M { optional string a = 1; }"), p2("message M { repeated string a = 1; }")) ==
        Strings{"FIELD_STRING_OR_BYTES_LABEL_CHANGED #/M/1"});
  // proto3 without a label has none: no label change.
  CHECK(check(p3("message M { int32 a = 1; }"), p3("message M { repeated int32 a = 1; }")).empty());
  CHECK(check(p3("message M { optional int32 a = 1; }"), p3("message M { repeated int32 a = 1; }")).size() == 1);
}

TEST_CASE("protobuf compat: a message field's type", "[protobuf][compat]") {
  std::string types = "message A { int32 x = 1; } message B { int32 x = 1; } ";
  CHECK(check(p3(types + "message M { A f = 1; }"), p3(types + "message M { B f = 1; }")) ==
        Strings{"{errorType:\"FIELD_NAMED_TYPE_CHANGED\", description:\"The type of a MESSAGE field at path '#/M/1' "
                "in the %s schema does not match its type in the %s schema\"}"});
  // Qualified or not, the same type.
  CHECK(check(p3("package p; " + types + "message M { A f = 1; }"),
              p3("package p; " + types + "message M { .p.A f = 1; }"))
            .empty());
}

TEST_CASE("protobuf compat: a referenced type of another version is compared into", "[protobuf][compat]") {
  Ref v1{"home.proto", "syntax = \"proto3\"; package d; message Home { int32 id = 1; bool on = 2; }", "home", 1};
  Ref v2{"home.proto", "syntax = \"proto3\"; package d; message Home { string id = 1; bool on = 2; }", "home", 2};
  std::string s = p3("import \"home.proto\"; message T { d.Home h = 1; }");
  CHECK(check(s, s, {v1}, {v2}) ==
        Strings{"{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path "
                "'#/Home/1' in the %s schema does not match its kind in the %s schema\"}",
                "{errorType:\"FIELD_NAMED_TYPE_CHANGED\", description:\"The type of a MESSAGE field at path '#/T/1' "
                "in the %s schema does not match its type in the %s schema\"}"});
  CHECK(check(s, s, {v1}, {v1}).empty());
  Ref same_subject_version{"home.proto", v2.text, "home", 1};  // same subject and version: not compared into
  CHECK(check(s, s, {v1}, {same_subject_version}).empty());
}

TEST_CASE("protobuf compat: oneofs", "[protobuf][compat]") {
  CHECK(check(p3("message M { int32 a = 1; }"), p3("message M { int32 a = 1; oneof o { int32 b = 2; } }")).empty());
  CHECK(all_differences(p3("message M { int32 a = 1; }"), p3("message M { int32 a = 1; oneof o { int32 b = 2; } }")) ==
        Strings{"ONEOF_ADDED #/M/o", "ONEOF_FIELD_ADDED #/M/o/2"});
  // A whole oneof deleted is compatible; one member of it removed is not.
  CHECK(check(p3("message M { oneof o { int32 a = 1; int32 b = 2; } }"), p3("message M { }")).empty());
  CHECK(
      check(p3("message M { oneof o { int32 a = 1; int32 b = 2; } }"), p3("message M { oneof o { int32 a = 1; } }")) ==
      Strings{"{errorType:\"ONEOF_FIELD_REMOVED\", description:\"The %s schema is missing a oneof field at path "
              "'#/M/o/2' in the %s schema\"}"});
  // Out of a oneof to the top level: compatible.
  CHECK(check(p3("message M { oneof o { int32 a = 1; int32 b = 2; } }"), p3("message M { int32 a = 1; int32 b = 2; }"))
            .empty());
  // Into a oneof: one field alone is fine, two are not, one into an existing oneof neither.
  CHECK(check(p3("message M { int32 a = 1; }"), p3("message M { oneof o { int32 a = 1; } }")).empty());
  CHECK(
      check(p3("message M { int32 a = 1; int32 b = 2; }"), p3("message M { oneof o { int32 a = 1; int32 b = 2; } }")) ==
      Strings{"{errorType:\"MULTIPLE_FIELDS_MOVED_TO_ONEOF\", description:\"Multiple fields in the oneof at path "
              "'#/M/o' in the %s schema are outside a oneof in the %s schema\"}"});
  CHECK(check(p3("message M { int32 a = 1; oneof o { int32 b = 2; } }"),
              p3("message M { oneof o { int32 a = 1; int32 b = 2; } }")) ==
        Strings{"{errorType:\"FIELD_MOVED_TO_EXISTING_ONEOF\", description:\"A field in the oneof at path '#/M/o' "
                "in the %s schema is outside an existing oneof in the %s schema\"}"});
  // A member's type change is seen through a renamed oneof.
  CHECK(check(p3("message M { oneof o { int32 a = 1; } }"), p3("message M { oneof p { string a = 1; } }")).size() == 1);
}

TEST_CASE("protobuf compat: a serialized schema's map entries are messages too, as Confluent compares them",
          "[protobuf][compat]") {
  auto serialized = [](const std::string& text) { return as_proto(*parse_ok(text)).serialized(); };
  std::string w = p3("message M { map<string, int32> m = 1; }");
  std::string r = p3("message M { map<string, string> m = 1; }");
  std::string kind_changed =
      "{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path '#/M/1' in the %s "
      "schema does not match its kind in the %s schema\"}";
  CHECK(check(w, r) == Strings{kind_changed});
  Strings both = check(serialized(w), serialized(r));
  CHECK(both.size() == 2);
  CHECK(std::count(both.begin(), both.end(), kind_changed) == 1);
  CHECK(std::any_of(both.begin(), both.end(),
                    [](const std::string& m) { return m.find("'#/M/MEntry/2'") != std::string::npos; }));
  // A map entry appearing on one side only is no message added or removed.
  CHECK(check(serialized(p3("message M { }")), serialized(w)).empty());
}

TEST_CASE("protobuf compat: enums change compatibly", "[protobuf][compat]") {
  std::string w = p3("enum E { A = 0; B = 1; C = 2; } message M { E e = 1; }");
  std::string r = p3("enum E { A = 0; BB = 1; D = 3; } enum F { X = 0; } message M { E e = 1; }");
  CHECK(check(w, r).empty());
  CHECK(all_differences(w, r) ==
        Strings{"ENUM_CONST_CHANGED #/E/1", "ENUM_CONST_REMOVED #/E/2", "ENUM_CONST_ADDED #/E/3", "ENUM_ADDED #/F"});
}

TEST_CASE("protobuf compat: nested messages and their path", "[protobuf][compat]") {
  CHECK(check(p3("message O { message I { int32 a = 1; } I i = 1; }"),
              p3("message O { message I { bool a = 1; float b = 2; } I i = 1; }"))
            .empty());
  CHECK(check(p3("message O { message I { int32 a = 1; } }"), p3("message O { message I { double a = 1; } }")) ==
        Strings{"{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path "
                "'#/O/I/1' in the %s schema does not match its kind in the %s schema\"}"});
}

TEST_CASE("protobuf compat: a writer of another type", "[protobuf][compat]") {
  class Other : public ParsedSchema {
   public:
    SchemaType type() const override { return SchemaType::kAvro; }
    std::string canonical() const override { return "\"int\""; }
    std::string normalized() const override { return "\"int\""; }
    Strings incompatibilities(const ParsedSchema&) const override { return {}; }
    skiff::Expected<DecodedValue, std::string> decode(std::string_view) const override { return DecodedValue{}; }
  };
  CHECK(parse_ok(p3("message M {}"))->incompatibilities(Other{}) ==
        Strings{"Incompatible because of different schema type"});
}

TEST_CASE("protobuf compat: messages are walked in Java's HashSet order", "[protobuf][compat]") {
  // Orders printed by java.util.HashSet (OpenJDK 17) for the same inserts.
  using protobuf::java_hash_set_order;
  CHECK(java_hash_set_order({"Zeta", "Alpha", "Mid", "Beta"}, {"Gamma", "Alpha"}) ==
        Strings{"Gamma", "Zeta", "Alpha", "Mid", "Beta"});
  CHECK(java_hash_set_order({"TestMessage", "Other", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"},
                            {"M", "N", "O", "P", "Q"}) == Strings{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K",
                                                                  "L", "M", "N", "O", "P", "Q", "TestMessage",
                                                                  "Other"});
  CHECK(java_hash_set_order({"Order", "Customer", "Item", "Address", "Payment"}, {"Shipment"}) ==
        Strings{"Order", "Item", "Payment", "Address", "Customer", "Shipment"});
  CHECK(protobuf::java_string_hash("TestMessage") == -2064772363);
}
