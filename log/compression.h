// Kafka's record-batch compression codecs, as the bytes inside a magic-2
// batch (after the 61-byte header) are encoded by Kafka's clients:
//   gzip   : a gzip stream (RFC 1952), zlib.
//   snappy : snappy-java's framing ("xerial"): 8-byte magic 82 'SNAPPY' 00,
//            int32 version (1), int32 min compatible version (1), then
//            blocks of int32 big-endian compressed length + raw snappy block.
//            A payload without the magic is decoded as one raw snappy block.
//   lz4    : the LZ4 frame format (magic 04 22 4D 18), liblz4's LZ4F.
//   zstd   : a zstd frame (streaming decode: clients may omit content size).
// Used by the log cleaner to rewrite compressed batches with the same codec.
// Thread: stateless functions, any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "log/record_batch.h"

namespace skiff::storage {

// Decompresses `in`; nullopt on corrupt input or when the output would
// exceed max_out bytes. kNone returns a copy.
std::optional<std::vector<uint8_t>> decompress(Compression codec, std::span<const uint8_t> in, size_t max_out);
// Compresses with the codec's default level. nullopt only on a library error.
std::optional<std::vector<uint8_t>> compress(Compression codec, std::span<const uint8_t> in);

}  // namespace skiff::storage
