// The `_schemas` record codec against the bytes Confluent's registry writes
// (its Jackson classes, checked with RecordOrder.java in this folder) and
// the records Karapace writes.
#include "apps/schema_registry/schemas_records.h"

#include <catch2/catch.hpp>

using namespace skiff::schemareg;
using skiff::schema::SchemaType;

TEST_CASE("keys are written byte for byte as Confluent's", "[schemareg][records]") {
  CHECK(encode_key(schema_key("s", 1)) == R"({"keytype":"SCHEMA","subject":"s","version":1,"magic":1})");
  CHECK(encode_key(config_key("s")) == R"({"keytype":"CONFIG","subject":"s","magic":0})");
  CHECK(encode_key(config_key(std::nullopt)) == R"({"keytype":"CONFIG","magic":0})");
  CHECK(encode_key(mode_key("s")) == R"({"keytype":"MODE","subject":"s","magic":0})");
  CHECK(encode_key(mode_key(std::nullopt)) == R"({"keytype":"MODE","magic":0})");
  CHECK(encode_key(delete_subject_key("s")) == R"({"keytype":"DELETE_SUBJECT","subject":"s","magic":0})");
  CHECK(encode_key(clear_subject_key("s")) == R"({"keytype":"CLEAR_SUBJECT","subject":"s","magic":0})");
  CHECK(encode_key(noop_key()) == R"({"keytype":"NOOP","magic":0})");
  CHECK(encode_key(context_key(".ctx")) == R"({"keytype":"CONTEXT","tenant":"default","context":".ctx","magic":0})");
  CHECK(encode_key(schema_key(":.ctx:a\"b", 7)) ==
        R"({"keytype":"SCHEMA","subject":":.ctx:a\"b","version":7,"magic":1})");
}

TEST_CASE("a schema value is written as Confluent's SchemaValue", "[schemareg][records]") {
  SchemaRecord s;
  s.subject = "s";
  s.version = 1;
  s.id = 1;
  s.schema = "\"string\"";
  CHECK(*encode_value(s) ==
        R"({"subject":"s","version":1,"id":1,"schemaType":"AVRO","schema":"\"string\"","deleted":false})");

  s.version = 2;
  s.id = 2;
  s.type = SchemaType::kProtobuf;
  s.references = {{"n", "r", 1}};
  s.schema = "syntax = \"proto3\";\nmessage M {}\t";
  s.deleted = true;
  CHECK(
      *encode_value(s) ==
      R"({"subject":"s","version":2,"id":2,"schemaType":"PROTOBUF","references":[{"name":"n","subject":"r","version":1}],)"
      R"("schema":"syntax = \"proto3\";\nmessage M {}\t","deleted":true})");

  s.references.clear();
  s.metadata = RawJson{R"({"properties":{"owner":"bob"}})"};
  s.rule_set = RawJson{R"({"domainRules":[]})"};
  s.schema = std::string("a\x01\x7f\xc3\xa9/b");
  CHECK(*encode_value(s) ==
        "{\"subject\":\"s\",\"version\":2,\"id\":2,\"schemaType\":\"PROTOBUF\","
        "\"metadata\":{\"properties\":{\"owner\":\"bob\"}},\"ruleSet\":{\"domainRules\":[]},"
        "\"schema\":\"a\\u0001\x7f\xc3\xa9/b\",\"deleted\":true}");
}

TEST_CASE("config, mode, delete and clear values are written as Confluent's", "[schemareg][records]") {
  ConfigRecord c;
  c.subject = "s";
  c.compatibility_level = "FULL_TRANSITIVE";
  CHECK(*encode_value(c) == R"({"subject":"s","compatibilityLevel":"FULL_TRANSITIVE"})");
  ConfigRecord g;
  g.normalize = true;
  g.compatibility_level = "FULL";
  g.compatibility_group = "app";
  g.validate_fields = false;
  CHECK(*encode_value(g) ==
        R"({"normalize":true,"validateFields":false,"compatibilityLevel":"FULL","compatibilityGroup":"app"})");
  CHECK(*encode_value(ModeRecord{"s", "READONLY"}) == R"({"subject":"s","mode":"READONLY"})");
  CHECK(*encode_value(ModeRecord{std::nullopt, "IMPORT"}) == R"({"mode":"IMPORT"})");
  CHECK(*encode_value(DeleteSubjectRecord{"s", 3}) == R"({"subject":"s","version":3})");
  CHECK(*encode_value(ClearSubjectRecord{"s"}) == R"({"subject":"s"})");
  CHECK(*encode_value(ContextRecord{".ctx"}) == R"({"tenant":"default","context":".ctx"})");
  CHECK_FALSE(encode_value(Tombstone{}).has_value());
}

TEST_CASE("what is written decodes to the same record", "[schemareg][records]") {
  SchemaRecord s{
      "s", 4, 9, SchemaType::kJson, {{"a.json", "a", 2}}, RawJson{"{}"}, std::nullopt, "{\"type\":\"object\"}", false};
  const auto bytes = encode(Record{schema_key("s", 4), s});
  auto back = decode(bytes.key, bytes.value);
  REQUIRE(back);
  CHECK(back->key.type == KeyType::kSchema);
  CHECK(back->key.version == 4);
  const auto& v = std::get<SchemaRecord>(back->value);
  CHECK(v.id == 9);
  CHECK(v.type == SchemaType::kJson);
  REQUIRE(v.references.size() == 1);
  CHECK(v.references[0].subject == "a");
  CHECK(v.metadata->text == "{}");
  CHECK(*encode_value(v) == *bytes.value);
}

TEST_CASE("Karapace's records are read: other key order, missing members", "[schemareg][records]") {
  auto key = decode_key(R"({"subject":"test","version":1,"magic":1,"keytype":"SCHEMA"})");
  REQUIRE(key);
  CHECK(key->type == KeyType::kSchema);
  CHECK(*key->subject == "test");
  CHECK(key->version == 1);
  CHECK(key->raw == R"({"subject":"test","version":1,"magic":1,"keytype":"SCHEMA"})");
  CHECK(encode_key(*key) == key->raw);  // written back as read, so a tombstone compacts it
  auto canonical = *key;
  canonical.raw.clear();
  CHECK(encode_key(canonical) == R"({"keytype":"SCHEMA","subject":"test","version":1,"magic":1})");
  CHECK(decode_key(R"({"keytype":"SCHEMA","subject":"test","version":1,"magic":1})")->raw.empty());
  CHECK(decode_key(R"({"keytype":"CONFIG","subject":null,"magic":0})")->raw ==
        R"({"keytype":"CONFIG","subject":null,"magic":0})");

  // Karapace: no schemaType for Avro, "deleted" present, members in its order.
  auto rec = decode(R"({"subject":"test","version":1,"magic":1,"keytype":"SCHEMA"})",
                    std::string_view(R"({"subject":"test","version":1,"id":5,"schema":"\"int\"","deleted":false})"));
  REQUIRE(rec);
  const auto& s = std::get<SchemaRecord>(rec->value);
  CHECK(s.type == SchemaType::kAvro);
  CHECK(s.id == 5);
  CHECK(s.schema == "\"int\"");

  auto global =
      decode(R"({"subject":null,"magic":0,"keytype":"CONFIG"})", std::string_view(R"({"compatibilityLevel":"NONE"})"));
  REQUIRE(global);
  CHECK_FALSE(global->key.subject.has_value());
  CHECK(*std::get<ConfigRecord>(global->value).compatibility_level == "NONE");

  auto del = decode(R"({"subject":"test","magic":0,"keytype":"DELETE_SUBJECT"})",
                    std::string_view(R"({"subject":"test","version":2})"));
  REQUIRE(del);
  CHECK(std::get<DeleteSubjectRecord>(del->value).version == 2);

  auto noop = decode(R"({"keytype":"NOOP","magic":0})", std::nullopt);
  REQUIRE(noop);
  CHECK(noop->key.type == KeyType::kNoop);
}

TEST_CASE("a null value is a tombstone, Confluent's other key types are kept", "[schemareg][records]") {
  auto hard = decode(R"({"keytype":"SCHEMA","subject":"s","version":1,"magic":1})", std::nullopt);
  REQUIRE(hard);
  CHECK(std::holds_alternative<Tombstone>(hard->value));
  auto empty = decode(R"({"keytype":"CONFIG","subject":"s","magic":0})", std::string_view(""));
  REQUIRE(empty);
  CHECK(std::holds_alternative<Tombstone>(empty->value));
  auto ctx = decode(R"({"keytype":"CONTEXT","tenant":"default","context":".ctx"})",
                    std::string_view(R"({"tenant":"default","context":".ctx"})"));
  REQUIRE(ctx);
  CHECK(ctx->key.type == KeyType::kContext);
  CHECK(ctx->key.context == ".ctx");
  CHECK(std::get<ContextRecord>(ctx->value).context == ".ctx");
  auto assoc = decode(R"({"keytype":"ASSOC","tenant":"default","subject":"s","magic":0})", std::string_view("{}"));
  REQUIRE(assoc);
  CHECK(assoc->key.type == KeyType::kOther);
  auto extra = decode(R"({"keytype":"MODE","subject":"s","magic":0,"future":[1,2]})",
                      std::string_view(R"({"subject":"s","mode":"READONLY","offset":12,"ts":1})"));
  REQUIRE(extra);
  CHECK(std::get<ModeRecord>(extra->value).mode == "READONLY");
}

TEST_CASE("records that are not Confluent's are refused", "[schemareg][records]") {
  CHECK_FALSE(decode_key("not json"));
  CHECK_FALSE(decode_key("[1]"));
  CHECK_FALSE(decode_key(R"({"subject":"s"})"));
  CHECK(decode_key(R"({"keytype":"WHAT","magic":0})").error().message == "Unknown schema registry key type : WHAT");
  CHECK(decode_key(R"({"keytype":"SCHEMA","subject":"s","version":1,"magic":2})").error().message ==
        "Can't deserialize schema for the magic byte 2");
  CHECK_FALSE(decode_key(R"({"keytype":"SCHEMA","subject":"s","magic":1})"));
  CHECK_FALSE(decode_key(R"({"keytype":"SCHEMA","subject":"s","version":99999999999,"magic":1})"));
  const auto key = schema_key("s", 1);
  CHECK_FALSE(decode_value(key, std::string_view(R"({"subject":"s","version":1,"schema":"x"})")));
  CHECK_FALSE(decode_value(key, std::string_view(R"({"id":1,"schema":"x","schemaType":"XML"})")));
  CHECK_FALSE(decode_value(key, std::string_view(R"({"id":1,"schema":"x","references":[{"name":"a"}]})")));
  CHECK_FALSE(decode_value(mode_key("s"), std::string_view(R"({"subject":"s"})")));
  CHECK_FALSE(decode_value(key, std::string_view(std::string(100, '['))));
}
