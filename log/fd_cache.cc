#include "log/fd_cache.h"

#include <fcntl.h>

#include <cerrno>

namespace skiff::storage {

namespace {
constexpr size_t kDefaultCapacity = 1024;

Result<FdRef> open_fd(std::string path, int flags) {
  int fd = ::open(path.c_str(), flags | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) return unexpected(errno_error());
  return std::make_shared<const OpenFile>(FileDescriptor(fd), std::move(path));
}
}  // namespace

FdCache::FdCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

FdCache::~FdCache() = default;

const std::shared_ptr<FdCache>& FdCache::default_instance() {
  static const std::shared_ptr<FdCache> cache = std::make_shared<FdCache>(kDefaultCapacity);
  return cache;
}

void FdCache::set_capacity(size_t capacity) {
  std::vector<FdRef> closed;
  std::lock_guard lk(mu_);
  capacity_ = capacity == 0 ? 1 : capacity;
  evict_locked(closed);
}

size_t FdCache::capacity() const {
  std::lock_guard lk(mu_);
  return capacity_;
}

size_t FdCache::open_count() const {
  std::lock_guard lk(mu_);
  return lru_.size();
}

uint64_t FdCache::opens() const {
  std::lock_guard lk(mu_);
  return opens_;
}

uint64_t FdCache::evictions() const {
  std::lock_guard lk(mu_);
  return evictions_;
}

void FdCache::touch(const CachedFile& f) {
  if (f.lru_it_ != lru_.begin()) lru_.splice(lru_.begin(), lru_, f.lru_it_);
}

FdRef FdCache::detach(const CachedFile& f) {
  if (!f.fd_) return nullptr;
  lru_.erase(f.lru_it_);
  return std::move(f.fd_);
}

// Closes least recently used unpinned entries while over capacity. The
// descriptors are handed back in `closed` so that close(2) runs unlocked.
// use_count() == 1 means only the slot holds it: no FdRef is out, and none
// can appear without mu_ (acquire takes it), so closing it is safe.
void FdCache::evict_locked(std::vector<FdRef>& closed) {
  auto it = lru_.end();
  size_t open = lru_.size();
  while (open > capacity_ && it != lru_.begin()) {
    --it;
    CachedFile* f = *it;
    if (f->fd_.use_count() > 1) continue;  // pinned
    closed.push_back(std::move(f->fd_));
    it = lru_.erase(it);
    --open;
    ++evictions_;
  }
}

FdRef FdCache::install(const CachedFile& f, FdRef fd) {
  std::vector<FdRef> closed;
  FdRef out;
  {
    std::lock_guard lk(mu_);
    ++opens_;
    if (f.fd_) {  // another thread opened it meanwhile: use theirs, close ours
      closed.push_back(std::move(fd));
      touch(f);
    } else {
      f.fd_ = std::move(fd);
      lru_.push_front(const_cast<CachedFile*>(&f));
      f.lru_it_ = lru_.begin();
    }
    out = f.fd_;  // pinned from here: evict_locked skips it
    evict_locked(closed);
  }
  return out;  // `closed` is destroyed (descriptors closed) without mu_
}

Result<FdRef> FdCache::acquire(const CachedFile& f) {
  {
    std::vector<FdRef> closed;  // closed after the lock is released
    std::lock_guard lk(mu_);
    if (f.fd_) {
      touch(f);
      FdRef out = f.fd_;
      if (lru_.size() > capacity_) evict_locked(closed);  // pins dropped since the last open
      return out;
    }
  }
  auto fd = open_fd(f.path_string(), 0);
  if (!fd) return fd;
  return install(f, std::move(*fd));
}

CachedFile::CachedFile(FdCache& cache, std::string path) : cache_(cache), own_path_(std::move(path)) {}

CachedFile::CachedFile(FdCache& cache, SegmentStem stem, const char* suffix)
    : cache_(cache), stem_(stem.stem), suffix_(suffix) {}

CachedFile::~CachedFile() { close(); }

Result<FdRef> CachedFile::open(bool create, bool truncate) {
  const int flags = (create ? O_CREAT : 0) | (truncate ? O_TRUNC : 0);
  auto fd = open_fd(path_string(), flags);
  if (!fd) return fd;
  FdRef old;
  {
    std::lock_guard lk(cache_.mu_);
    old = cache_.detach(*this);  // a fresh open replaces whatever was cached
  }
  return cache_.install(*this, std::move(*fd));
}

Result<FdRef> CachedFile::acquire() const { return cache_.acquire(*this); }

void CachedFile::close() {
  FdRef old;
  std::lock_guard lk(cache_.mu_);
  old = cache_.detach(*this);
  // `old` is released after the lock (declared before the guard).
}

bool CachedFile::is_open() const {
  std::lock_guard lk(cache_.mu_);
  return fd_ != nullptr;
}

}  // namespace skiff::storage
