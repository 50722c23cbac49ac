// The fields of Skiff's small binary state (the records of the metadata
// store, metadata/metadata_store.h, and its frame): big-endian integers and
// int32-length-prefixed strings, appended to a string when writing, read
// back in order with bounds checks (FieldReader throws
// std::runtime_error("truncated") on a read past the end). Header-only;
// plain values, no thread rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_order.h"

namespace skiff {

// The low `bytes` bytes of `v`, most significant first.
inline void put_be_field(std::string& out, uint32_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline void put_be64_field(std::string& out, uint64_t v) {
  put_be_field(out, static_cast<uint32_t>(v >> 32), 4);
  put_be_field(out, static_cast<uint32_t>(v), 4);
}

inline void put_string_field(std::string& out, std::string_view s) {
  put_be_field(out, static_cast<uint32_t>(s.size()), 4);
  out.append(s);
}

// A string map: count uint32, then per entry key string | value string.
template <class Map>
void put_string_map_field(std::string& out, const Map& map) {
  put_be_field(out, static_cast<uint32_t>(map.size()), 4);
  for (const auto& [key, value] : map) {
    put_string_field(out, key);
    put_string_field(out, value);
  }
}

// One record per named string map: name string | the map, as above (the
// records of group configs and client-metrics subscriptions).
inline std::vector<std::string> named_string_map_records(
    const std::map<std::string, std::map<std::string, std::string>>& all) {
  std::vector<std::string> records;
  records.reserve(all.size());
  for (const auto& [name, map] : all) {
    std::string out;
    put_string_field(out, name);
    put_string_map_field(out, map);
    records.push_back(std::move(out));
  }
  return records;
}

class FieldReader {
 public:
  explicit FieldReader(std::string_view bytes) : bytes_(bytes) {}
  const uint8_t* take(size_t n) {
    if (bytes_.size() - pos_ < n) throw std::runtime_error("truncated");
    const auto* p = reinterpret_cast<const uint8_t*>(bytes_.data() + pos_);
    pos_ += n;
    return p;
  }
  int8_t int8() { return static_cast<int8_t>(*take(1)); }
  uint32_t uint32() { return load_be32(take(4)); }
  uint64_t uint64() { return load_be64(take(8)); }
  std::string string() {
    uint32_t n = uint32();
    return std::string(reinterpret_cast<const char*>(take(n)), n);
  }
  // What put_string_map_field wrote (a key twice: the last value wins).
  std::map<std::string, std::string> string_map() {
    std::map<std::string, std::string> out;
    const uint32_t n = uint32();
    for (uint32_t i = 0; i < n; ++i) {
      std::string key = string();
      out[std::move(key)] = string();
    }
    return out;
  }
  bool done() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace skiff
