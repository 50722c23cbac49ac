// ByteWriter: appends the wire encoding of a message to an output buffer.
//
// The common case is one contiguous buffer, sized up front from
// encoded_size() so that encoding does not reallocate (up to 64 KiB; beyond
// that it grows by doubling, since the estimate includes file-region bytes). Records held as file
// regions break the output into chunks: bytes written so far become one
// chunk, each region becomes a FileRegion chunk (written later with
// sendfile), and writing continues in a fresh buffer. take_chunks() returns
// them in order, ready for network::Response::chunks.
// Not thread-safe; one writer per encoding thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/byte_order.h"
#include "common/file_region.h"
#include "common/varint.h"
#include "protocol/errors.h"
#include "protocol/records.h"
#include "protocol/types.h"

namespace skiff::protocol {

class ByteWriter {
 public:
  // `expected_size`: total bytes that will be written, region bytes included.
  explicit ByteWriter(size_t expected_size = 0);

  // Total bytes written so far, file-region bytes included.
  size_t size() const { return flushed_ + pos_; }

  void write_int8(int8_t v) { *grow(1) = static_cast<uint8_t>(v); }
  void write_int16(int16_t v) { write_be(static_cast<uint16_t>(v)); }
  void write_int32(int32_t v) { write_be(static_cast<uint32_t>(v)); }
  void write_int64(int64_t v) { write_be(static_cast<uint64_t>(v)); }
  void write_uint16(uint16_t v) { write_be(v); }
  void write_float64(double v);
  void write_bool(bool v) { *grow(1) = v ? 1 : 0; }
  void write_uuid(const Uuid& v) { write_raw(v.bytes.data(), v.bytes.size()); }

  void write_uvarint(uint32_t v);
  void write_uvarlong(uint64_t v);
  void write_varint(int32_t v) { write_uvarint(zigzag_encode32(v)); }  // zig-zag
  void write_varlong(int64_t v) { write_uvarlong(zigzag_encode(v)); }

  void write_raw(const void* data, size_t n) {
    if (n != 0) std::memcpy(grow(n), data, n);
  }

  // `compact` selects the flexible-version encodings (unsigned varint N+1).
  void write_string(std::string_view v, bool compact);
  void write_nullable_string(const std::optional<std::string>& v, bool compact);
  void write_bytes(std::span<const uint8_t> v, bool compact);
  void write_nullable_bytes(const std::optional<std::vector<uint8_t>>& v, bool compact);
  // Throws EncodeError for a null value unless `nullable`.
  void write_records(const Records& v, bool compact, bool nullable);
  void write_array_length(size_t count, bool compact);
  void write_null_array(bool compact) { compact ? write_uvarint(0) : write_int32(-1); }

  // A whole tagged-field section made only of raw fields.
  void write_tagged_fields(const TaggedFields& fields);
  // Writes fields[from...] while their tag is below `below`; returns the
  // index of the first field not written. Merges raw fields between the
  // known ones so that tags stay in ascending order.
  size_t write_raw_tags(const TaggedFields& fields, size_t from, uint64_t below);

  // Overwrites 4 bytes at `position` (e.g. a frame size); must lie before
  // the first file region.
  void patch_int32(size_t position, int32_t v);

  // The output as one buffer; throws std::logic_error if regions were written.
  std::vector<uint8_t> take_bytes();
  // The output as chunks: bytes and file regions, in order.
  std::vector<ResponseChunk> take_chunks();

 private:
  uint8_t* grow(size_t n) {
    if (buf_.size() - pos_ < n) expand(n);
    uint8_t* p = buf_.data() + pos_;
    pos_ += n;
    return p;
  }
  void expand(size_t n);
  template <class T>
  void write_be(T v) {
    v = to_big_endian(v);
    std::memcpy(grow(sizeof(T)), &v, sizeof(T));
  }
  void write_length(int64_t len, bool compact, bool wide);
  void flush_chunk();

  std::vector<uint8_t> buf_;  // size() is the capacity in use; pos_ the end
  size_t pos_ = 0;
  size_t flushed_ = 0;   // bytes already moved into chunks_
  size_t expected_ = 0;  // caller's estimate of the total
  std::vector<ResponseChunk> chunks_;
};

}  // namespace skiff::protocol
