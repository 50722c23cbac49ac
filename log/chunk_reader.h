// ChunkReader: buffered positional reads over a file, for scanning batch
// headers (fetch, timestamp lookups) and whole batches (recovery) without one
// syscall per batch. Reads never go past `limit`.
// An I/O error sticks: get() returns nullptr from then on and status()
// reports it, so a scan loop ends and its caller asks once, after the loop.
// Threads: one instance per scan, on the calling thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "log/result.h"

namespace skiff::storage {

class ChunkReader {
 public:
  ChunkReader(int fd, uint64_t limit, size_t chunk) : fd_(fd), limit_(limit), chunk_(chunk) {}
  // Returns a pointer to bytes [pos, pos+n), or nullptr if they extend past
  // the limit / the file, or after an I/O error (see status()).
  const uint8_t* get(uint64_t pos, size_t n);
  uint64_t limit() const { return limit_; }
  // Success, or the read error that stopped this reader.
  Result<void> status() const;

 private:
  int fd_;
  uint64_t limit_;
  size_t chunk_;
  std::vector<uint8_t> buf_;
  uint64_t buf_pos_ = 0;
  size_t buf_len_ = 0;
  int errno_ = 0;  // the first read error; sticky
};

// The header fields of one batch, read from its first 61 bytes.
struct BatchHeader {
  uint64_t position = 0;
  uint32_t size = 0;  // whole batch incl. the 12-byte prefix
  int64_t base_offset = 0;
  int32_t last_offset_delta = 0;
  int64_t max_timestamp = -1;
  int8_t magic = 0;
  int64_t last_offset() const { return base_offset + last_offset_delta; }
};

// Reads the header of the batch at `pos`; false at the end / on junk / on an
// I/O error (r.status()).
bool read_batch_header(ChunkReader& r, uint64_t pos, BatchHeader& out);

}  // namespace skiff::storage
