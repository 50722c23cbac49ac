// canonical() and normalized() of Protobuf schemas: Confluent's layout
// (Wire's ProtoFileElement as ProtobufSchemaUtils prints it), and a text
// that parses back to the same descriptor.
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "protobuf_test_util.h"

using namespace skiff::schema;
using namespace skiff::schema::test;

namespace {

constexpr const char* kSample = R"(syntax = "proto3";
package com.acme;
import "google/protobuf/timestamp.proto";
import "confluent/meta.proto";
option java_package = "com.acme.x";
option (confluent.file_meta) = { doc: "hi" params: [{key: "a" value: "b"}] };
enum Top { option allow_alias = true; T0 = 0; T1 = 1; T1B = 1; }
message Outer {
  option deprecated = true;
  reserved 2, 15, 9 to 11, 40 to max;
  reserved "foo", "bar";
  reserved 20 to 20;
  string name = 1 [deprecated = true, json_name = "nm", (confluent.field_meta).doc = "x"];
  map<string, Inner> inners = 3;
  optional int32 maybe = 4;
  repeated google.protobuf.Timestamp ts = 5;
  oneof choice { string a = 6; Inner b = 7; }
  enum Color { RED = 0; }
  message Inner {
    int64 v = 1;
    Kind k = 2;
    enum Kind { reserved 5; UNKNOWN = 0; ONE = 1 [deprecated = true]; }
  }
}
service Svc {
  rpc Get (Outer) returns (stream Outer.Inner);
  rpc Put (Outer) returns (Outer) { option deprecated = true; }
})";

// Confluent's layout moves oneofs after the other fields and groups after
// oneofs, and messages before enums: the same file, in another order.
void sort_declarations(google::protobuf::DescriptorProto& m) {
  auto* fields = m.mutable_field();
  std::sort(fields->begin(), fields->end(), [](const auto& a, const auto& b) { return a.number() < b.number(); });
  auto* nested = m.mutable_nested_type();
  std::sort(nested->begin(), nested->end(), [](const auto& a, const auto& b) { return a.name() < b.name(); });
  for (auto& n : *nested) sort_declarations(n);
}

// The schema built from `text` as a FileDescriptorProto, named alike.
google::protobuf::FileDescriptorProto built_proto(const std::string& text, const std::vector<Ref>& refs = {}) {
  auto s = parse_ok(text, refs);
  google::protobuf::FileDescriptorProto proto;
  as_proto(*s).file().CopyTo(&proto);
  proto.clear_name();
  for (auto& m : *proto.mutable_message_type()) sort_declarations(m);
  return proto;
}

void check_round_trip(const std::string& text, const std::vector<Ref>& refs = {}) {
  auto s = parse_ok(text, refs);
  google::protobuf::FileDescriptorProto original = built_proto(text, refs);
  google::protobuf::FileDescriptorProto reparsed = built_proto(s->canonical(), refs);
  std::string report;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&report);
  bool same = differ.Compare(original, reparsed);
  INFO(report);
  CHECK(same);
  CHECK(parse_ok(s->canonical(), refs)->canonical() == s->canonical());
  CHECK(parse_ok(s->normalized(), refs)->normalized() == s->normalized());
}

}  // namespace

TEST_CASE("protobuf: canonical text in Confluent's layout", "[protobuf]") {
  CHECK(parse_ok(kSample)->canonical() == R"(syntax = "proto3";
package com.acme;

import "google/protobuf/timestamp.proto";
import "confluent/meta.proto";

option java_package = "com.acme.x";
option (confluent.file_meta) = {
  doc: "hi",
  params: [
    {
      key: "a",
      value: "b"
    }
  ]
};

message Outer {
  reserved 2, 15, 9 to 11, 40 to max;
  reserved "foo", "bar";
  reserved 20 to 20;

  option deprecated = true;

  string name = 1 [
    deprecated = true,
    (confluent.field_meta).doc = "x",
    json_name = "nm"
  ];
  map<string, Inner> inners = 3;
  optional int32 maybe = 4;
  repeated google.protobuf.Timestamp ts = 5;

  oneof choice {
    string a = 6;
    Inner b = 7;
  }

  message Inner {
    int64 v = 1;
    Kind k = 2;
  
    enum Kind {
      reserved 5;
      UNKNOWN = 0;
      ONE = 1 [deprecated = true];
    }
  }
  enum Color {
    RED = 0;
  }
}
enum Top {
  option allow_alias = true;
  T0 = 0;
  T1 = 1;
  T1B = 1;
}

service Svc {
  rpc Get (Outer) returns (stream Outer.Inner);
  rpc Put (Outer) returns (Outer) {
    option deprecated = true;
  };
}
)");
}

TEST_CASE("protobuf: normalized text sorts and qualifies as Confluent's normalize", "[protobuf]") {
  CHECK(parse_ok(kSample)->normalized() == R"(syntax = "proto3";
package com.acme;

import "confluent/meta.proto";
import "google/protobuf/timestamp.proto";

option (confluent.file_meta) = {
  doc: "hi",
  params: {
    key: "a",
    value: "b"
  }
};
option java_package = "com.acme.x";

message Outer {
  reserved 2;
  reserved 9 to 11;
  reserved 15;
  reserved 20;
  reserved 40 to max;
  reserved "bar";
  reserved "foo";

  option deprecated = true;

  string name = 1 [
    (confluent.field_meta) = {
      doc: "x"
    },
    deprecated = true,
    json_name = "nm"
  ];
  map<string, .com.acme.Outer.Inner> inners = 3;
  optional int32 maybe = 4;
  repeated .google.protobuf.Timestamp ts = 5;

  oneof choice {
    string a = 6;
    .com.acme.Outer.Inner b = 7;
  }

  message Inner {
    int64 v = 1;
    .com.acme.Outer.Inner.Kind k = 2;
  
    enum Kind {
      reserved 5;
      UNKNOWN = 0;
      ONE = 1 [deprecated = true];
    }
  }
  enum Color {
    RED = 0;
  }
}
enum Top {
  option allow_alias = true;
  T0 = 0;
  T1 = 1;
  T1B = 1;
}

service Svc {
  rpc Get (.com.acme.Outer) returns (stream .com.acme.Outer.Inner);
  rpc Put (.com.acme.Outer) returns (.com.acme.Outer) {
    option deprecated = true;
  };
}
)");
}

TEST_CASE("protobuf: normalize orders fields, constants, oneofs and imports, drops proto2's syntax line",
          "[protobuf]") {
  auto s = parse_ok(R"(syntax = "proto2";
package p;
import "google/protobuf/wrappers.proto";
import "google/protobuf/any.proto";
message M {
  optional int32 c = 3;
  required string a = 1;
  oneof o { int32 z = 9; int32 y = 8; }
  oneof first { int32 w = 5; }
  extensions 200 to 300, 100;
  enum E { B = 2; A = 1; Z = 0; }
}
extend M { optional int32 ext = 100; }
)");
  CHECK(s->normalized() == R"(package p;

import "google/protobuf/any.proto";
import "google/protobuf/wrappers.proto";

message M {
  required string a = 1;
  optional int32 c = 3;

  oneof first {
    int32 w = 5;
  }
  oneof o {
    int32 y = 8;
    int32 z = 9;
  }

  extensions 100;
  extensions 200 to 300;

  enum E {
    Z = 0;
    A = 1;
    B = 2;
  }
}

extend .p.M {
  optional int32 ext = 100;
}
)");
  CHECK(s->canonical().find("extensions 200 to 300, 100;") != std::string::npos);
  CHECK(s->canonical().rfind("syntax = \"proto2\";", 0) == 0);
}

TEST_CASE("protobuf: normalize merges the settings of one custom option", "[protobuf]") {
  auto s = parse_ok(R"(syntax = "proto3";
import "confluent/meta.proto";
message M {
  int32 f = 1 [(confluent.field_meta).tags = "a", (confluent.field_meta).tags = "b", (confluent.field_meta).doc = "d"];
})");
  CHECK(s->canonical().find(R"(  int32 f = 1 [
    (confluent.field_meta).tags = "a",
    (confluent.field_meta).tags = "b",
    (confluent.field_meta).doc = "d"
  ];)") != std::string::npos);
  CHECK(s->normalized().find(R"(  int32 f = 1 [(confluent.field_meta) = {
    doc: "d",
    tags: [
      "a",
      "b"
    ]
  }];)") != std::string::npos);
}

TEST_CASE("protobuf: canonical and normalized text parse back to the same descriptor", "[protobuf]") {
  check_round_trip(kSample);
  check_round_trip(R"(syntax = "proto2";
package p.q;
message M {
  required int32 a = 1 [default = -5];
  optional string s = 2 [default = "a\"b\n"];
  optional bytes b = 3 [default = "\001x"];
  optional double d = 4 [default = 1.5];
  optional E e = 5 [default = TWO];
  repeated int32 packed = 6 [packed = true];
  optional group G = 7 { optional int32 x = 1; }
  extensions 100 to max;
  enum E { ONE = 1; TWO = 2; }
  oneof o { string x = 8; group H = 9 { optional int32 y = 1; } }
}
extend M { repeated string tags = 100; }
message N { extend M { optional N back = 101; } }
service S { rpc Call (M) returns (stream N); }
)");
  Ref dep{"dep.proto", "syntax = \"proto3\"; package dep; message D { map<int32, D> children = 1; }"};
  check_round_trip(R"(syntax = "proto3"; import "dep.proto"; import public "google/protobuf/empty.proto";
message Use { dep.D d = 1; map<string, dep.D> m = 2; optional bool flag = 3; repeated bytes raw = 4; }
enum E { option allow_alias = true; A = 0; B = 0; reserved 3 to 5, 9; reserved "X"; })",
                   {dep});
}
