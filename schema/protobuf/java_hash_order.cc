#include "schema/protobuf/java_hash_order.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace skiff::schema::protobuf {

int32_t java_string_hash(const std::string& s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = 31 * h + c;
  return static_cast<int32_t>(h);
}

std::vector<std::string> java_hash_set_order(const std::vector<std::string>& first,
                                             const std::vector<std::string>& second) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto* list : {&first, &second}) {
    for (const std::string& name : *list) {
      if (seen.insert(name).second) names.push_back(name);
    }
  }
  size_t distinct_first = std::min(first.size(), names.size());
  // HashSet(Collection): capacity max(size / .75f + 1, 16), rounded up to a
  // power of two; doubled while the size passes three quarters of it.
  size_t capacity = std::max<size_t>(static_cast<size_t>(static_cast<float>(distinct_first) / .75f) + 1, 16);
  size_t table = 1;
  while (table < capacity) table <<= 1;
  while (static_cast<double>(names.size()) > 0.75 * static_cast<double>(table)) table <<= 1;
  auto bucket = [table](const std::string& name) {
    uint32_t h = static_cast<uint32_t>(java_string_hash(name));
    return (h ^ (h >> 16)) & (table - 1);
  };
  std::stable_sort(names.begin(), names.end(),
                   [&](const std::string& a, const std::string& b) { return bucket(a) < bucket(b); });
  return names;
}

}  // namespace skiff::schema::protobuf
