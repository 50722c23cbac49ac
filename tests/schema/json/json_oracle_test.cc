// Checks schema/json against the vectors tools/json_schema_oracle generated
// with the libraries Confluent's registry uses: Jackson's canonical and
// sorted text, everit-json-schema's verdict (and message) on loading, and
// the order a loaded schema's properties HashMap iterates in.
#include <catch2/catch.hpp>
#include <fstream>

#include "json_schema_support.h"
#include "schema/json/java_order.h"

using namespace skiff::schema::json;
using namespace skiff::schema::json::test;

namespace {

struct Vector {
  std::string schema, canonical, normalized, load, order;
  bool json_error = false;
};

std::vector<Vector> read_vectors() {
  std::ifstream in(SKIFF_JSON_ORACLE_VECTORS);
  REQUIRE(in);
  std::vector<Vector> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.find(' ');
    const std::string key = line.substr(0, space), rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "schema") out.emplace_back().schema = rest;
    REQUIRE_FALSE(out.empty());
    if (key == "canonical") out.back().canonical = rest;
    if (key == "normalized") out.back().normalized = rest;
    if (key == "load") out.back().load = rest;
    if (key == "order") out.back().order = rest;
    if (key == "json") out.back().json_error = true;
  }
  return out;
}

std::vector<std::string> top_level_properties(const std::string& text) {
  std::vector<std::string> names;
  auto doc = skiff::parse_json(text, 200);
  if (const auto* props = doc ? doc->find("properties") : nullptr)
    for (const auto& m : props->members)
      if (m.name != "$id" || m.value.kind == skiff::JsonValue::Kind::kObject) names.push_back(m.name);  // as everit
  return names;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
  return out;
}

}  // namespace

TEST_CASE("json oracle: Jackson's text, everit's verdict, Java's order", "[schema][json]") {
  const auto vectors = read_vectors();
  CHECK(vectors.size() > 70);
  for (const auto& v : vectors) {
    INFO(v.schema);
    auto parsed = skiff::schema::parse_json_schema(json_source(v.schema));
    if (v.json_error) {
      CHECK_FALSE(parsed);
      continue;
    }
    if (v.load == "ok" || v.load == "skipped") {
      if (!parsed) INFO(parsed.error().message);
      REQUIRE(parsed);
    } else {
      REQUIRE_FALSE(parsed);
      CHECK(parsed.error().message == "Invalid JSON: " + v.load.substr(std::string("error ").size()));
      continue;
    }
    CHECK((*parsed)->canonical() == v.canonical);
    CHECK((*parsed)->normalized() == v.normalized);
    if (!v.order.empty())
      CHECK(joined(java_hash_order(top_level_properties(v.canonical), java_default_capacity())) == v.order);
  }
}
