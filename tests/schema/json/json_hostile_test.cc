// Hostile and malformed JSON schemas: seeded mutations of the oracle's
// corpus (bytes flipped, cut, spliced, keywords swapped) are parsed and
// compared with each other; nothing may crash, loop or exhaust the stack.
// A fixed seed and a fixed number of rounds: the test is deterministic.
#include <catch2/catch.hpp>
#include <fstream>
#include <random>

#include "json_schema_support.h"

using namespace skiff::schema::json;
using namespace skiff::schema::json::test;

namespace {

std::vector<std::string> corpus() {
  std::ifstream in(SKIFF_JSON_ORACLE_CASES);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

std::string mutate(const std::string& s, const std::vector<std::string>& all, std::mt19937& rng) {
  static const std::vector<std::string> kSnippets = {"{\"$ref\":\"#\"}",
                                                     "\"$ref\":\"#/definitions/a\"",
                                                     "{\"anyOf\":[{},{}]}",
                                                     "\"type\":[\"string\",\"null\"]",
                                                     "{\"not\":{\"not\":{}}}",
                                                     "\"additionalProperties\":false",
                                                     "[",
                                                     "]",
                                                     "{",
                                                     "}",
                                                     ",",
                                                     "\"\\u0000\"",
                                                     "1e999",
                                                     "-0.0",
                                                     "\"items\":[true,false]",
                                                     "\"definitions\":{\"a\":{\"$ref\":\"#/definitions/a\"}}",
                                                     "\xff",
                                                     "null"};
  std::string out = s;
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !out.empty(); ++e) {
    const size_t at = rng() % out.size();
    switch (rng() % 4) {
      case 0:
        out[at] = static_cast<char>(rng() % 128);
        break;
      case 1:
        out.erase(at, 1 + rng() % 8);
        break;
      case 2:
        out.insert(at, kSnippets[rng() % kSnippets.size()]);
        break;
      default: {
        const std::string& other = all[rng() % all.size()];
        out = out.substr(0, at) + other.substr(rng() % other.size());
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("json hostile: mutated schemas never crash", "[schema][json]") {
  const auto all = corpus();
  REQUIRE(all.size() > 50);
  std::mt19937 rng(52);
  std::vector<std::unique_ptr<skiff::schema::ParsedSchema>> parsed;
  int accepted = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::string text = mutate(all[rng() % all.size()], all, rng);
    auto r = skiff::schema::parse_json_schema(json_source(text));
    if (!r) {
      CHECK_FALSE(r.error().message.empty());
      continue;
    }
    ++accepted;
    (*r)->canonical();
    (*r)->normalized();
    (*r)->incompatibilities(**r);
    if (!parsed.empty()) {
      const auto& other = parsed[rng() % parsed.size()];
      (*r)->incompatibilities(*other);
      other->incompatibilities(**r);
    }
    if (parsed.size() < 200) parsed.push_back(std::move(*r));
  }
  CHECK(accepted > 100);
}

TEST_CASE("json hostile: deep and wide documents", "[schema][json]") {
  std::string wide = "{\"properties\":{";
  for (int i = 0; i < 20000; ++i) wide += (i ? "," : "") + std::string("\"p") + std::to_string(i) + "\":{}";
  wide += "}}";
  auto w = must_parse(wide);
  CHECK(w->incompatibilities(*w).empty());
  std::string types = "{\"type\":[";
  for (int i = 0; i < 20000; ++i) types += (i ? "," : "") + std::string("\"number\"");
  types += "]}";
  must_parse(types);
  std::string refs = "{\"definitions\":{\"a\":{\"anyOf\":[";
  for (int i = 0; i < 50; ++i) refs += (i ? "," : "") + std::string("{\"$ref\":\"#/definitions/a\"}");
  refs += "]}},\"$ref\":\"#/definitions/a\"}";
  auto r = must_parse(refs);
  CHECK(r->incompatibilities(*r).empty());
}

TEST_CASE("json hostile: a catastrophic pattern costs polynomial time", "[schema][json]") {
  const std::string name(200, 'a');
  const std::string w =
      R"({"type":"object","patternProperties":{"^(a*)*(a|b)*c$":{"type":"string"},"^a":{"type":"integer"}},)"
      R"("additionalProperties":false})";
  const std::string r =
      R"({"type":"object","properties":{")" + name +
      R"(":{"type":"integer"}},"patternProperties":{"^(a*)*(a|b)*c$":{"type":"string"},"^a":{"type":"integer"}},)"
      R"("additionalProperties":false})";
  // The first pattern never matches (no c); the second takes the new property's type.
  CHECK(breaking(w, r).empty());
  CHECK(breaking(w,
                 R"({"type":"object","properties":{"[":{}},"patternProperties":{"[":{}},"additionalProperties":false})")
            .empty());
}
