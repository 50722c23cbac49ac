// Kafka's choice of a group's `__consumer_offsets` partition, shared by the
// transaction coordinator (AddOffsetsToTxn adds that partition to the
// transaction) and the group coordinator (a marker on that partition ends the
// pending transactional offsets of every group that maps to it): both must
// compute the same number.
//
// Kafka: Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions, where
// hashCode is java.lang.String's over UTF-16 code units. A UTF-8 group id is
// decoded first; a malformed byte counts as U+FFFD, as Java's decoder
// substitutes it.
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace skiff {

inline int32_t java_string_hash(std::string_view s) {
  uint32_t h = 0;
  auto add = [&h](uint32_t unit) { h = 31 * h + unit; };
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    bool ok = len != 0 && i + len <= s.size();
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
    for (size_t k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      ok = (c & 0xc0) == 0x80;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (!ok) {
      add(0xfffd);
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      add(0xd800 + ((cp - 0x10000) >> 10));
      add(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      add(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

// The `__consumer_offsets` partition of `group_id` among `num_partitions` (> 0).
inline int32_t offsets_partition_for(std::string_view group_id, int32_t num_partitions) {
  const int32_t h = java_string_hash(group_id);
  const int32_t abs = h == INT32_MIN ? 0 : (h < 0 ? -h : h);  // Kafka's Utils.abs
  return abs % num_partitions;
}

}  // namespace skiff
