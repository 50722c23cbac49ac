// IndexFile: the fixed-width-entry file under OffsetIndex and TimeIndex.
//
// Threads: append/truncate/resize/trim are called under the owning Log's
// append lock (one writer); entry()/entries() may be called concurrently by
// readers. The entry count is published with release/acquire after the
// entry's bytes are written, so a reader never sees a half-written entry.
//
// I/O choice: entries are WRITTEN with pwrite and READ through a read-only
// MAP_SHARED mapping (Linux's page cache is unified, so the mapping sees the
// pwrite at once). mmap gives syscall-free binary search and costs no heap
// for cold segments; pwrite (instead of storing into the mapping) turns
// ENOSPC/EIO on a sparse preallocated file into an error value, where a store
// into the mapping would raise SIGBUS. The file is preallocated (sparse) to
// segment.index.bytes while active and trimmed to entries*entry_size when the
// segment becomes inactive (then fsynced and its fd closed); the mapping
// keeps its length, and is only read below the entry count, which always
// lies inside the file.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "log/file_util.h"

namespace skiff::storage {

class IndexFile {
 public:
  IndexFile(std::filesystem::path path, size_t entry_size);
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  // Opens (creating if absent). The entry count is file size / entry size
  // (callers sanity-check the content). Throws std::system_error on failure.
  void open();
  // Extends the (sparse) file to `max_bytes` (rounded down to whole entries)
  // so that appends fit; maps it. Used for the active segment. Returns errno.
  int make_appendable(size_t max_bytes);
  // Shrinks the file to the valid entries (segment became inactive).
  int trim();
  // Drops entries [n, entries()).
  void truncate_entries(size_t n);
  int append(const uint8_t* entry);  // errno; 0 = ok
  int flush();
  void close();
  // Closes the descriptor but keeps the mapping: an inactive segment's index
  // is read-only, and holding 2 fds per segment would exhaust fd limits.
  void release_fd() { fd_ = FileDescriptor(); }
  // Removes the file (the mapping stays valid until destruction).
  int remove_file();

  size_t entries() const { return entries_.load(std::memory_order_acquire); }
  size_t max_entries() const { return max_entries_; }
  bool full() const { return entries() >= max_entries_; }
  const uint8_t* entry(size_t i) const { return map_ + i * entry_size_; }
  const std::filesystem::path& path() const { return path_; }
  size_t entry_size() const { return entry_size_; }
  bool appendable() const { return appendable_; }
  // False if the file did not hold a whole number of entries when opened.
  bool whole_entries_on_open() const { return whole_on_open_; }

 private:
  int remap(size_t length);

  std::filesystem::path path_;
  size_t entry_size_;
  FileDescriptor fd_;
  uint8_t* map_ = nullptr;
  size_t map_len_ = 0;
  size_t max_entries_ = 0;
  bool appendable_ = false;
  bool whole_on_open_ = true;
  std::atomic<size_t> entries_{0};
};

}  // namespace skiff::storage
