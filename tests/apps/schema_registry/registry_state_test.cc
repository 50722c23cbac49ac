// RegistryState: what replaying `_schemas` builds, record by record.
#include "apps/schema_registry/registry_state.h"

#include <catch2/catch.hpp>

using namespace skiff::schemareg;
using skiff::schema::SchemaType;

namespace {

Record schema_rec(const std::string& subject, int32_t version, int32_t id, const std::string& text,
                  bool deleted = false, std::vector<skiff::schema::SchemaReference> refs = {}) {
  return {schema_key(subject, version), SchemaRecord{subject, version, id, SchemaType::kAvro, std::move(refs),
                                                     std::nullopt, std::nullopt, text, deleted}};
}

Record tombstone(const std::string& subject, int32_t version) { return {schema_key(subject, version), Tombstone{}}; }

}  // namespace

TEST_CASE("subjects, versions and ids from schema records", "[schemareg][state]") {
  RegistryState s;
  s.apply(schema_rec("a", 1, 1, "x"));
  s.apply(schema_rec("a", 2, 2, "y"));
  s.apply(schema_rec("b", 1, 1, "x"));
  CHECK(s.subjects(false) == std::vector<std::string>{"a", "b"});
  CHECK(s.latest("a", false)->id == 2);
  CHECK(s.by_id(".", 1)->schema == "x");
  CHECK(s.versions_of_id(".", 1) == std::vector<SubjectVersionKey>{{"a", 1}, {"b", 1}});
  CHECK(s.next_id(".") == 3);
  CHECK(s.find_id(".", SchemaType::kAvro, "y", {}) == 2);
  CHECK_FALSE(s.find_id(".", SchemaType::kJson, "y", {}));
  CHECK(s.schemas_in(".").size() == 2);
}

TEST_CASE("a soft delete keeps the version, a tombstone removes it, never the id's high mark", "[schemareg][state]") {
  RegistryState s;
  s.apply(schema_rec("a", 1, 7, "x"));
  s.apply(schema_rec("a", 1, 7, "x", true));
  CHECK_FALSE(s.has_subject("a", false));
  CHECK(s.has_subject("a", true));
  CHECK(s.subjects(true) == std::vector<std::string>{"a"});
  CHECK(s.by_id(".", 7) != nullptr);
  s.apply(tombstone("a", 1));
  CHECK_FALSE(s.has_subject("a", true));
  CHECK(s.by_id(".", 7) == nullptr);
  CHECK_FALSE(s.find_id(".", SchemaType::kAvro, "x", {}));
  CHECK(s.next_id(".") == 8);
  s.apply(tombstone("nothing", 3));  // a tombstone for what is not there changes nothing
  CHECK(s.next_id(".") == 8);
}

TEST_CASE("DELETE_SUBJECT soft-deletes up to its version, CLEAR_SUBJECT drops the soft-deleted", "[schemareg][state]") {
  RegistryState s;
  for (int v = 1; v <= 3; ++v) s.apply(schema_rec("a", v, v, "t" + std::to_string(v)));
  s.apply({delete_subject_key("a"), DeleteSubjectRecord{"a", 2}});
  CHECK(s.version("a", 1)->deleted);
  CHECK(s.version("a", 2)->deleted);
  CHECK_FALSE(s.version("a", 3)->deleted);
  s.apply({clear_subject_key("a"), ClearSubjectRecord{"a"}});
  CHECK(s.version("a", 1) == nullptr);
  CHECK(s.version("a", 3) != nullptr);
  CHECK(s.next_id(".") == 4);
}

TEST_CASE("contexts: ids per context, references read in the referrer's context", "[schemareg][state]") {
  CHECK(context_of("a") == ".");
  CHECK(context_of(":.ctx:a") == ".ctx");
  CHECK(context_of(":.ctx:") == ".ctx");
  CHECK(context_of(":.:a") == ".");
  CHECK(normalize_subject(":.:a") == "a");
  CHECK(qualify_with_parent(":.ctx:a", "b") == ":.ctx:b");
  CHECK(qualify_with_parent("a", "b") == "b");
  CHECK(qualify_with_parent(":.ctx:a", ":.other:b") == ":.other:b");
  CHECK(context_prefix(".ctx") == ":.ctx:");

  RegistryState s;
  s.apply(schema_rec("a", 1, 1, "x"));
  s.apply(schema_rec(":.ctx:b", 1, 1, "y"));
  s.apply(schema_rec(":.ctx:c", 1, 2, "z", false, {{"B", "b", 1}}));
  CHECK(s.by_id(".", 1)->schema == "x");
  CHECK(s.by_id(".ctx", 1)->schema == "y");
  CHECK(s.next_id(".ctx") == 3);
  CHECK(s.next_id(".") == 2);
  CHECK(s.referrers(":.ctx:b", 1) == std::vector<SubjectVersionKey>{{":.ctx:c", 1}});
  CHECK(s.referrers("b", 1).empty());
  s.apply({context_key(".empty"), ContextRecord{".empty"}});
  CHECK(s.context_declared(".empty"));
  CHECK(s.contexts() == std::vector<std::string>{".", ".ctx", ".empty"});
  s.apply(tombstone(":.ctx:c", 1));
  CHECK(s.referrers(":.ctx:b", 1).empty());
}

TEST_CASE("configs and modes, global and per subject, set and deleted", "[schemareg][state]") {
  RegistryState s;
  ConfigRecord full;
  full.compatibility_level = "FULL";
  s.apply({config_key(std::nullopt), full});
  ConfigRecord none;
  none.subject = "a";
  none.compatibility_level = "NONE";
  s.apply({config_key("a"), none});
  CHECK(*s.config(std::nullopt)->compatibility_level == "FULL");
  CHECK(*s.config(std::string("a"))->compatibility_level == "NONE");
  s.apply({config_key("a"), Tombstone{}});
  CHECK(s.config(std::string("a")) == nullptr);
  s.apply({mode_key(std::nullopt), ModeRecord{std::nullopt, "READONLY"}});
  s.apply({mode_key("a"), ModeRecord{"a", "IMPORT"}});
  CHECK(s.mode(std::nullopt) == Mode::kReadOnly);
  CHECK(s.mode(std::string("a")) == Mode::kImport);
  s.apply({mode_key(std::nullopt), Tombstone{}});
  CHECK_FALSE(s.mode(std::nullopt));
  s.apply({noop_key(), Tombstone{}});
  CHECK(s.mode(std::string("a")) == Mode::kImport);
}

TEST_CASE("replaying the same records twice gives the same state", "[schemareg][state]") {
  std::vector<Record> log = {schema_rec("a", 1, 1, "x"), schema_rec("b", 1, 2, "y"),
                             schema_rec("a", 2, 2, "y"), {delete_subject_key("b"), DeleteSubjectRecord{"b", 1}},
                             tombstone("b", 1),          schema_rec("c", 1, 3, "z")};
  RegistryState one, two;
  for (const auto& r : log) one.apply(r);
  for (const auto& r : log) two.apply(r);
  for (auto* s : {&one, &two}) {
    CHECK(s->subjects(true) == std::vector<std::string>{"a", "c"});
    CHECK(s->versions_of_id(".", 2) == std::vector<SubjectVersionKey>{{"a", 2}});
    CHECK(s->next_id(".") == 4);
  }
}
