// RegistryService: deletes, config, mode (READONLY, IMPORT), the write
// queue and durability, and replay of what it wrote.
#include <catch2/catch.hpp>

#include "service_fixture.h"

using namespace skiff::schemareg;
using namespace skiff::schemareg::testing;

TEST_CASE("delete a version: soft, then hard, 40406, 40407, 40402", "[schemareg][service][delete]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.reg("a", "x:int y:int=0"));
  CHECK(r.del_version("a", "1", true).error() == errors::version_not_soft_deleted("a", 1));
  CHECK(r.del_version("a", "1", true).error().message ==
        "Subject 'a' Version 1 was not deleted first before being permanently deleted");
  CHECK(*r.del_version("a", "1", false) == 1);
  CHECK(encode(r.log.written.back()).value->find("\"deleted\":true") != std::string::npos);
  const auto again = r.del_version("a", "1", false);
  CHECK(again.error().error_code == 40406);
  CHECK(again.error().message == "Subject 'a' Version 1 was soft deleted.Set permanent=true to delete permanently");
  CHECK(*r.del_version("a", "1", true) == 1);
  CHECK_FALSE(r.log.written.back().key.subject.value_or("").empty());
  CHECK(std::holds_alternative<Tombstone>(r.log.written.back().value));
  CHECK(r.del_version("a", "1", false).error().error_code == 40402);
  CHECK(r.del_version("none", "1", false).error().error_code == 40401);
  CHECK(r.del_version("a", "x", false).error().error_code == 42202);
  CHECK(*r.del_version("a", "latest", false) == 2);
  CHECK(r.svc.get_version("a", "2", true)->deleted);
}

TEST_CASE("delete a subject: soft, then hard, 40404, 40405, its config and mode go too",
          "[schemareg][service][delete]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.reg("a", "x:int y:int=0"));
  REQUIRE(r.put_level("a", "FULL"));
  CHECK(r.del_subject("a", true).error() == errors::subject_not_soft_deleted("a"));
  CHECK(r.del_subject("a", true).error().message ==
        "Subject 'a' was not deleted first before being permanently deleted");
  CHECK(*r.del_subject("a", false) == std::vector<int32_t>{1, 2});
  CHECK(encode(r.log.written.back()).key == R"({"keytype":"DELETE_SUBJECT","subject":"a","magic":0})");
  CHECK(*encode(r.log.written.back()).value == R"({"subject":"a","version":2})");
  CHECK(r.svc.list_subjects("", false, false).empty());
  CHECK(r.del_subject("a", false).error().message ==
        "Subject 'a' was soft deleted.Set permanent=true to delete permanently");
  CHECK(*r.del_subject("a", true) == std::vector<int32_t>{1, 2});
  CHECK(r.svc.get_config(std::string("a"), false).error().error_code == 40408);
  CHECK(r.del_subject("a", true).error() == errors::subject_not_found("a"));
}

TEST_CASE("a referenced schema cannot be deleted (42206)", "[schemareg][service][delete]") {
  Registry r;
  REQUIRE(r.reg("common", "c:int"));
  REQUIRE(r.reg("a", in("ref:C x:int", std::nullopt, {{"C", "common", 1}})));
  const auto e = r.del_version("common", "1", false);
  REQUIRE_FALSE(e);
  CHECK(e.error().error_code == 42206);
  CHECK(e.error().message ==
        "One or more references exist to the schema {magic=1,keytype=SCHEMA,subject=common,version=1}.");
  CHECK(r.del_subject("common", false).error().error_code == 42206);
  REQUIRE(r.del_subject("a", false));
  CHECK(r.del_subject("common", false));  // a soft-deleted referrer no longer holds a soft delete
  CHECK(r.del_subject("common", true).error().error_code == 42206);  // but still a hard one
  REQUIRE(r.del_subject("a", true));
  CHECK(r.del_subject("common", true));
}

TEST_CASE("ids are never reused after a hard delete", "[schemareg][service][delete]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.reg("b", "y:int"));
  REQUIRE(r.del_subject("b", false));
  REQUIRE(r.del_subject("b", true));
  CHECK(r.svc.schema_by_id(2, std::nullopt).error().error_code == 40403);
  CHECK(r.reg("c", "z:int")->id == 3);
  CHECK(r.reg("b", "y:int")->id == 4);
  // Replayed from the log (tombstones included), the next id is the same.
  RegistryService replayed(r.log, parse_fake);
  for (const auto& rec : r.log.written) replayed.apply(rec);
  Registry fresh;
  for (const auto& rec : r.log.written) fresh.svc.apply(rec);
  CHECK(fresh.reg("d", "w:int")->id == 5);
}

TEST_CASE("re-registering a soft-deleted schema: a new version, the old one tombstoned", "[schemareg][service]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.del_version("a", "1", false));
  const auto again = r.reg("a", "x:int");
  REQUIRE(again);
  CHECK(again->id == 1);
  CHECK(again->version == 2);
  REQUIRE(r.log.written.size() >= 2);
  CHECK(encode(r.log.written[r.log.written.size() - 2]).key ==
        R"({"keytype":"SCHEMA","subject":"a","version":1,"magic":1})");
  CHECK(std::holds_alternative<Tombstone>(r.log.written[r.log.written.size() - 2].value));
  CHECK(*r.svc.list_versions("a", true, false) == std::vector<int32_t>{2});
}

TEST_CASE("config: global and subject, defaultToGlobal, 42203, 40408, delete", "[schemareg][service][config]") {
  Registry r;
  CHECK(*r.svc.get_config(std::nullopt, false)->compatibility_level == "BACKWARD");
  const auto bad = r.put_level(std::nullopt, "SIDEWAYS");
  CHECK(bad.error().error_code == 42203);
  CHECK(bad.error().message ==
        "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, "
        "forward_transitive, and full_transitive");
  CHECK(*r.put_level(std::nullopt, "full")->compatibility_level == "FULL");
  CHECK(encode(r.log.written.back()).key == R"({"keytype":"CONFIG","magic":0})");
  CHECK(*encode(r.log.written.back()).value == R"({"compatibilityLevel":"FULL"})");
  CHECK(*r.svc.get_config(std::nullopt, false)->compatibility_level == "FULL");
  const auto none = r.svc.get_config(std::string("a"), false);
  CHECK(none.error().error_code == 40408);
  CHECK(none.error().message == "Subject 'a' does not have subject-level compatibility configured");
  CHECK(*r.svc.get_config(std::string("a"), true)->compatibility_level == "FULL");
  REQUIRE(r.put_level("a", "NONE"));
  CHECK(*encode(r.log.written.back()).value == R"({"subject":"a","compatibilityLevel":"NONE"})");
  CHECK(*r.svc.get_config(std::string("a"), false)->compatibility_level == "NONE");
  CHECK(*r.del_config("a")->compatibility_level == "NONE");
  CHECK(r.del_config("a").error() == errors::subject_not_found("a"));
  CHECK(*r.del_config(std::nullopt)->compatibility_level == "FULL");
  CHECK(*r.svc.get_config(std::nullopt, false)->compatibility_level == "BACKWARD");
  CHECK(r.put_level(std::string("bad\n"), "NONE").error().error_code == 42208);
  REQUIRE(r.put_level(":.ctx:", "FORWARD"));  // a context's level applies to its subjects
  CHECK(*r.svc.get_config(std::string(":.ctx:s"), true)->compatibility_level == "FORWARD");
}

TEST_CASE("READONLY refuses writes with 42205, modes get, put and delete", "[schemareg][service][mode]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  CHECK(*r.svc.get_mode(std::nullopt, false) == Mode::kReadWrite);
  CHECK(r.svc.get_mode(std::string("a"), false).error().message ==
        "Subject 'a' does not have subject-level mode configured");
  CHECK(r.svc.get_mode(std::string("a"), false).error().error_code == 40409);
  CHECK(*r.put_mode(std::nullopt, "readonly") == Mode::kReadOnly);
  CHECK(*encode(r.log.written.back()).value == R"({"mode":"READONLY"})");
  const auto refused = r.reg("a", "x:int y:int=0");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().error_code == 42205);
  CHECK(refused.error().message == "Subject a in context . is in read-only mode");
  CHECK(r.reg("a", "x:int")->id == 1);  // an existing schema is still answered
  CHECK(r.del_version("a", "1", false).error().error_code == 42205);
  CHECK(r.del_subject("a", false).error().error_code == 42205);
  CHECK(r.put_level("a", "NONE").error().error_code == 42205);
  CHECK(*r.svc.get_mode(std::string("a"), true) == Mode::kReadOnly);
  REQUIRE(r.put_mode("a", "READWRITE"));
  CHECK(r.reg("a", "x:int y:int=0"));
  CHECK(*r.del_mode("a") == Mode::kReadWrite);
  CHECK(r.del_mode("a").error().error_code == 40401);
  CHECK(*r.del_mode(std::nullopt) == Mode::kReadOnly);
  const auto invalid = r.put_mode(std::nullopt, "SIDEWAYS");
  CHECK(invalid.error().error_code == 42204);
  CHECK(invalid.error().message == "Invalid mode. Valid values are READWRITE, READONLY, IMPORT and FORWARD.");
  CHECK(r.put_mode("a", "FORWARD").error().message == "Forward mode only supported on global level");
  CHECK(*r.put_mode(":.__GLOBAL:", "FORWARD") == Mode::kForward);
}

TEST_CASE("IMPORT keeps the given ids and versions, and guards them", "[schemareg][service][mode]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  const auto busy = r.put_mode(std::nullopt, "IMPORT");
  CHECK(busy.error().error_code == 42205);
  CHECK(busy.error().message == "Cannot import since found existing subjects");
  SchemaInput with_id = in("y:int");
  with_id.id = 100;
  with_id.version = 5;
  CHECK(r.reg("b", with_id).error().message == "Subject b in context . is not in import mode");
  REQUIRE(r.put_mode("b", "IMPORT"));
  auto imported = r.reg("b", with_id);
  REQUIRE(imported);
  CHECK(imported->id == 100);
  CHECK(imported->version == 5);
  CHECK(r.reg("b", in("q:int")).error().message == "Subject b in context . is not in read-write mode");
  SchemaInput clash = in("other:int");
  clash.id = 100;
  CHECK(r.reg("b", clash).error().message == "Overwrite new schema with id 100 in context . is not permitted.");
  SchemaInput incompatible = in("w:string");  // IMPORT skips the compatibility check
  incompatible.id = 101;
  CHECK(r.reg("b", incompatible)->version == 6);
  REQUIRE(r.put_mode("b", "READWRITE"));
  CHECK(r.reg("c", "z:int")->id == 102);              // after the highest id seen
  REQUIRE(r.put_mode(std::nullopt, "IMPORT", true));  // force: with subjects present
  CHECK(*r.svc.get_mode(std::nullopt, false) == Mode::kImport);
}

TEST_CASE("IMPORT on an empty registry hard-deletes what was soft-deleted", "[schemareg][service][mode]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.del_subject("a", false));
  REQUIRE(r.put_mode(std::nullopt, "IMPORT"));
  const auto n = r.log.written.size();
  CHECK(encode(r.log.written[n - 3]).key == R"({"keytype":"SCHEMA","subject":"a","version":1,"magic":1})");
  CHECK(encode(r.log.written[n - 2]).key == R"({"keytype":"CLEAR_SUBJECT","magic":0})");
  CHECK(r.svc.list_subjects("", true, false).empty());
}

TEST_CASE("writes are serialized and answered only once durable", "[schemareg][service][queue]") {
  Registry r;
  r.log.hold = true;
  Got<SubjectSchema> first, second;
  r.svc.register_schema("a", in("x:int"), false, first.reply());
  r.svc.register_schema("b", in("y:int"), false, second.reply());
  CHECK(r.log.appends == 1);  // the second waits for the first
  CHECK_FALSE(first.value);
  CHECK(r.svc.schema_by_id(1, std::nullopt).error().error_code == 40403);  // not durable: not visible
  r.log.release();
  REQUIRE(first.value);
  CHECK((*first.value)->id == 1);
  CHECK(r.svc.schema_by_id(1, std::nullopt)->schema == "x:int");
  CHECK(r.log.appends == 2);
  CHECK_FALSE(second.value);
  r.log.release();
  REQUIRE(second.value);
  CHECK((*second.value)->id == 2);
}

TEST_CASE("a failed append answers its error and changes nothing", "[schemareg][service][queue]") {
  Registry r;
  r.log.fail_next = true;
  const auto failed = r.reg("a", "x:int");
  REQUIRE_FALSE(failed);
  CHECK(failed.error().error_code == 50001);
  CHECK(failed.error().http_status == 500);
  CHECK(r.svc.list_subjects("", true, false).empty());
  CHECK(r.reg("a", "x:int")->id == 1);
}

TEST_CASE("replaying what the service wrote gives the same answers", "[schemareg][service][replay]") {
  Registry r;
  REQUIRE(r.reg("a", "x:int"));
  REQUIRE(r.reg("a", "x:int y:int=0"));
  REQUIRE(r.reg("b", "x:int"));
  REQUIRE(r.reg(":.ctx:c", "q:int"));
  REQUIRE(r.put_level("a", "FULL"));
  REQUIRE(r.put_mode("b", "READONLY"));
  REQUIRE(r.del_version("a", "1", false));
  REQUIRE(r.reg("d", "z:int"));
  REQUIRE(r.del_subject("d", false));
  REQUIRE(r.del_subject("d", true));
  Registry fresh;
  for (const auto& rec : r.log.written) {
    const auto bytes = encode(rec);  // through the bytes, as a restart reads them
    auto back = decode(bytes.key, bytes.value);
    REQUIRE(back);
    fresh.svc.apply(*back);
  }
  for (auto* reg : {&r, &fresh}) {
    CHECK(reg->svc.list_subjects("", true, false) == std::vector<std::string>{":.ctx:c", "a", "b"});
    CHECK(*reg->svc.list_versions("a", true, false) == std::vector<int32_t>{1, 2});
    CHECK(reg->svc.get_version("a", "1", true)->deleted);
    CHECK(*reg->svc.get_config(std::string("a"), false)->compatibility_level == "FULL");
    CHECK(*reg->svc.get_mode(std::string("b"), false) == Mode::kReadOnly);
    CHECK(*reg->svc.subjects_of_id(1, std::nullopt, true) == std::vector<std::string>{"a", "b"});
    CHECK(reg->svc.contexts() == std::vector<std::string>{".", ".ctx"});
  }
  CHECK(r.reg("e", "n:int")->id == fresh.reg("e", "n:int")->id);
}

TEST_CASE("records written by Confluent and Karapace are served", "[schemareg][service][replay]") {
  Registry r;
  const std::vector<std::pair<std::string, std::optional<std::string>>> topic = {
      {R"({"keytype":"SCHEMA","subject":"c","version":1,"magic":1})",
       R"({"subject":"c","version":1,"id":7,"schemaType":"AVRO","schema":"x:int","deleted":false})"},
      {R"({"subject":"k","version":1,"magic":1,"keytype":"SCHEMA"})",
       R"({"subject":"k","version":1,"id":8,"schema":"y:int","deleted":false})"},
      {R"({"subject":null,"magic":0,"keytype":"CONFIG"})", R"({"compatibilityLevel":"NONE"})"},
      {R"({"keytype":"NOOP","magic":0})", std::nullopt},
      {R"({"subject":"k","magic":0,"keytype":"DELETE_SUBJECT"})", R"({"subject":"k","version":1})"}};
  for (const auto& [key, value] : topic) {
    auto rec = value ? decode(key, std::string_view(*value)) : decode(key, std::nullopt);
    REQUIRE(rec);
    r.svc.apply(*rec);
  }
  CHECK(r.svc.schema_by_id(7, std::nullopt)->subject == "c");
  CHECK(r.svc.get_version("k", "1", false).error().error_code == 40401);
  CHECK(r.svc.get_version("k", "1", true)->id == 8);
  CHECK(*r.svc.get_config(std::nullopt, false)->compatibility_level == "NONE");
  CHECK(r.reg("c", "z:int")->id == 9);  // NONE: no check; after the highest id read
}

TEST_CASE("options: the default level, validateFields and mode mutability", "[schemareg][service][config]") {
  FakeLog log;
  RegistryOptions options;
  options.default_compatibility = CompatibilityLevel::kNone;
  options.validate_fields = true;
  options.mode_mutability = false;
  RegistryService svc(log, parse_fake, options);
  CHECK(*svc.get_config(std::nullopt, false)->compatibility_level == "NONE");
  Got<SubjectSchema> one, two;
  svc.register_schema("a", in("x:int"), false, one.reply());
  svc.register_schema("a", in("y:int"), false, two.reply());  // NONE: no check
  REQUIRE(*two.value);
  CHECK((*two.value)->version == 2);
  Got<ConfigRecord> level;
  svc.put_config(std::string("a"),
                 ConfigRecord{std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                              std::nullopt, std::string("BACKWARD")},
                 level.reply());
  REQUIRE(*level.value);
  const auto check = svc.check_compatibility("a", std::nullopt, in("z:int"), false, true);
  REQUIRE(check);
  CHECK(check->messages.back() == "{validateFields: 'true', compatibility: 'BACKWARD'}");
  Got<Mode> mode;
  svc.put_mode(std::nullopt, "READONLY", false, mode.reply());
  CHECK(mode.value->error().message == "Mode changes are not allowed");
  CHECK(mode.value->error().error_code == 42205);
}

TEST_CASE("a delete tombstones every key form a record was read under", "[schemareg][service][replay]") {
  Registry r;
  const std::vector<std::pair<std::string, std::string>> karapace = {
      {R"({"subject":"k","version":1,"magic":1,"keytype":"SCHEMA"})",
       R"({"subject":"k","version":1,"id":1,"schema":"x:int","deleted":true})"},
      {R"({"subject":"k","magic":0,"keytype":"CONFIG"})", R"({"compatibilityLevel":"NONE"})"},
      {R"({"subject":null,"magic":0,"keytype":"CONFIG"})", R"({"compatibilityLevel":"FULL"})"}};
  for (const auto& [key, value] : karapace) r.svc.apply(*decode(key, std::string_view(value)));
  REQUIRE(r.del_subject("k", true));
  std::vector<std::string> keys;
  for (const auto& rec : r.log.written) {
    CHECK(std::holds_alternative<Tombstone>(rec.value));
    keys.push_back(encode(rec).key);
  }
  CHECK(keys == std::vector<std::string>{R"({"keytype":"SCHEMA","subject":"k","version":1,"magic":1})",
                                         R"({"subject":"k","version":1,"magic":1,"keytype":"SCHEMA"})",
                                         R"({"keytype":"CONFIG","subject":"k","magic":0})",
                                         R"({"subject":"k","magic":0,"keytype":"CONFIG"})"});
  REQUIRE(r.del_config(std::nullopt));
  CHECK(encode(r.log.written.back()).key == R"({"subject":null,"magic":0,"keytype":"CONFIG"})");
  CHECK(*r.svc.get_config(std::nullopt, false)->compatibility_level == "BACKWARD");
  r.log.written.clear();
  REQUIRE(r.del_config(std::nullopt));  // the legacy form is gone: one tombstone now
  CHECK(r.log.written.size() == 1);
}

TEST_CASE("scopes: a context's top level, then the .__GLOBAL context's", "[schemareg][service][config]") {
  Registry r;
  REQUIRE(r.put_level(":.__GLOBAL:", "FULL"));
  CHECK(*r.svc.get_config(std::string(":.other:s"), true)->compatibility_level == "FULL");
  CHECK(*r.svc.get_config(std::string("s"), true)->compatibility_level == "FULL");
  REQUIRE(r.put_level(std::nullopt, "NONE"));
  CHECK(*r.svc.get_config(std::string("s"), true)->compatibility_level == "NONE");
  CHECK(*r.svc.get_config(std::string(":.other:s"), true)->compatibility_level == "FULL");
  ConfigRecord only_normalize;
  only_normalize.normalize = true;
  Got<ConfigRecord> got;
  r.svc.put_config(std::string("n"), only_normalize, got.reply());
  REQUIRE(*got.value);
  // Without a level of its own a config shows the default one (Confluent's populateCompatibilityLevel).
  CHECK(*r.svc.get_config(std::string("n"), false)->compatibility_level == "BACKWARD");

  REQUIRE(r.put_mode(std::nullopt, "READONLY"));  // the default context's top level only
  CHECK(r.reg("a", "x:int").error().error_code == 42205);
  CHECK(r.reg(":.ctx:a", "x:int"));
  REQUIRE(r.put_mode(":.__GLOBAL:", "READONLY"));
  CHECK(r.reg(":.ctx:b", "y:int").error().error_code == 42205);
  REQUIRE(r.put_mode(":.ctx:", "READWRITE"));  // the context's own top level comes first
  CHECK(r.reg(":.ctx:b", "y:int"));
}
