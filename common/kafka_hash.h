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

// Kafka's Utils.murmur2 over a key's bytes: the default partitioner's hash
// (a keyed record goes to toPositive(murmur2(key)) % partitions).
inline int32_t kafka_murmur2(std::string_view data) {
  constexpr uint32_t m = 0x5bd1e995;
  constexpr int r = 24;
  const auto len = static_cast<uint32_t>(data.size());
  uint32_t h = 0x9747b28c ^ len;
  const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(data[i])); };
  const size_t words = len / 4;
  for (size_t i = 0; i < words; ++i) {
    uint32_t k = byte(i * 4) | byte(i * 4 + 1) << 8 | byte(i * 4 + 2) << 16 | byte(i * 4 + 3) << 24;
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  const size_t tail = words * 4;
  switch (len % 4) {
    case 3:
      h ^= byte(tail + 2) << 16;
      [[fallthrough]];
    case 2:
      h ^= byte(tail + 1) << 8;
      [[fallthrough]];
    case 1:
      h ^= byte(tail);
      h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

// The partition Kafka's default partitioner picks for a non-null key.
inline int32_t kafka_key_partition(std::string_view key, int32_t partitions) {
  return static_cast<int32_t>((static_cast<uint32_t>(kafka_murmur2(key)) & 0x7fffffffu) %
                              static_cast<uint32_t>(partitions));
}

}  // namespace skiff
