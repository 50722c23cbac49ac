// parse_protobuf (schema/protobuf/protobuf_schema.h): .proto text through
// libprotoc, imports as references or well-known types, errors with their
// line and column, hostile input refused without a crash.
#include <google/protobuf/descriptor.pb.h>

#include <catch2/catch.hpp>
#include <string>

#include "common/base64.h"
#include "protobuf_test_util.h"
#include "schema/protobuf/proto_text.h"
#include "schema/protobuf/well_known.h"

using namespace skiff::schema;
using namespace skiff::schema::test;

TEST_CASE("protobuf: proto3 and proto2 schemas parse and build", "[protobuf]") {
  auto p3 = parse_ok("syntax = \"proto3\"; package a.b; message M { string s = 1; repeated int64 n = 2; }");
  CHECK(p3->type() == SchemaType::kProtobuf);
  const auto& file = as_proto(*p3).file();
  CHECK(file.package() == "a.b");
  REQUIRE(file.FindMessageTypeByName("M") != nullptr);
  CHECK(file.FindMessageTypeByName("M")->field_count() == 2);

  auto p2 =
      parse_ok("syntax = \"proto2\"; message M { required int32 a = 1; optional string b = 2 [default = \"x\"]; }");
  CHECK(as_proto(*p2).file().FindMessageTypeByName("M")->field(0)->is_required());
  auto none = parse_ok("message M { optional int32 a = 1; }");  // no syntax line: proto2
  CHECK(as_proto(*none).file().syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO2);
}

TEST_CASE("protobuf: a syntax error says where, in Confluent's words", "[protobuf]") {
  std::string error = parse_error("syntax = \"proto3\";\nmessage M {\n  string s = 1\n}\n");
  CHECK(error.rfind("Could not parse Protobuf - ", 0) == 0);
  CHECK(error.find("4:1: Expected \";\".") != std::string::npos);
  CHECK(parse_error("syntax = \"proto3\"; message { }").find("1:28:") != std::string::npos);
  CHECK(parse_ok("")->canonical().empty());  // an empty file is a schema, as Wire reads it
}

TEST_CASE("protobuf: semantic errors come from the descriptor pool", "[protobuf]") {
  CHECK(parse_error("syntax = \"proto3\"; message M { Missing m = 1; }").find("\"Missing\" is not defined") !=
        std::string::npos);
  CHECK(parse_error("syntax = \"proto3\"; message M { int32 a = 1; int32 b = 1; }").find("has already been used") !=
        std::string::npos);
  CHECK(parse_error("syntax = \"proto3\"; enum E { A = 1; }").find("must be zero") != std::string::npos);
}

TEST_CASE("protobuf: imports resolve to references, dependencies in any order", "[protobuf]") {
  Ref base{"base.proto", "syntax = \"proto3\"; package base; message Id { string v = 1; }"};
  Ref mid{"mid.proto", "syntax = \"proto3\"; package mid; import \"base.proto\"; message Ref { base.Id id = 1; }"};
  std::string text = "syntax = \"proto3\"; import \"mid.proto\"; message Top { mid.Ref r = 1; }";
  auto in_order = parse_ok(text, {base, mid});
  auto reversed = parse_ok(text, {mid, base});
  CHECK(in_order->canonical() == reversed->canonical());
  const auto* field = as_proto(*in_order).file().FindMessageTypeByName("Top")->field(0);
  CHECK(field->message_type()->full_name() == "mid.Ref");
  CHECK(in_order->unresolved_names() == std::vector<std::string>{"mid.proto"});
}

TEST_CASE("protobuf: an import that is neither a reference nor well-known is an error", "[protobuf]") {
  std::string error = parse_error("syntax = \"proto3\"; import \"other.proto\"; message M { }");
  CHECK(error.find("\"other.proto\"") != std::string::npos);
  CHECK(error.find("neither a reference nor a well-known type") != std::string::npos);
  Ref bad{"bad.proto", "syntax = \"proto3\"; message {"};
  CHECK(parse_error("syntax = \"proto3\"; import \"bad.proto\";", {bad}).find("reference \"bad.proto\"") !=
        std::string::npos);
}

TEST_CASE("protobuf: well-known types are built in, Google's and Confluent's", "[protobuf]") {
  for (const char* name : {"google/protobuf/timestamp.proto", "google/protobuf/any.proto",
                           "google/protobuf/wrappers.proto", "google/protobuf/descriptor.proto", "confluent/meta.proto",
                           "confluent/type/decimal.proto", "google/type/date.proto", "google/type/money.proto"}) {
    INFO(name);
    CHECK(protobuf::is_well_known(name));
    CHECK(protobuf::well_known_pool().FindFileByName(name) != nullptr);
  }
  auto s = parse_ok(R"(syntax = "proto3";
import "google/protobuf/timestamp.proto";
import "confluent/meta.proto";
import "confluent/type/decimal.proto";
import "google/type/date.proto";
message M {
  google.protobuf.Timestamp at = 1 [(confluent.field_meta).doc = "when"];
  confluent.type.Decimal amount = 2;
  google.type.Date day = 3;
})");
  CHECK(s->unresolved_names().empty());
  const auto* m = as_proto(*s).file().FindMessageTypeByName("M");
  CHECK(m->field(0)->message_type()->full_name() == "google.protobuf.Timestamp");
  CHECK(m->field(1)->message_type()->full_name() == "confluent.type.Decimal");
  CHECK(m->field(2)->message_type()->full_name() == "google.type.Date");
}

TEST_CASE("protobuf: a base64 serialized FileDescriptorProto is a schema too", "[protobuf]") {
  google::protobuf::FileDescriptorProto fdp;
  fdp.set_name("x.proto");
  fdp.set_syntax("proto3");
  fdp.set_package("p");
  auto* m = fdp.add_message_type();
  m->set_name("M");
  auto* f = m->add_field();
  f->set_name("s");
  f->set_number(1);
  f->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
  f->set_type(google::protobuf::FieldDescriptorProto::TYPE_STRING);
  auto s = parse_ok(skiff::base64_encode(fdp.SerializeAsString()));
  CHECK(s->canonical() == "syntax = \"proto3\";\npackage p;\n\nmessage M {\n  string s = 1;\n}\n");
}

TEST_CASE("protobuf: a serialized descriptor prints as Confluent converts one", "[protobuf]") {
  // As a Python client registers it: protoc's descriptor, base64-encoded.
  std::string text = R"(syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
option go_package = "example/shop";
option java_package = "com.shop";
message Order {
  reserved 7, 9 to 11;
  reserved "old";
  string id = 1 [deprecated = true];
  map<string, int32> counts = 2;
  repeated Line lines = 3;
  google.protobuf.Timestamp at = 4;
  optional int32 maybe = 5;
  oneof pay { string card = 6; int64 cash = 8; }
  message Line { string sku = 1; int64 qty = 2; }
})";
  auto from_text = parse_ok(text);
  google::protobuf::FileDescriptorProto fdp;
  as_proto(*from_text).file().CopyTo(&fdp);
  auto serialized = parse_ok(skiff::base64_encode(fdp.SerializeAsString()));
  CHECK(serialized->canonical() == R"(syntax = "proto3";
package shop;

import "google/protobuf/timestamp.proto";

option java_package = "com.shop";
option go_package = "example/shop";

message Order {
  reserved 7;
  reserved 9 to 11;
  reserved "old";

  string id = 1 [deprecated = true];
  repeated .shop.Order.CountsEntry counts = 2;
  repeated .shop.Order.Line lines = 3;
  .google.protobuf.Timestamp at = 4;
  optional int32 maybe = 5;

  oneof pay {
    string card = 6;
    int64 cash = 8;
  }

  message CountsEntry {
    option map_entry = true;
  
    string key = 1;
    int32 value = 2;
  }
  message Line {
    string sku = 1;
    int64 qty = 2;
  }
}
)");
  // Normalized, the two forms are one text, so a lookup with normalize finds either.
  CHECK(serialized->normalized() == from_text->normalized());
  // Confluent's canonical text of it parses again (an explicit map entry is accepted).
  CHECK(parse_ok(serialized->canonical())->normalized() == from_text->normalized());
}

TEST_CASE("protobuf: the serialized form is the built descriptor, base64-encoded", "[protobuf]") {
  auto s = parse_ok("syntax = \"proto3\"; package p; message M { map<string, N> m = 1; } message N { int32 x = 1; }");
  auto bytes = skiff::base64_decode(as_proto(*s).serialized());
  REQUIRE(bytes);
  google::protobuf::FileDescriptorProto fdp;
  REQUIRE(fdp.ParseFromString(*bytes));
  CHECK(fdp.package() == "p");
  REQUIRE(fdp.message_type_size() == 2);
  CHECK(fdp.message_type(0).field(0).type_name() == ".p.M.MEntry");
  // Registered in that form, it is the same schema.
  CHECK(parse_ok(as_proto(*s).serialized())->normalized() == s->normalized());
}

TEST_CASE("protobuf: a serialized descriptor's custom options print as Confluent reads them", "[protobuf]") {
  auto from_text = parse_ok(R"(syntax = "proto2";
package p;
import "google/protobuf/descriptor.proto";
import "confluent/meta.proto";
extend google.protobuf.FieldOptions { optional Range length = 22301; repeated string labels = 22302; }
message Range { optional double min = 1; optional double max = 2; optional Kind kind = 3; enum Kind { A = 0; B = 1; } }
message M {
  optional string s = 1 [(length) = { min: 1 max: 10 kind: B }, (labels) = "x", (labels) = "y", default = "d",
                         (confluent.field_meta) = { doc: "f" tags: "PII" params: [{key: "scale" value: "2"}] }];
})");
  google::protobuf::FileDescriptorProto fdp;
  as_proto(*from_text).file().CopyTo(&fdp);
  auto serialized = parse_ok(skiff::base64_encode(fdp.SerializeAsString()));
  CHECK(serialized->canonical().find(R"(message M {
  optional string s = 1 [
    (confluent.field_meta) = {
      doc: "f",
      params: [
        {
          value: "2",
          key: "scale"
        }
      ],
      tags: [
        "PII"
      ]
    },
    (p.length) = {
      min: 1.0,
      max: 10.0,
      kind: B
    },
    (p.labels) = "x",
    (p.labels) = "y",
    default = "d"
  ];
}
)") != std::string::npos);
  CHECK(parse_ok(serialized->canonical())->canonical() == serialized->canonical());
}

TEST_CASE("protobuf: hostile text is an error, not a crash", "[protobuf]") {
  std::string deep = "syntax = \"proto3\";";
  for (int i = 0; i < 5000; ++i) deep += "message M" + std::to_string(i) + " {";
  CHECK(parse_error(deep).find("nesting deeper than") != std::string::npos);
  std::string aggregate = "syntax = \"proto3\"; import \"google/protobuf/descriptor.proto\"; option (x) = ";
  aggregate += std::string(10000, '{');
  CHECK(!parse_error(aggregate).empty());
  CHECK(parse_error(std::string(protobuf::kMaxSchemaBytes + 1, ' ')).find("larger than") != std::string::npos);
  CHECK(!parse_error("syntax = \"proto3\"; message \xff\xfe { }").empty());
  CHECK(!parse_error(std::string("\0\1\2\3message", 11)).empty());
  CHECK(!parse_error("syntax = \"proto3\"; message M { int32 a = 99999999999999999999; }").empty());
  CHECK(!parse_error("syntax = \"proto3\"; message M { int32 a = 1 [default = 5]; }").empty());
  // A reference cycle: each file imports the other.
  Ref a{"a.proto", "syntax = \"proto3\"; import \"b.proto\";"};
  Ref b{"b.proto", "syntax = \"proto3\"; import \"a.proto\";"};
  CHECK(!parse_error("syntax = \"proto3\"; import \"a.proto\";", {a, b}).empty());
  // A serialized descriptor that does not build.
  google::protobuf::FileDescriptorProto fdp;
  fdp.add_message_type()->add_field()->set_type_name("Nope");
  CHECK(!parse_error(skiff::base64_encode(fdp.SerializeAsString())).empty());
}
