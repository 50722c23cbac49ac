#include "protocol/byte_writer.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>

namespace skiff::protocol {

namespace {

// `expected` counts file-region bytes too (a Fetch response's records, sent
// by sendfile, never pass through the buffer), so the buffer is sized from
// it only up to a cap, and grows by doubling past it: zero-filling the
// records' size here was nearly all of a Fetch's cost.
constexpr size_t kMaxInitialBuffer = 64 * 1024;
// After a file region what follows is usually a partition header or the end.
constexpr size_t kMaxBufferAfterRegion = 1024;

}  // namespace

ByteWriter::ByteWriter(size_t expected_size) : expected_(expected_size) {
  buf_.resize(std::min(expected_size, kMaxInitialBuffer));
}

void ByteWriter::expand(size_t n) { buf_.resize(std::max({buf_.size() * 2, pos_ + n, size_t{64}})); }

void ByteWriter::write_float64(double v) { write_be(std::bit_cast<uint64_t>(v)); }

void ByteWriter::write_uvarint(uint32_t v) { write_uvarlong(v); }

void ByteWriter::write_uvarlong(uint64_t v) {
  uint8_t tmp[kMaxVarint64Bytes];
  write_raw(tmp, put_uvarint(tmp, v));
}

void ByteWriter::write_length(int64_t len, bool compact, bool wide) {
  if (compact) {
    if (len + 1 > std::numeric_limits<uint32_t>::max()) throw EncodeError("value too long");
    write_uvarint(static_cast<uint32_t>(len + 1));
  } else if (wide) {
    if (len > std::numeric_limits<int32_t>::max()) throw EncodeError("bytes value too long");
    write_int32(static_cast<int32_t>(len));
  } else {
    if (len > std::numeric_limits<int16_t>::max()) {
      throw EncodeError("string longer than 32767 bytes in a non-flexible version");
    }
    write_int16(static_cast<int16_t>(len));
  }
}

void ByteWriter::write_string(std::string_view v, bool compact) {
  write_length(static_cast<int64_t>(v.size()), compact, false);
  write_raw(v.data(), v.size());
}

void ByteWriter::write_nullable_string(const std::optional<std::string>& v, bool compact) {
  if (!v) {
    write_length(-1, compact, false);
  } else {
    write_string(*v, compact);
  }
}

void ByteWriter::write_bytes(std::span<const uint8_t> v, bool compact) {
  write_length(static_cast<int64_t>(v.size()), compact, true);
  write_raw(v.data(), v.size());
}

void ByteWriter::write_nullable_bytes(const std::optional<std::vector<uint8_t>>& v, bool compact) {
  if (!v) {
    write_length(-1, compact, true);
  } else {
    write_bytes(*v, compact);
  }
}

void ByteWriter::write_records(const Records& v, bool compact, bool nullable) {
  switch (v.kind()) {
    case Records::Kind::kNull:
      if (!nullable) throw EncodeError("null records in a non-nullable version");
      write_length(-1, compact, true);
      return;
    case Records::Kind::kBytes:
      write_bytes(v.data(), compact);
      return;
    case Records::Kind::kFileRegions:
      write_length(static_cast<int64_t>(v.size()), compact, true);
      flush_chunk();
      for (const auto& region : v.regions()) {
        if (region.length == 0) continue;
        chunks_.emplace_back(region);
        flushed_ += region.length;
      }
      // Continue in a buffer sized for what the caller said remains (capped:
      // that may be mostly more file regions).
      buf_.resize(std::min(expected_ > size() ? expected_ - size() : 0, kMaxBufferAfterRegion));
      return;
  }
}

void ByteWriter::write_array_length(size_t count, bool compact) {
  if (compact) {
    if (count >= std::numeric_limits<uint32_t>::max()) throw EncodeError("array too long");
    write_uvarint(static_cast<uint32_t>(count + 1));
  } else {
    if (count > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      throw EncodeError("array too long");
    }
    write_int32(static_cast<int32_t>(count));
  }
}

size_t ByteWriter::write_raw_tags(const TaggedFields& fields, size_t from, uint64_t below) {
  for (; from < fields.size() && fields[from].tag < below; ++from) {
    write_uvarint(fields[from].tag);
    write_uvarint(static_cast<uint32_t>(fields[from].data.size()));
    write_raw(fields[from].data.data(), fields[from].data.size());
  }
  return from;
}

void ByteWriter::write_tagged_fields(const TaggedFields& fields) {
  write_uvarint(static_cast<uint32_t>(fields.size()));
  for (const auto& field : fields) {
    write_uvarint(field.tag);
    write_uvarint(static_cast<uint32_t>(field.data.size()));
    write_raw(field.data.data(), field.data.size());
  }
}

void ByteWriter::patch_int32(size_t position, int32_t v) {
  v = to_big_endian(v);
  uint8_t* base = nullptr;
  size_t limit = 0;
  if (chunks_.empty()) {
    base = buf_.data();
    limit = pos_;
  } else if (auto* first = std::get_if<std::vector<uint8_t>>(&chunks_.front())) {
    base = first->data();
    limit = first->size();
  }
  if (base == nullptr || position + 4 > limit) throw std::logic_error("patch_int32 out of range");
  std::memcpy(base + position, &v, 4);
}

void ByteWriter::flush_chunk() {
  if (pos_ == 0) return;
  buf_.resize(pos_);
  flushed_ += pos_;
  chunks_.emplace_back(std::move(buf_));
  buf_ = {};
  pos_ = 0;
}

std::vector<uint8_t> ByteWriter::take_bytes() {
  if (!chunks_.empty()) throw std::logic_error("take_bytes on output with file regions");
  buf_.resize(pos_);
  pos_ = 0;
  return std::move(buf_);
}

std::vector<ResponseChunk> ByteWriter::take_chunks() {
  flush_chunk();
  flushed_ = 0;
  return std::move(chunks_);
}

}  // namespace skiff::protocol
