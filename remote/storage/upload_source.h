// UploadSource: the bytes of one object to upload, as pieces that are files
// (read with pread when a part is sent, so a segment is never all in
// memory) or bytes in memory. Files are opened, and their sizes fixed, when
// added; a file that shrinks later is a read error, never short data.
// Threads: one source per upload, one thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/expected.h"

namespace skiff::remote {

class UploadSource {
 public:
  UploadSource() = default;
  ~UploadSource();
  UploadSource(const UploadSource&) = delete;
  UploadSource& operator=(const UploadSource&) = delete;

  // Appends the whole file; an error names the file and errno.
  Expected<void, std::string> add_file(const std::filesystem::path& path);
  void add_bytes(std::string bytes);

  uint64_t size() const { return size_; }
  // Bytes [offset, offset + n) into `out` (replaced); n must stay within size().
  Expected<void, std::string> read(uint64_t offset, uint64_t n, std::string& out) const;

 private:
  struct Piece {
    int fd = -1;  // -1: bytes
    std::string path;
    std::string bytes;
    uint64_t start = 0, size = 0;
  };
  Expected<void, std::string> read_piece(const Piece& p, uint64_t from, uint64_t n, std::string& out) const;
  std::vector<Piece> pieces_;
  uint64_t size_ = 0;
};

}  // namespace skiff::remote
