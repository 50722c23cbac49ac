// POSIX file helpers for the storage layer: full pread/pwrite loops, fsync of
// a directory, durable replace of a small file (temp + fsync + rename + fsync
// dir). Thread-safe (no shared state). Errors are errno values (0 = ok).
// The thin POSIX layer: errno on purpose; callers in log/ bridge to storage::Result with io_status().
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace skiff::storage {

// Owns one file descriptor; closes it on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileDescriptor& operator=(FileDescriptor&& o) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Returns 0 or errno. A short read at EOF is not an error: *got says how much.
int pread_full(int fd, void* buf, size_t n, int64_t off, size_t* got);
// Returns 0 or errno; retries on EINTR and short writes.
int pwrite_full(int fd, const void* buf, size_t n, int64_t off);
int fsync_dir(const std::filesystem::path& dir);
// mkdir -p whose result survives a power cut: each directory it creates is
// made durable by an fsync of its parent (after the whole chain exists), so
// nothing later written inside can vanish with its directory. Existing
// directories are left as they are (no fsync). Returns 0 or errno.
int create_directories_durably(const std::filesystem::path& dir);
// Writes `content` to `path` durably and atomically. Returns 0 or errno.
int write_file_durably(const std::filesystem::path& path, std::string_view content);
// Reads a whole small file; returns false if it does not exist / can't be read.
bool read_small_file(const std::filesystem::path& path, std::string& out);
// Calls f(name, is_directory) for each entry of `dir` but "." and "..", with
// readdir(3): std::filesystem's iterator builds and parses a path per entry,
// which was half of a start at 100,000 partitions. An entry whose type the
// file system does not report is stat'ed. Throws std::filesystem_error if
// `dir` cannot be opened or read, as std::filesystem's iterator does.
void for_each_dir_entry(const std::filesystem::path& dir, const std::function<void(std::string_view, bool)>& f);

}  // namespace skiff::storage
