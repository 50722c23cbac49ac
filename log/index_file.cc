#include "log/index_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "log/lock_stripes.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace {
// Serializes an index's mapping and unmapping (the mapping is made once, lazily).
std::mutex& map_lock(const IndexFile* f) {
  static LockStripes<> map_locks;
  return map_locks.for_object(f);
}
}  // namespace

IndexFile::IndexFile(FdCache& cache, std::string path, size_t entry_size)
    : file_(cache, std::move(path)), entry_size_(entry_size) {}

IndexFile::IndexFile(FdCache& cache, SegmentStem stem, const char* suffix, size_t entry_size)
    : file_(cache, stem, suffix), entry_size_(entry_size) {}

IndexFile::~IndexFile() { close(); }

void IndexFile::unmap() {
  std::lock_guard lk(map_lock(this));
  if (auto* m = map_.exchange(nullptr)) ::munmap(const_cast<uint8_t*>(m), map_len_);
  map_len_ = 0;
  map_failed_ = false;
}

void IndexFile::close() {
  unmap();
  file_.close();
}

void IndexFile::open(bool truncate) {
  auto opened = file_.open(true, truncate);
  if (!opened) throw_io(opened.error(), "open " + path().string());
  const FdRef& fd = *opened;
  struct stat st {};
  if (::fstat(fd->fd(), &st) != 0) throw std::system_error(errno, std::generic_category(), "fstat " + path().string());
  unmap();
  const auto size = static_cast<size_t>(st.st_size);
  whole_on_open_ = size % entry_size_ == 0;
  file_len_.store(size, std::memory_order_relaxed);
  max_entries_ = size / entry_size_;
  entries_.store(max_entries_, std::memory_order_release);
}

void IndexFile::restore(size_t entries) {
  unmap();
  whole_on_open_ = true;
  file_len_.store(entries * entry_size_, std::memory_order_relaxed);
  max_entries_ = entries;
  entries_.store(entries, std::memory_order_release);
}

const uint8_t* IndexFile::map_for_read() const {
  if (const uint8_t* m = map_.load(std::memory_order_acquire)) return m;
  std::lock_guard lk(map_lock(this));
  if (const uint8_t* m = map_.load(std::memory_order_acquire)) return m;
  const size_t len = file_len_.load(std::memory_order_relaxed);
  if (map_failed_ || len == 0) return nullptr;
  auto fd = file_.acquire();
  void* m = fd ? ::mmap(nullptr, len, PROT_READ, MAP_SHARED, (*fd)->fd(), 0) : MAP_FAILED;
  if (m == MAP_FAILED) {
    const int err = fd ? errno : fd.error().sys_errno;
    map_failed_ = true;
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
      storage_log().warn("cannot map index {}: {} (vm.max_map_count?); reading indexes with pread instead",
                         path().string(), std::strerror(err));
    }
    return nullptr;
  }
  map_len_ = len;
  map_.store(static_cast<const uint8_t*>(m), std::memory_order_release);
  return static_cast<const uint8_t*>(m);
}

void IndexFile::entry(size_t i, uint8_t* out) const {
  const size_t off = i * entry_size_;
  if (const uint8_t* m = map_for_read(); m && off + entry_size_ <= map_len_) {
    std::memcpy(out, m + off, entry_size_);
    return;
  }
  peek(i, out);
}

void IndexFile::peek(size_t i, uint8_t* out) const {
  const size_t off = i * entry_size_;
  size_t got = 0;
  auto fd = file_.acquire();
  if (!fd || pread_full((*fd)->fd(), out, entry_size_, static_cast<int64_t>(off), &got) != 0 || got != entry_size_) {
    std::memset(out, 0, entry_size_);
  }
}

Result<void> IndexFile::make_appendable(size_t max_bytes) {
  size_t cap = (max_bytes / entry_size_) * entry_size_;
  size_t n = entries();
  if (cap < n * entry_size_) cap = n * entry_size_;
  auto fd = file_.acquire();
  if (!fd) return unexpected(fd.error());
  if (::ftruncate((*fd)->fd(), static_cast<off_t>(cap)) != 0) return unexpected(errno_error());
  // A mapping made before stays: readers may be using it (a segment restored
  // from a clean close becomes appendable at its first append, while fetches
  // read it). Entries past its end are read with pread; a mapping made from
  // now on covers `cap`.
  file_len_.store(cap, std::memory_order_relaxed);
  max_entries_ = cap / entry_size_;
  appendable_ = true;
  return {};
}

Result<void> IndexFile::trim() {
  if (!appendable_) return {};
  auto fd = file_.acquire();
  if (!fd) return unexpected(fd.error());
  if (::ftruncate((*fd)->fd(), static_cast<off_t>(entries() * entry_size_)) != 0) return unexpected(errno_error());
  needs_sync_.store(true, std::memory_order_release);
  max_entries_ = entries();
  file_len_.store(max_entries_ * entry_size_, std::memory_order_relaxed);  // a later mapping stays inside the file
  appendable_ = false;
  return {};
}

void IndexFile::truncate_entries(size_t n) {
  const size_t old = entries();
  if (n >= old) return;
  entries_.store(n, std::memory_order_release);
  if (appendable_) zero_on_disk(n, std::min(old, max_entries_));
}

// Best effort: a failure leaves stale entries, which recovery checks anyway.
void IndexFile::zero_on_disk(size_t from, size_t to) {
  if (from >= to) return;
  auto fd = file_.acquire();
  if (!fd) return;
  const auto off = static_cast<off_t>(from * entry_size_);
  const auto len = static_cast<off_t>((to - from) * entry_size_);
  if (::fallocate((*fd)->fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) == 0) return;
  static constexpr uint8_t kZeros[4096] = {};
  for (off_t done = 0; done < len;) {
    const auto n = static_cast<size_t>(std::min<off_t>(len - done, sizeof kZeros));
    if (pwrite_full((*fd)->fd(), kZeros, n, off + done) != 0) return;
    done += static_cast<off_t>(n);
  }
}

Result<void> IndexFile::append(const uint8_t* entry) {
  size_t n = entries();
  if (!appendable_ || n >= max_entries_) return unexpected(Error::io(ENOSPC));
  auto fd = file_.acquire();
  if (!fd) return unexpected(fd.error());
  if (int rc = pwrite_full((*fd)->fd(), entry, entry_size_, static_cast<int64_t>(n * entry_size_)); rc != 0)
    return unexpected(Error::io(rc));
  needs_sync_.store(true, std::memory_order_release);
  entries_.store(n + 1, std::memory_order_release);
  return {};
}

Result<void> IndexFile::flush() {
  if (!needs_sync_.exchange(false, std::memory_order_acq_rel)) return {};
  auto fd = file_.acquire();
  Result<void> r;
  if (!fd)
    r = unexpected(fd.error());
  else if (::fdatasync((*fd)->fd()) != 0)
    r = unexpected(errno_error());
  if (!r) needs_sync_.store(true, std::memory_order_release);
  return r;
}

Result<void> IndexFile::remove_file() {
  file_.close();
  if (::unlink(path().c_str()) == 0 || errno == ENOENT) return {};
  return unexpected(errno_error());
}

}  // namespace skiff::storage
