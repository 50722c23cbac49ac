// RegistryService: registration and the reads, with Confluent's answers and
// error codes, on the fake format and log.
#include <catch2/catch.hpp>

#include "service_fixture.h"

using namespace skiff::schemareg;
using namespace skiff::schemareg::testing;

TEST_CASE("register: ids and versions, the same schema keeps its id", "[schemareg][service]") {
  Registry r;
  auto a1 = r.reg("a", "x:int");
  REQUIRE(a1);
  CHECK(a1->id == 1);
  CHECK(a1->version == 1);
  CHECK(a1->schema == "x:int");
  CHECK(r.log.appends == 1);

  auto again = r.reg("a", "x:int   ");  // same canonical text: the existing version, nothing written
  REQUIRE(again);
  CHECK(again->id == 1);
  CHECK(again->version == 1);
  CHECK(r.log.appends == 1);

  auto b1 = r.reg("b", "x:int");  // another subject: same id, its own version
  REQUIRE(b1);
  CHECK(b1->id == 1);
  CHECK(b1->version == 1);

  auto a2 = r.reg("a", "x:int y:int=0");
  REQUIRE(a2);
  CHECK(a2->id == 2);
  CHECK(a2->version == 2);
  CHECK(r.log.written.back().key.type == KeyType::kSchema);
  CHECK(encode(r.log.written.back()).key == R"({"keytype":"SCHEMA","subject":"a","version":2,"magic":1})");
}

TEST_CASE("register: an incompatible schema is 409 with Confluent's details", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  auto bad = r.reg("a", "x:int y:int");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().http_status == 409);
  CHECK(bad.error().error_code == 409);
  CHECK(bad.error().message ==
        "Schema being registered is incompatible with an earlier schema for subject \"a\", details: "
        "[{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'y' at path '/fields/1' in the new "
        "schema has no default value and is missing in the old schema', additionalInfo:'y'}, {oldSchemaVersion: 1}, "
        "{oldSchema: 'x:int'}, {validateFields: 'false', compatibility: 'BACKWARD'}]");
  CHECK(r.log.appends == 1);
  REQUIRE(r.put_level("a", "none"));
  CHECK(r.reg("a", "x:int y:int"));
}

TEST_CASE("register: invalid schemas and subjects", "[schemareg][service]") {
  Registry r;
  auto bad = r.reg("a", "nocolon");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().error_code == 42201);
  CHECK(bad.error().http_status == 422);
  CHECK(bad.error().message ==
        "Invalid schema {subject=a,version=0,id=-1,schemaType=AVRO,references=[],metadata=null,ruleSet=null,"
        "schema=nocolon} with refs [] of type AVRO, details: bad field 'nocolon'");
  auto type = r.reg("a", in("x:int", "XML"));
  REQUIRE_FALSE(type);
  CHECK(type.error().message == "Invalid schema type XML");
  CHECK(r.reg("a", "  ").error().message == "Empty schema");
  auto subject = r.reg("", "x:int");
  REQUIRE_FALSE(subject);
  CHECK(subject.error().error_code == 42208);
  CHECK(subject.error().message == "The specified subject '' is not a valid.");
  for (const std::string bad_subject :
       {"__GLOBAL", "*", "a\x01", "a\xc2\x85", ":.ctx:", ":.__GLOBAL:a", ":.x:__EMPTY"}) {
    CHECK(r.reg(bad_subject, "x:int").error().error_code == 42208);
  }
  CHECK(r.put_level(std::string("__GLOBAL"), "NONE").error().error_code == 42208);
  CHECK(r.log.appends == 0);
  CHECK(r.reg("a\xc3\xa9", "x:int"));  // not a control character
}

TEST_CASE("get a version: latest, -1, numbers, 40401, 40402, 42202", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.reg("a", "x:int y:int=1"));
  CHECK(r.svc.get_version("a", "latest", false)->version == 2);
  CHECK(r.svc.get_version("a", "-1", false)->version == 2);
  CHECK(r.svc.get_version("a", "1", false)->schema == "x:int");
  CHECK(r.svc.get_version("nope", "1", false).error() == errors::subject_not_found("nope"));
  CHECK(r.svc.get_version("nope", "1", false).error().message == "Subject 'nope' not found.");
  CHECK(r.svc.get_version("a", "3", false).error().message == "Version 3 not found.");
  CHECK(r.svc.get_version("a", "3", false).error().error_code == 40402);
  for (const char* v : {"0", "abc", "-2", "2147483648", ""}) {
    const auto e = r.svc.get_version("a", v, false);
    REQUIRE_FALSE(e);
    CHECK(e.error().error_code == 42202);
  }
  CHECK(r.svc.get_version("a", "x", false).error().message ==
        "The specified version 'x' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "
        "\"latest\"");
}

TEST_CASE("schemas by id: the schema, its subjects and versions, 40403", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.reg("b", "x:int"));
  REQUIRE(r.reg("b", "x:int z:int=3"));
  CHECK(r.svc.schema_by_id(1, std::nullopt)->schema == "x:int");
  const auto missing = r.svc.schema_by_id(99, std::nullopt);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().error_code == 40403);
  CHECK(missing.error().message == "Schema 99 not found");
  CHECK(*r.svc.subjects_of_id(1, std::nullopt, false) == std::vector<std::string>{"a", "b"});
  const auto versions = *r.svc.versions_of_id(1, std::nullopt, false);
  REQUIRE(versions.size() == 2);
  CHECK(versions[1].subject == "b");
  CHECK(versions[1].version == 1);
  CHECK(r.svc.subjects_of_id(99, std::nullopt, false).error().message == "Schema not found");
  CHECK(RegistryService::schema_types() == std::vector<std::string>{"AVRO", "JSON", "PROTOBUF"});
}

TEST_CASE("lists: subjects, versions and schemas, with prefixes and deleted", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("app-a", "x:int"));
  REQUIRE(r.reg("app-b", "y:int"));
  REQUIRE(r.reg("other", "z:int"));
  REQUIRE(r.reg("other", "z:int w:int=0"));
  REQUIRE(r.del_version("other", "1", false));
  CHECK(r.svc.list_subjects("", false, false) == std::vector<std::string>{"app-a", "app-b", "other"});
  CHECK(r.svc.list_subjects("app-", false, false) == std::vector<std::string>{"app-a", "app-b"});
  CHECK(r.svc.list_subjects("", false, true) == std::vector<std::string>{"other"});
  CHECK(*r.svc.list_versions("other", false, false) == std::vector<int32_t>{2});
  CHECK(*r.svc.list_versions("other", true, false) == std::vector<int32_t>{1, 2});
  CHECK(*r.svc.list_versions("other", false, true) == std::vector<int32_t>{1});
  CHECK(r.svc.list_versions("none", false, false).error().error_code == 40401);
  CHECK(r.svc.list_schemas("", false, false).size() == 3);
  CHECK(r.svc.list_schemas("", true, false).size() == 4);
  CHECK(r.svc.list_schemas("other", true, true).front().version == 2);
}

TEST_CASE("lookup: the version holding a schema, deleted ones on request", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.reg("a", "x:int y:int=0"));
  CHECK(r.svc.lookup("a", in("x:int"), false, false)->version == 1);
  CHECK(r.svc.lookup("a", in("y:int=0 x:int"), false, false).error() == errors::schema_not_found());
  CHECK(r.svc.lookup("a", in("y:int=0 x:int"), true, false)->version == 2);  // normalize: same sorted form
  CHECK(r.svc.lookup("b", in("x:int"), false, false).error().error_code == 40401);
  CHECK(r.svc.lookup("a", in("bad"), false, false).error().error_code == 42201);
  CHECK(r.svc.lookup("a", in("x:int", "JSON"), false, false).error().error_code == 40403);
  REQUIRE(r.del_version("a", "1", false));
  CHECK(r.svc.lookup("a", in("x:int"), false, false).error().error_code == 40403);
  CHECK(r.svc.lookup("a", in("x:int"), false, true)->version == 1);
}

TEST_CASE("normalize: the normalized text is stored and found", "[schemareg][service]") {
  Registry r;
  auto n = r.reg("a", in("b:int=0 a:int"), true);
  REQUIRE(n);
  CHECK(n->schema == "a:int b:int=0");
  CHECK(r.reg("a", in("a:int b:int=0"))->version == 1);
  ConfigRecord c;
  c.normalize = true;
  Got<ConfigRecord> got;
  r.svc.put_config(std::string("n"), c, got.reply());
  REQUIRE(*got.value);
  CHECK(r.reg("n", in("y:int x:int"))->schema == "x:int y:int");
}

TEST_CASE("references: resolved for the parser, referencedby, missing ones refused", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("common", "c:int"));
  auto a = r.reg("a", in("ref:Common x:int", std::nullopt, {{"Common", "common", 1}}));
  REQUIRE(a);
  CHECK(a->id == 2);
  CHECK(a->references.size() == 1);
  CHECK(*r.svc.referenced_by("common", "1", false) == std::vector<int32_t>{2});
  CHECK(r.svc.referenced_by("common", "latest", false)->size() == 1);
  CHECK(r.svc.referenced_by("common", "2", false).error().error_code == 40402);
  auto missing = r.reg("b", in("ref:Gone x:int", std::nullopt, {{"Gone", "gone", 1}}));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().error_code == 42201);
  CHECK(missing.error().message.find("details: No schema reference found for subject \"gone\" and version 1") !=
        std::string::npos);
  auto unresolved = r.reg("b", in("ref:Other x:int"));
  CHECK(unresolved.error().message.find("details: unresolved reference Other") != std::string::npos);
  // The same text with other references is another schema: a new id.
  REQUIRE(r.reg("common2", "c:int"));
  auto other = r.reg("a2", in("ref:Common x:int", std::nullopt, {{"Common", "common2", 1}}));
  REQUIRE(other);
  CHECK(other->id == 3);
}

TEST_CASE("compatibility checks: one version or all, verbose or not", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.put_level("a", "NONE"));
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.reg("a", "y:int"));
  REQUIRE(r.put_level("a", "BACKWARD_TRANSITIVE"));
  const auto one = r.svc.check_compatibility("a", std::string("2"), in("y:int"), false, true);
  REQUIRE(one);
  CHECK(one->is_compatible);
  CHECK(one->messages.empty());
  const auto all = r.svc.check_compatibility("a", std::nullopt, in("y:int"), false, true);
  REQUIRE(all);
  CHECK_FALSE(all->is_compatible);
  REQUIRE(all->messages.size() == 4);
  CHECK(all->messages[1] == "{oldSchemaVersion: 1}");
  CHECK(all->messages[3] == "{validateFields: 'false', compatibility: 'BACKWARD_TRANSITIVE'}");
  const auto quiet = r.svc.check_compatibility("a", std::nullopt, in("y:int"), false, false);
  CHECK_FALSE(quiet->is_compatible);
  CHECK(quiet->messages.empty());
  CHECK(r.svc.check_compatibility("a", std::string("9"), in("y:int"), false, true).error().error_code == 40402);
  CHECK(r.svc.check_compatibility("a", std::string("x"), in("y:int"), false, true).error().error_code == 42202);
  CHECK(r.svc.check_compatibility("new", std::string("latest"), in("y:int"), false, true)->is_compatible);
  CHECK(r.svc.check_compatibility("a", std::nullopt, in("bad"), false, false).error().error_code == 42201);
  const auto verbose_bad = r.svc.check_compatibility("a", std::nullopt, in("bad"), false, true);
  REQUIRE(verbose_bad);
  CHECK_FALSE(verbose_bad->is_compatible);
  CHECK(verbose_bad->messages.size() == 1);
}

TEST_CASE("contexts: ids per context, qualified subjects, the subject parameter", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  auto q = r.reg(":.ctx:a", "q:int");
  REQUIRE(q);
  CHECK(q->id == 1);
  const auto n = r.log.written.size();
  CHECK(encode(r.log.written[n - 2]).key == R"({"keytype":"CONTEXT","tenant":"default","context":".ctx","magic":0})");
  CHECK(r.reg(":.ctx:b", "r:int")->id == 2);
  CHECK(r.log.written.size() == n + 1);  // the context is saved once
  CHECK(r.svc.max_id(std::string(":.ctx:b")) == 2);
  CHECK(r.svc.max_id(std::nullopt) == 1);
  CHECK(r.reg("b", "r:int")->id == 2);  // the default context's next id
  CHECK(r.svc.schema_by_id(1, std::nullopt)->schema == "x:int");
  CHECK(r.svc.schema_by_id(1, std::string(":.ctx:anything"))->schema == "q:int");
  CHECK(r.svc.contexts() == std::vector<std::string>{".", ".ctx"});
  // An unqualified subject finds the id under the same name in another context.
  CHECK(r.svc.schema_by_id(2, std::string("b"))->subject == "b");
  CHECK(r.svc.schema_by_id(1, std::string("a"))->schema == "x:int");
  CHECK(r.svc.schema_by_id(1, std::string("a"))->subject == "a");
  REQUIRE(r.reg(":.ctx:only", "o:int"));
  CHECK(r.svc.schema_by_id(3, std::string("only"))->subject == ":.ctx:only");
  CHECK(*r.svc.subjects_of_id(3, std::string("only"), false) == std::vector<std::string>{":.ctx:only"});
  CHECK(r.svc.schema_by_id(3, std::nullopt).error().error_code == 40403);
  CHECK(r.reg(":.:c", "x:int")->subject == "c");  // the default context written out
  CHECK(r.svc.get_version(":.ctx:a", "1", false)->schema == "q:int");
}

TEST_CASE("a stored version is parsed once for many checks", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  const auto before = fake_parse_count();
  for (int i = 0; i < 5; ++i) {
    CHECK(r.svc.check_compatibility("a", std::string("1"), in("x:int y:int=0"), false, false)->is_compatible);
  }
  CHECK(fake_parse_count() - before <= 2);  // the candidate and version 1, once each
}

TEST_CASE("ParseCache: parse errors are not kept, the bound starts over", "[schemareg][service]") {
  ParseCache cache(parse_fake, 2);
  CHECK_FALSE(cache.parse({skiff::schema::SchemaType::kAvro, "bad", {}, {}}));
  CHECK(cache.size() == 0);
  const auto a = cache.parse({skiff::schema::SchemaType::kAvro, "a:int", {}, {}});
  REQUIRE(a);
  CHECK(cache.parse({skiff::schema::SchemaType::kAvro, "a:int", {}, {}})->get() == a->get());
  CHECK(cache.parse({skiff::schema::SchemaType::kJson, "a:int", {}, {}})->get() != a->get());
  CHECK(cache.size() == 2);
  REQUIRE(cache.parse({skiff::schema::SchemaType::kAvro, "b:int", {}, {}}));
  CHECK(cache.size() == 1);
}
