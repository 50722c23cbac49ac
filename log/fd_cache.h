// FdCache: a bounded LRU of open file descriptors shared by every segment
// file (.log, .index, .timeindex) of every partition, so that the number of
// partitions is not bounded by RLIMIT_NOFILE (Kafka keeps 1-3 descriptors per
// segment open for its whole life; a broker under `nofile` 20,000 then fails
// near 6,600 partitions).
//
// A CachedFile names one file. acquire() returns an FdRef: shared ownership
// of an open descriptor (an OpenFile). While any FdRef is alive the entry is
// PINNED: the cache never closes it, so a pread, an append or a sendfile that
// the network layer runs long after the read returned (FileSlice keeps the
// FdRef) always uses a live descriptor of the right file. When the cache is
// over capacity it closes the least recently used UNPINNED descriptors; if
// every entry is pinned it goes over capacity rather than failing the caller
// (pins are short-lived: one request's reads), and comes back under as pins
// are dropped. A closed entry is reopened on the next acquire (by path,
// without O_CREAT: a file deleted meanwhile gives ENOENT, never a new file).
//
// Durability note: fdatasync on a descriptor reopened after eviction flushes
// the inode's dirty pages written through the old one (Linux: errseq_t
// reports a writeback error to a later opener that has not seen it).
//
// Threads: every method is thread-safe. One mutex guards the LRU and each
// CachedFile's slot; open(2) and close(2) run outside it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "log/file_util.h"
#include "log/result.h"

namespace skiff::storage {

class CachedFile;

// A segment's path without its extension, owned by the segment, whose files
// name themselves `*stem + suffix` (CachedFile): one copy of the path for
// the three of them.
struct SegmentStem {
  const std::string* stem;
};

// One open descriptor. Shared by the cache slot and by everyone using it.
class OpenFile {
 public:
  OpenFile(FileDescriptor fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }

 private:
  FileDescriptor fd_;
  std::string path_;
};
using FdRef = std::shared_ptr<const OpenFile>;

class FdCache {
 public:
  explicit FdCache(size_t capacity);
  ~FdCache();  // every CachedFile of this cache must be destroyed first
  FdCache(const FdCache&) = delete;
  FdCache& operator=(const FdCache&) = delete;

  // The cache used when a Log is opened without one (tests, tools).
  // Users hold caches by shared_ptr: a segment keeps its cache alive.
  static const std::shared_ptr<FdCache>& default_instance();

  // Changes the bound; closes unpinned descriptors down to it.
  void set_capacity(size_t capacity);
  size_t capacity() const;
  size_t open_count() const;   // descriptors held by the cache now
  uint64_t opens() const;      // open(2) calls so far (reopens included)
  uint64_t evictions() const;  // descriptors closed to respect the bound

 private:
  friend class CachedFile;
  Result<FdRef> acquire(const CachedFile& f);
  // Caches `fd` for `f` (unless another thread did first); returns the one cached.
  FdRef install(const CachedFile& f, FdRef fd);
  void touch(const CachedFile& f);                // mu_ held, f open
  FdRef detach(const CachedFile& f);              // mu_ held
  void evict_locked(std::vector<FdRef>& closed);  // mu_ held

  mutable std::mutex mu_;
  std::list<CachedFile*> lru_;  // most recent at the front; only open entries
  size_t capacity_;
  uint64_t opens_ = 0;
  uint64_t evictions_ = 0;
};

// One file whose descriptor lives in an FdCache. Not copyable or movable
// (the cache keeps its address).
class CachedFile {
 public:
  CachedFile(FdCache& cache, std::string path);
  // The file `*stem.stem + suffix`; the stem outlives this.
  CachedFile(FdCache& cache, SegmentStem stem, const char* suffix);
  ~CachedFile();  // leaves the cache; pinned holders keep their descriptor
  CachedFile(const CachedFile&) = delete;
  CachedFile& operator=(const CachedFile&) = delete;

  // Opens (O_CREAT when `create`, O_TRUNC when `truncate`) and caches the
  // descriptor. The pinned descriptor, or the open's errno as an I/O Error.
  Result<FdRef> open(bool create, bool truncate);
  // The cached descriptor, reopened (O_RDWR, no O_CREAT) if it was evicted;
  // the open's errno as an I/O Error on failure.
  Result<FdRef> acquire() const;
  // Closes the cached descriptor now (pinned holders keep theirs).
  void close();
  bool is_open() const;
  std::filesystem::path path() const { return path_string(); }
  std::string path_string() const { return stem_ != nullptr ? *stem_ + suffix_ : own_path_; }

 private:
  friend class FdCache;
  FdCache& cache_;
  // Strings, not a std::filesystem::path: a path keeps an array of its
  // components besides its text (~450 bytes for a segment file's), and a
  // broker holds three of these per segment. Either own_path_, or stem_
  // and suffix_.
  const std::string own_path_;
  const std::string* const stem_ = nullptr;
  const char* const suffix_ = "";
  // Guarded by cache_.mu_:
  mutable FdRef fd_;
  mutable std::list<CachedFile*>::iterator lru_it_;
};

}  // namespace skiff::storage
