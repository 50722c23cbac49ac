// Helpers of the Avro schema tests: parse a text (with references' texts)
// and read the result or the refusal.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schema/avro/avro_schema.h"

namespace skiff::schema::avro_test {

inline ParseResult parse(const std::string& text, const std::vector<std::string>& refs = {}, bool as_new = true) {
  SchemaSource source;
  source.text = text;
  for (size_t i = 0; i < refs.size(); ++i) source.resolved.push_back({"ref" + std::to_string(i), refs[i]});
  return parse_avro(source, AvroParseOptions{as_new});
}

// The canonical text, or "ERROR: <message>".
inline std::string canonical(const std::string& text, const std::vector<std::string>& refs = {}, bool as_new = true) {
  auto r = parse(text, refs, as_new);
  return r ? (*r)->canonical() : "ERROR: " + r.error().message;
}

inline std::string refusal(const std::string& text, const std::vector<std::string>& refs = {}, bool as_new = true) {
  auto r = parse(text, refs, as_new);
  return r ? "accepted: " + (*r)->canonical() : r.error().message;
}

inline std::string normalized(const std::string& text, const std::vector<std::string>& refs = {}) {
  auto r = parse(text, refs);
  return r ? (*r)->normalized() : "ERROR: " + r.error().message;
}

// reader.incompatibilities(writer).
inline std::vector<std::string> differences(const std::string& reader, const std::string& writer) {
  auto r = parse(reader);
  auto w = parse(writer);
  if (!r || !w) return {"ERROR: " + (r ? w.error().message : r.error().message)};
  return (*r)->incompatibilities(**w);
}

}  // namespace skiff::schema::avro_test
