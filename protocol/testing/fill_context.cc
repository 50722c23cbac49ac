#include "protocol/testing/random_fill.h"

namespace skiff::protocol::testing {

uint64_t FillContext::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void FillContext::fill(Uuid& v) {
  for (auto& b : v.bytes) b = static_cast<uint8_t>(next());
}

void FillContext::fill(std::string& v) {
  v.resize(next() % 12);
  for (auto& c : v) c = static_cast<char>('a' + next() % 26);
}

void FillContext::fill(std::vector<uint8_t>& v) {
  v.resize(next() % 12);
  for (auto& b : v) b = static_cast<uint8_t>(next());
}

Records FillContext::records(bool nullable) {
  if (nullable && chance(4)) return Records();
  auto& bytes = storage_.emplace_back(next() % 64);
  for (auto& b : bytes) b = static_cast<uint8_t>(next());
  return Records::bytes(bytes);
}

void FillContext::fill_unknown_tags(TaggedFields& tags) {
  uint32_t tag = 1000;
  for (size_t i = next() % 3; i > 0; --i) {
    tag += 1 + static_cast<uint32_t>(next() % 200);
    RawTaggedField field{tag, {}};
    fill(field.data);
    tags.push_back(std::move(field));
  }
}

}  // namespace skiff::protocol::testing
