// IndexFile: the fixed-width-entry file under OffsetIndex and TimeIndex.
//
// Threads: append/truncate/trim/flush are called under the owning Log's
// append lock (one writer; flush also from the group commit, which is
// serialised by the Log); restore only before readers can see the index;
// make_appendable when the segment is created or loaded, or under the append
// lock at the first append to a segment restored from a clean close, when
// readers may hold the mapping (it is kept, never replaced). entry() and
// entries() may be called concurrently by readers. The entry count is
// published with release/acquire after the entry's bytes are written, so a
// reader never sees a half-written entry.
//
// Descriptors: the file's descriptor lives in the shared FdCache (see
// fd_cache.h), so an index holds none for itself: it is reopened on demand
// for a write, a flush, or to map it.
//
// I/O choice: entries are WRITTEN with pwrite and READ through a read-only
// MAP_SHARED mapping (Linux's page cache is unified, so the mapping sees the
// pwrite at once). mmap gives syscall-free binary search and costs no heap
// for cold segments; pwrite (instead of storing into the mapping) turns
// ENOSPC/EIO on a sparse preallocated file into an error value, where a store
// into the mapping would raise SIGBUS. The file is preallocated (sparse) to
// segment.index.bytes while active and trimmed to entries*entry_size when the
// segment becomes inactive (then fsynced); the mapping keeps its length, and
// is only read below the entry count, which always lies inside the file.
// The mapping is made lazily, on the first entry read: an index nobody reads
// (most partitions of a big broker, every index with no entries) costs no
// mapping, which matters because vm.max_map_count (65530 by default) bounds
// the mappings of a process. If mmap fails (that limit), entries are read
// with pread instead, and a warning is logged once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>

#include "log/fd_cache.h"

namespace skiff::storage {

class IndexFile {
 public:
  IndexFile(FdCache& cache, std::string path, size_t entry_size);
  IndexFile(FdCache& cache, SegmentStem stem, const char* suffix, size_t entry_size);
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  // Opens (creating if absent; emptying it first if `truncate`). The entry
  // count is file size / entry size (callers sanity-check the content).
  // Throws std::system_error on failure.
  void open(bool truncate = false);
  // Takes `entries` whole entries as the file's content without opening it
  // (a clean close recorded them; the file was trimmed to them).
  void restore(size_t entries);
  // Extends the (sparse) file to `max_bytes` (rounded down to whole entries)
  // so that appends fit. Used for the active segment. An I/O Error (errno) on failure.
  Result<void> make_appendable(size_t max_bytes);
  // Shrinks the file to the valid entries (segment became inactive).
  Result<void> trim();
  // Drops entries [n, entries()); while appendable, also zeroes them in the
  // file, so that a crash never leaves entries past the count that recovery
  // (LogSegment::recover_tail) could take for real ones.
  void truncate_entries(size_t n);
  // ENOSPC (as an I/O Error) when the preallocated file is full.
  Result<void> append(const uint8_t* entry);
  // fdatasync if anything was written since the last flush.
  Result<void> flush();
  void close();
  // Closes the cached descriptor now (it would be reopened if needed).
  void release_fd() { file_.close(); }
  // Removes the file (the mapping stays valid until destruction).
  Result<void> remove_file();

  size_t entries() const { return entries_.load(std::memory_order_acquire); }
  size_t max_entries() const { return max_entries_; }
  bool full() const { return entries() >= max_entries_; }
  // Copies entry i (< entries()) into `out` (entry_size bytes). On an I/O
  // error (pread fallback only) `out` is zeroed: position 0, a safe floor.
  void entry(size_t i, uint8_t* out) const;
  // The same, always with pread: the few reads of a load (sanity checks,
  // the last entry) map nothing (a mapping costs an mmap and a munmap).
  void peek(size_t i, uint8_t* out) const;
  std::filesystem::path path() const { return file_.path(); }
  size_t entry_size() const { return entry_size_; }
  bool appendable() const { return appendable_; }
  bool mapped() const { return map_.load(std::memory_order_acquire) != nullptr; }
  // False if the file did not hold a whole number of entries when opened.
  bool whole_entries_on_open() const { return whole_on_open_; }

 private:
  const uint8_t* map_for_read() const;
  void zero_on_disk(size_t from, size_t to);
  void unmap();

  CachedFile file_;
  size_t entry_size_;
  size_t max_entries_ = 0;
  bool appendable_ = false;
  bool whole_on_open_ = true;
  std::atomic<size_t> entries_{0};
  std::atomic<size_t> file_len_{0};  // bytes to map (file size while open)
  std::atomic<bool> needs_sync_{false};

  mutable std::atomic<const uint8_t*> map_{nullptr};
  mutable size_t map_len_ = 0;  // set before map_ is published
  mutable bool map_failed_ = false;
};

}  // namespace skiff::storage
