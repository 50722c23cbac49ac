#include "log/chunk_reader.h"

#include <algorithm>

#include "log/file_util.h"
#include "log/record_batch.h"

namespace skiff::storage {

const uint8_t* ChunkReader::get(uint64_t pos, size_t n) {
  if (errno_ != 0 || pos + n > limit_) return nullptr;
  if (pos >= buf_pos_ && pos + n <= buf_pos_ + buf_len_) return buf_.data() + (pos - buf_pos_);
  size_t want = static_cast<size_t>(std::min<uint64_t>(std::max(chunk_, n), limit_ - pos));
  if (buf_.size() < want) buf_.resize(want);
  size_t got = 0;
  int rc = pread_full(fd_, buf_.data(), want, static_cast<int64_t>(pos), &got);
  buf_pos_ = pos;
  buf_len_ = got;
  if (rc != 0) {
    errno_ = rc;
    buf_len_ = 0;
    return nullptr;
  }
  if (got < n) return nullptr;
  return buf_.data();
}

Result<void> ChunkReader::status() const {
  if (errno_ != 0) return unexpected(Error::io(errno_));
  return {};
}

bool read_batch_header(ChunkReader& r, uint64_t pos, BatchHeader& h) {
  namespace bl = batch_layout;
  const uint8_t* p = r.get(pos, bl::kHeaderSize);
  if (!p) return false;
  int64_t size = batch_size_from_prefix(p, bl::kHeaderSize);
  if (size < static_cast<int64_t>(bl::kHeaderSize) || pos + static_cast<uint64_t>(size) > r.limit()) return false;
  h.position = pos;
  h.size = static_cast<uint32_t>(size);
  h.base_offset = static_cast<int64_t>(load_be64(p + bl::kBaseOffset));
  h.last_offset_delta = static_cast<int32_t>(load_be32(p + bl::kLastOffsetDelta));
  h.max_timestamp = static_cast<int64_t>(load_be64(p + bl::kMaxTimestamp));
  h.magic = static_cast<int8_t>(p[bl::kMagic]);
  return true;
}

}  // namespace skiff::storage
