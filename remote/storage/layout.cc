#include "remote/storage/layout.h"

#include <algorithm>
#include <cstdio>

namespace skiff::remote {

std::string_view object_suffix(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kLog:
      return "log";
    case ObjectKind::kIndexes:
      return "indexes";
    case ObjectKind::kManifest:
      return "rsm-manifest";
  }
  return "unknown";
}

std::string partition_prefix(const std::string& key_prefix, const TopicIdPartition& tp) {
  return key_prefix + tp.topic + "-" + tp.topic_id.to_string() + "/" + std::to_string(tp.partition) + "/";
}

std::string segment_key_base(const std::string& key_prefix, const RemoteLogSegmentMetadata& m) {
  char offset[24];
  std::snprintf(offset, sizeof offset, "%020lld", static_cast<long long>(m.start_offset));
  return partition_prefix(key_prefix, m.id.partition) + offset + "-" + m.id.id.to_string() + ".";
}

std::string object_key(const std::string& key_prefix, const RemoteLogSegmentMetadata& m, ObjectKind kind) {
  return segment_key_base(key_prefix, m) + std::string(object_suffix(kind));
}

std::vector<Part> plan_parts(uint64_t size, uint64_t part_size, uint64_t threshold) {
  if (size < threshold) return {};
  part_size = std::clamp(part_size, kMinPartSize, kMaxPartSize);
  if ((size + part_size - 1) / part_size > kMaxParts) {
    constexpr uint64_t kMiB = 1ull << 20;
    const uint64_t need = (size + kMaxParts - 1) / kMaxParts;
    part_size = (need + kMiB - 1) / kMiB * kMiB;
  }
  std::vector<Part> parts;
  for (uint64_t off = 0; off < size || parts.empty(); off += part_size)
    parts.push_back({off, std::min(part_size, size - off)});
  return parts;
}

}  // namespace skiff::remote
