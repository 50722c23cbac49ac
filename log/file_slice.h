// SegmentFile and FileSlice: what a read hands to the network layer.
//
// A SegmentFile owns the .log file descriptor of one segment. Readers hold it
// by shared_ptr, so the descriptor stays open (and the bytes readable, e.g. by
// sendfile) even if retention deletes the segment meanwhile.
// Threads: immutable after construction; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "log/file_util.h"

namespace skiff::storage {

class SegmentFile {
 public:
  SegmentFile(FileDescriptor fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}
  int fd() const { return fd_.get(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  FileDescriptor fd_;
  std::filesystem::path path_;
};

// A run of whole record batches inside a segment file: write it to a socket
// with sendfile(file->fd(), position, length). Empty when length == 0.
struct FileSlice {
  std::shared_ptr<const SegmentFile> file;
  int64_t position = 0;
  size_t length = 0;

  bool empty() const { return length == 0; }
  // Copies the bytes (tests, tools; not the hot path). Empty on error.
  std::vector<uint8_t> read_all() const;
};

}  // namespace skiff::storage
