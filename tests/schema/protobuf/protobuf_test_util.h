// Helpers of the schema/protobuf tests: parsing a schema (with its
// references) and reading the result through the ParsedSchema interface.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "schema/protobuf/protobuf_schema.h"

namespace skiff::schema::test {

struct Ref {
  std::string name;
  std::string text;
  std::string subject;
  int32_t version = 1;
};

inline SchemaSource proto_source(std::string text, const std::vector<Ref>& refs = {}) {
  SchemaSource source;
  source.type = SchemaType::kProtobuf;
  source.text = std::move(text);
  for (const Ref& r : refs) {
    source.references.push_back({r.name, r.subject.empty() ? r.name : r.subject, r.version});
    source.resolved.push_back({r.name, r.text});
  }
  return source;
}

// Parses and REQUIREs success.
inline std::unique_ptr<ParsedSchema> parse_ok(std::string text, const std::vector<Ref>& refs = {}) {
  auto parsed = parse_protobuf(proto_source(std::move(text), refs));
  if (!parsed) FAIL("parse failed: " << parsed.error().message);
  return std::move(*parsed);
}

// The parse error's message; FAILs when the text parses.
inline std::string parse_error(std::string text, const std::vector<Ref>& refs = {}) {
  auto parsed = parse_protobuf(proto_source(std::move(text), refs));
  if (parsed) FAIL("parsed, expected an error");
  return parsed.error().message;
}

inline const ProtobufSchema& as_proto(const ParsedSchema& s) { return dynamic_cast<const ProtobufSchema&>(s); }

}  // namespace skiff::schema::test
