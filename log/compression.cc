#include "log/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>

#include "common/byte_order.h"

namespace skiff::storage {
namespace {

using Bytes = std::vector<uint8_t>;
constexpr uint8_t kSnappyMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kSnappyHeader = 16;        // magic + version + min compatible version
constexpr size_t kSnappyBlock = 32 * 1024;  // snappy-java's default block size

std::optional<Bytes> gzip_inflate(std::span<const uint8_t> in, size_t max_out) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return std::nullopt;
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  Bytes out;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    size_t old = out.size();
    if (old >= max_out) {
      rc = Z_BUF_ERROR;
      break;
    }
    out.resize(std::min(max_out, old + 64 * 1024 + in.size() * 2));
    zs.next_out = out.data() + old;
    zs.avail_out = static_cast<uInt>(out.size() - old);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(out.size() - zs.avail_out);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      rc = Z_DATA_ERROR;
      break;
    }
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

std::optional<Bytes> gzip_deflate(std::span<const uint8_t> in) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return std::nullopt;
  Bytes out(deflateBound(&zs, in.size()) + 32);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

bool snappy_block(const uint8_t* p, size_t n, Bytes& out, size_t max_out) {
  size_t len = 0;
  const char* c = reinterpret_cast<const char*>(p);
  if (!snappy::GetUncompressedLength(c, n, &len) || out.size() + len > max_out) return false;
  size_t old = out.size();
  out.resize(old + len);
  return snappy::RawUncompress(c, n, reinterpret_cast<char*>(out.data() + old));
}

std::optional<Bytes> snappy_decode(std::span<const uint8_t> in, size_t max_out) {
  Bytes out;
  if (in.size() < kSnappyHeader || std::memcmp(in.data(), kSnappyMagic, 8) != 0) {
    if (!snappy_block(in.data(), in.size(), out, max_out)) return std::nullopt;
    return out;
  }
  size_t pos = kSnappyHeader;
  while (pos < in.size()) {
    if (in.size() - pos < 4) return std::nullopt;
    size_t n = load_be32(in.data() + pos);
    pos += 4;
    if (n > in.size() - pos || !snappy_block(in.data() + pos, n, out, max_out)) return std::nullopt;
    pos += n;
  }
  return out;
}

std::optional<Bytes> snappy_encode(std::span<const uint8_t> in) {
  Bytes out(kSnappyMagic, kSnappyMagic + 8);
  out.resize(kSnappyHeader);
  store_be32(out.data() + 8, 1);
  store_be32(out.data() + 12, 1);
  for (size_t pos = 0; pos < in.size(); pos += kSnappyBlock) {
    size_t n = std::min(kSnappyBlock, in.size() - pos);
    std::string block;
    snappy::Compress(reinterpret_cast<const char*>(in.data() + pos), n, &block);
    size_t old = out.size();
    out.resize(old + 4 + block.size());
    store_be32(out.data() + old, static_cast<uint32_t>(block.size()));
    std::memcpy(out.data() + old + 4, block.data(), block.size());
  }
  return out;
}

std::optional<Bytes> lz4_decode(std::span<const uint8_t> in, size_t max_out) {
  LZ4F_dctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) return std::nullopt;
  Bytes out;
  size_t pos = 0, hint = 1;
  while (pos < in.size() && hint != 0) {
    size_t old = out.size();
    if (old >= max_out) {
      hint = 1;
      break;
    }
    out.resize(std::min(max_out, old + 64 * 1024));
    size_t dst = out.size() - old, src = in.size() - pos;
    hint = LZ4F_decompress(ctx, out.data() + old, &dst, in.data() + pos, &src, nullptr);
    out.resize(old + dst);
    pos += src;
    if (LZ4F_isError(hint)) break;
    if (src == 0 && dst == 0) {
      hint = 1;
      break;
    }
  }
  LZ4F_freeDecompressionContext(ctx);
  if (hint != 0) return std::nullopt;  // error, or truncated frame
  return out;
}

std::optional<Bytes> lz4_encode(std::span<const uint8_t> in) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;  // Kafka's KafkaLZ4BlockOutputStream default
  Bytes out(LZ4F_compressFrameBound(in.size(), &prefs));
  size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) return std::nullopt;
  out.resize(n);
  return out;
}

std::optional<Bytes> zstd_decode(std::span<const uint8_t> in, size_t max_out) {
  ZSTD_DStream* ds = ZSTD_createDStream();
  if (!ds) return std::nullopt;
  Bytes out;
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  size_t rc = 1;
  while (rc != 0) {
    size_t old = out.size();
    if (old >= max_out) break;
    out.resize(std::min(max_out, old + ZSTD_DStreamOutSize()));
    ZSTD_outBuffer ob{out.data() + old, out.size() - old, 0};
    rc = ZSTD_decompressStream(ds, &ob, &ib);
    out.resize(old + ob.pos);
    if (ZSTD_isError(rc)) break;
    if (rc != 0 && ib.pos == ib.size && ob.pos < ob.size) break;  // truncated
  }
  ZSTD_freeDStream(ds);
  if (rc != 0 || ib.pos != ib.size) return std::nullopt;
  return out;
}

std::optional<Bytes> zstd_encode(std::span<const uint8_t> in) {
  Bytes out(ZSTD_compressBound(in.size()));
  size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  if (ZSTD_isError(n)) return std::nullopt;
  out.resize(n);
  return out;
}

}  // namespace

std::optional<Bytes> decompress(Compression codec, std::span<const uint8_t> in, size_t max_out) {
  switch (codec) {
    case Compression::kNone:
      return Bytes(in.begin(), in.end());
    case Compression::kGzip:
      return gzip_inflate(in, max_out);
    case Compression::kSnappy:
      return snappy_decode(in, max_out);
    case Compression::kLz4:
      return lz4_decode(in, max_out);
    case Compression::kZstd:
      return zstd_decode(in, max_out);
  }
  return std::nullopt;
}

std::optional<Bytes> compress(Compression codec, std::span<const uint8_t> in) {
  switch (codec) {
    case Compression::kNone:
      return Bytes(in.begin(), in.end());
    case Compression::kGzip:
      return gzip_deflate(in);
    case Compression::kSnappy:
      return snappy_encode(in);
    case Compression::kLz4:
      return lz4_encode(in);
    case Compression::kZstd:
      return zstd_encode(in);
  }
  return std::nullopt;
}

}  // namespace skiff::storage
