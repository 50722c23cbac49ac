// The object layout of remote segments (docs/tiered-storage.md, "Object
// layout and consistency"): which keys a segment's objects have, and how a
// file is cut into multipart-upload parts. Pure functions, any thread.
//
// Keys, one copy attempt of one segment (Kafka's RemoteLogSegmentId):
//   <key_prefix><topic>-<topic id>/<partition>/<20-digit start offset>-<segment id>.<kind>
// kind: "log" (the segment's bytes), "indexes" (the index bundle, manifest.h)
// and "rsm-manifest" (the manifest, written last, deleted first). Topic and
// segment ids are Kafka's URL-safe base64 Uuid strings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "remote/metadata/segment_metadata.h"

namespace skiff::remote {

enum class ObjectKind { kLog, kIndexes, kManifest };

std::string_view object_suffix(ObjectKind kind);  // "log", "indexes", "rsm-manifest"
// "<prefix><topic>-<topic id>/<partition>/": every segment of the partition.
std::string partition_prefix(const std::string& key_prefix, const TopicIdPartition& tp);
// "<partition prefix><20-digit start offset>-<segment id>.": every object of one copy attempt.
std::string segment_key_base(const std::string& key_prefix, const RemoteLogSegmentMetadata& m);
std::string object_key(const std::string& key_prefix, const RemoteLogSegmentMetadata& m, ObjectKind kind);

// S3's multipart limits.
inline constexpr uint64_t kMinPartSize = 5ull << 20;
inline constexpr uint64_t kMaxPartSize = 5ull << 30;
inline constexpr uint64_t kMaxParts = 10000;

struct Part {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// How an object of `size` bytes goes up: empty = one PUT (size below
// `threshold`), else the parts of a multipart upload, each `part_size` but
// the last; when that would take more than 10,000 parts, the part size grows
// (to whole MiB) until it fits. part_size is at least kMinPartSize.
std::vector<Part> plan_parts(uint64_t size, uint64_t part_size, uint64_t threshold);

}  // namespace skiff::remote
