// ParseCache: the Schema Registry's parser (schema::parse, or a test's)
// behind a bounded cache of parsed schemas, so a compatibility check or a
// normalized lookup does not parse the same stored version again on every
// request. The key is everything the parse reads: type, text, references and
// their resolved texts. At `capacity` entries the cache starts over.
// Threads: any; a mutex guards the map, parsing runs outside it (two threads
// may parse the same text once each). ParsedSchemas are immutable, shared.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/expected.h"
#include "schema/format/schema_format.h"

namespace skiff::schemareg {

using Parser = std::function<schema::ParseResult(const schema::SchemaSource&)>;
using ParsedPtr = std::shared_ptr<const schema::ParsedSchema>;

class ParseCache {
 public:
  explicit ParseCache(Parser parser, size_t capacity = 4096);
  Expected<ParsedPtr, schema::ParseError> parse(const schema::SchemaSource& source);
  size_t size() const;

 private:
  Parser parser_;
  size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, ParsedPtr> parsed_;
};

}  // namespace skiff::schemareg
