#include "schema/json/java_order.h"

#include <algorithm>
#include <unordered_set>

#include "common/utf8.h"

namespace skiff::schema::json {

int32_t java_string_hash(std::string_view utf8) {
  uint32_t h = 0;
  auto add = [&h](uint32_t unit) { h = h * 31u + unit; };
  for (size_t i = 0; i < utf8.size();) {
    uint32_t cp = 0;
    const auto c = static_cast<unsigned char>(utf8[i]);
    size_t len = c < 0x80 ? 1 : utf8_length(utf8, i, cp);
    if (c < 0x80) cp = c;
    if (len == 0) len = 1, cp = 0xFFFD;  // not UTF-8: as Java decodes it
    if (cp >= 0x10000) {
      add(0xD800 + ((cp - 0x10000) >> 10));
      add(0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      add(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

namespace {

size_t table_size_for(size_t n) {
  size_t cap = 1;
  while (cap < n) cap <<= 1;
  return cap;
}

}  // namespace

size_t java_default_capacity() { return 16; }

size_t java_capacity_for_collection(size_t n) {
  const auto wanted = static_cast<size_t>(static_cast<float>(n) / 0.75f) + 1;
  return table_size_for(std::max<size_t>(wanted, 16));
}

size_t java_capacity_for_map_copy(size_t n) {
  const auto wanted = static_cast<size_t>(static_cast<float>(n) / 0.75f + 1.0f);
  return table_size_for(std::max<size_t>(wanted, 1));
}

std::vector<std::string> java_hash_order(const std::vector<std::string>& keys, size_t capacity) {
  std::vector<std::string> unique;
  std::unordered_set<std::string_view> seen;
  for (const auto& k : keys)
    if (seen.insert(k).second) unique.push_back(k);
  size_t cap = std::max<size_t>(capacity, 1);
  while (unique.size() > static_cast<size_t>(static_cast<float>(cap) * 0.75f)) cap <<= 1;
  auto bucket = [cap](const std::string& k) {
    const auto h = static_cast<uint32_t>(java_string_hash(k));
    return (h ^ (h >> 16)) & (cap - 1);
  };
  std::stable_sort(unique.begin(), unique.end(),
                   [&](const std::string& a, const std::string& b) { return bucket(a) < bucket(b); });
  return unique;
}

}  // namespace skiff::schema::json
