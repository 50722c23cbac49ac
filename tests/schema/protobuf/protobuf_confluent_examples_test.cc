// Confluent's own protobuf diff cases against compare_schemas
// (schema/protobuf/proto_diff.h). Confluent's repository keeps them in
// protobuf-provider/src/test/resources/diff-schema-examples.json (and
// diff-schema-examples-with-meta.json): each an original and an update
// schema with their references, every difference Confluent finds
// ("TYPE #/path") and its verdict. They are not vendored here; point
// SKIFF_PROTOBUF_DIFF_EXAMPLES at a copy (colon-separated for several):
//   git -C <schema-registry clone> show HEAD:protobuf-provider/src/test/resources/diff-schema-examples.json >
//   /tmp/ex.json SKIFF_PROTOBUF_DIFF_EXAMPLES=/tmp/ex.json build/tests/schema/protobuf/schema_protobuf_tests
//   '[confluent]'
// Without it the test is skipped. A case whose schema names a file of
// Confluent's test resources instead of holding its text is skipped too.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/json.h"
#include "protobuf_test_util.h"
#include "schema/protobuf/proto_diff.h"
#include "tests/support/skip.h"

using namespace skiff::schema;
using namespace skiff::schema::test;

namespace {

std::vector<Ref> refs_of(const skiff::JsonValue& example, const std::string& side) {
  std::vector<Ref> refs;
  const skiff::JsonValue* deps = example.find(side + "_dependencies");
  const skiff::JsonValue* declared = example.find(side + "_references");
  if (deps == nullptr) return refs;
  for (const auto& dep : deps->array) {
    const skiff::JsonValue* text = dep.find("dependency");
    if (text == nullptr) continue;  // a well-known file, built in here
    Ref ref{dep.find("name")->string, text->string, "", -1};
    for (const auto& r : declared != nullptr ? declared->array : std::vector<skiff::JsonValue>{}) {
      if (r.find("name")->string != ref.name) continue;
      ref.subject = r.find("subject")->string;
      ref.version = static_cast<int32_t>(r.find("version")->number);
    }
    if (ref.subject.empty()) ref.subject = "(transitive) " + ref.name;
    refs.push_back(ref);
  }
  return refs;
}

void check_example(const skiff::JsonValue& example) {
  const std::string original = example.find("original_schema")->string;
  const std::string update = example.find("update_schema")->string;
  if (original.find('{') == std::string::npos) return;  // names a resource file
  INFO(example.find("description")->string);
  auto o = parse_ok(original, refs_of(example, "original"));
  auto u = parse_ok(update, refs_of(example, "update"));
  std::vector<std::string> got;
  for (const auto& d : protobuf::compare_schemas(as_proto(*o).built(), as_proto(*u).built())) {
    got.push_back(std::string(protobuf::diff_type_name(d.type)) + " " + d.path);
  }
  std::vector<std::string> want;
  for (const auto& change : example.find("changes")->array) want.push_back(change.string);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  CHECK(got == want);
  CHECK(u->incompatibilities(*o).empty() == example.find("compatible")->boolean);
}

}  // namespace

TEST_CASE("protobuf compat: Confluent's diff examples give Confluent's differences", "[protobuf][confluent]") {
  const char* paths = std::getenv("SKIFF_PROTOBUF_DIFF_EXAMPLES");
  if (paths == nullptr || *paths == '\0') {
    SKIFF_SKIP("SKIFF_PROTOBUF_DIFF_EXAMPLES is not set");
    return;
  }
  std::stringstream list(paths);
  for (std::string path; std::getline(list, path, ':');) {
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
    auto examples = skiff::parse_json(text.str(), 64);
    INFO(path);
    REQUIRE(examples);
    REQUIRE(!examples->array.empty());
    for (const auto& example : examples->array) check_example(example);
  }
}
