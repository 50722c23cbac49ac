// FileSlice: what a read hands to the network layer.
//
// `file` is a pinned descriptor of the segment's .log (an FdRef from the
// FdCache, see fd_cache.h): while the slice (or a copy of its FdRef, e.g. the
// network layer's FileRegion keep_alive) is alive, the cache never closes
// that descriptor, so sendfile reads the right bytes even if the cache is
// full or retention deletes the segment meanwhile.
// Threads: immutable after construction; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "log/fd_cache.h"

namespace skiff::storage {

// A run of whole record batches inside a segment file: write it to a socket
// with sendfile(file->fd(), position, length). Empty when length == 0.
struct FileSlice {
  FdRef file;
  int64_t position = 0;
  size_t length = 0;

  bool empty() const { return length == 0; }
  // Copies the bytes (tests, tools; not the hot path). Empty on error.
  std::vector<uint8_t> read_all() const;
};

}  // namespace skiff::storage
