// Helpers of the JSON Schema format's tests: parse a schema (with named
// references), and the incompatible change types or every change type of a
// writer -> reader comparison.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "schema/json/json_schema.h"
#include "schema/json/schema_diff.h"
#include "schema/json/schema_loader.h"

namespace skiff::schema::json::test {

inline SchemaSource json_source(const std::string& text, std::vector<std::pair<std::string, std::string>> refs = {}) {
  SchemaSource s;
  s.type = SchemaType::kJson;
  s.text = text;
  for (auto& [name, body] : refs) {
    s.references.push_back(SchemaReference{name, name, 1});
    s.resolved.push_back(ResolvedReference{name, body});
  }
  return s;
}

inline std::unique_ptr<ParsedSchema> must_parse(const std::string& text,
                                                std::vector<std::pair<std::string, std::string>> refs = {}) {
  auto r = parse_json_schema(json_source(text, std::move(refs)));
  INFO(text);
  if (!r) INFO(r.error().message);
  REQUIRE(r);
  return std::move(*r);
}

inline std::string parse_error(const std::string& text, std::vector<std::pair<std::string, std::string>> refs = {}) {
  auto r = parse_json_schema(json_source(text, std::move(refs)));
  INFO(text);
  REQUIRE_FALSE(r);
  return r.error().message;
}

// Every change found going from `writer` to `reader`, "TYPE@path".
inline std::vector<std::string> all_changes(const std::string& writer, const std::string& reader,
                                            CompatibilityPolicy policy = CompatibilityPolicy::kStrict) {
  auto w = load_schema(std::make_unique<JsonValue>(*parse_json(writer, 200)), json_source(writer));
  auto r = load_schema(std::make_unique<JsonValue>(*parse_json(reader, 200)), json_source(reader));
  REQUIRE(w);
  REQUIRE(r);
  std::vector<std::string> out;
  for (const auto& d : compare_schemas((*w)->root, (*r)->root, policy))
    out.push_back(std::string(diff_type_name(d.type)) + "@" + d.path);
  return out;
}

// The incompatible ones, as errorType names.
inline std::vector<std::string> breaking(const std::string& writer, const std::string& reader,
                                         CompatibilityPolicy policy = CompatibilityPolicy::kStrict) {
  auto w = must_parse(writer);
  auto r = must_parse(reader);
  std::vector<std::string> out;
  for (const auto& m : incompatibilities(*r, *w, policy)) {
    const auto start = m.find('"') + 1;
    out.push_back(m.substr(start, m.find('"', start) - start));
  }
  return out;
}

using Names = std::vector<std::string>;

}  // namespace skiff::schema::json::test
