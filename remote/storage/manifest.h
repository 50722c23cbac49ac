// The manifest of one remote segment (the "<base>.rsm-manifest" object,
// layout.h): what was uploaded, with each file's size and CRC-32C, so that
// fetched indexes are checked before they are served. Encoding and decoding
// are pure functions (any thread); decoding refuses a truncated or corrupt
// manifest with a message, never a crash.
//
// Byte layout (integers big-endian):
//   magic        4 bytes  "SKRM"
//   version      u16      1
//   body length  u32      bytes that follow the CRC
//   body CRC-32C u32      of the body
//   body:
//     topic id        16 bytes    partition  i32    segment id  16 bytes
//     start offset    i64         end offset i64
//     log size        u64         log CRC-32C u32
//     indexes size    u64         (the whole "<base>.indexes" object)
//     index count     u8          (at most 5, each IndexType at most once)
//     per index:      type u8 (IndexType), offset u64 (in the indexes object),
//                     size u64, CRC-32C u32
// Index entries lie inside the indexes object, in order, without overlap.
// A reader refuses any other version: a newer layout gets a new version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "common/uuid.h"

namespace skiff::remote {

// Kafka's RemoteStorageManager.IndexType, with its ids.
enum class IndexType : uint8_t {
  kOffset = 0,
  kTimestamp = 1,
  kProducerSnapshot = 2,
  kLeaderEpoch = 3,
  kTransaction = 4
};
std::string_view index_name(IndexType t);  // "offset", "timestamp", "producer-snapshot", "leader-epoch", "transaction"

struct ManifestIndex {
  IndexType type = IndexType::kOffset;
  uint64_t offset = 0;  // in the indexes object
  uint64_t size = 0;
  uint32_t crc32c = 0;
  bool operator==(const ManifestIndex&) const = default;
};

struct Manifest {
  static constexpr uint16_t kVersion = 1;
  Uuid topic_id;
  int32_t partition = 0;
  Uuid segment_id;
  int64_t start_offset = 0;
  int64_t end_offset = 0;
  uint64_t log_size = 0;
  uint32_t log_crc32c = 0;
  uint64_t indexes_size = 0;
  std::vector<ManifestIndex> indexes;

  const ManifestIndex* find(IndexType t) const;
  bool operator==(const Manifest&) const = default;
};

std::string encode_manifest(const Manifest& m);
// The manifest, or why the bytes are not one (truncated, bad magic, unknown
// version, CRC mismatch, an index outside the indexes object, ...).
Expected<Manifest, std::string> decode_manifest(std::string_view bytes);

// CRC-32C of a byte string (log/crc32c.h's), for the manifest's checksums.
uint32_t crc32c_of(std::string_view bytes, uint32_t crc = 0);

}  // namespace skiff::remote
