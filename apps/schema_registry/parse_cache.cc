#include "apps/schema_registry/parse_cache.h"

namespace skiff::schemareg {
namespace {

std::string key_of(const schema::SchemaSource& source) {
  std::string key(schema::type_name(source.type));
  key += '\0';
  key += source.text;
  for (const auto& r : source.references) {
    key += '\0' + r.name + '\0' + r.subject + '\0' + std::to_string(r.version);
  }
  key += '\1';
  for (const auto& r : source.resolved) key += '\0' + r.name + '\0' + r.text;
  return key;
}

}  // namespace

ParseCache::ParseCache(Parser parser, size_t capacity) : parser_(std::move(parser)), capacity_(capacity) {}

Expected<ParsedPtr, schema::ParseError> ParseCache::parse(const schema::SchemaSource& source) {
  auto key = key_of(source);
  {
    std::lock_guard lock(mu_);
    const auto it = parsed_.find(key);
    if (it != parsed_.end()) return it->second;
  }
  auto result = parser_(source);
  if (!result) return unexpected(result.error());
  ParsedPtr parsed(std::move(*result));
  std::lock_guard lock(mu_);
  if (parsed_.size() >= capacity_) parsed_.clear();
  parsed_.emplace(std::move(key), parsed);
  return parsed;
}

size_t ParseCache::size() const {
  std::lock_guard lock(mu_);
  return parsed_.size();
}

}  // namespace skiff::schemareg
