#include "log/index_file.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "log/storage_log.h"

namespace skiff::storage {

IndexFile::IndexFile(FdCache& cache, std::filesystem::path path, size_t entry_size)
    : file_(cache, std::move(path)), entry_size_(entry_size) {}

IndexFile::~IndexFile() { close(); }

void IndexFile::unmap() {
  std::lock_guard lk(map_mu_);
  if (auto* m = map_.exchange(nullptr)) ::munmap(const_cast<uint8_t*>(m), map_len_);
  map_len_ = 0;
  map_failed_ = false;
}

void IndexFile::close() {
  unmap();
  file_.close();
}

void IndexFile::open(bool truncate) {
  FdRef fd;
  if (int rc = file_.open(true, truncate, &fd); rc != 0) {
    throw std::system_error(rc, std::generic_category(), "open " + path().string());
  }
  struct stat st {};
  if (::fstat(fd->fd(), &st) != 0) throw std::system_error(errno, std::generic_category(), "fstat " + path().string());
  unmap();
  const auto size = static_cast<size_t>(st.st_size);
  whole_on_open_ = size % entry_size_ == 0;
  file_len_.store(size, std::memory_order_relaxed);
  max_entries_ = size / entry_size_;
  entries_.store(max_entries_, std::memory_order_release);
}

const uint8_t* IndexFile::map_for_read() const {
  if (const uint8_t* m = map_.load(std::memory_order_acquire)) return m;
  std::lock_guard lk(map_mu_);
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
  size_t got = 0;
  auto fd = file_.acquire();
  if (!fd || pread_full((*fd)->fd(), out, entry_size_, static_cast<int64_t>(off), &got) != 0 || got != entry_size_) {
    std::memset(out, 0, entry_size_);
  }
}

int IndexFile::make_appendable(size_t max_bytes) {
  size_t cap = (max_bytes / entry_size_) * entry_size_;
  size_t n = entries();
  if (cap < n * entry_size_) cap = n * entry_size_;
  auto acquired = file_.acquire();
  if (!acquired) return acquired.error().sys_errno;
  const FdRef& fd = *acquired;
  if (::ftruncate(fd->fd(), static_cast<off_t>(cap)) != 0) return errno;
  unmap();  // no readers yet (see the header); the next read maps `cap`
  file_len_.store(cap, std::memory_order_relaxed);
  max_entries_ = cap / entry_size_;
  appendable_ = true;
  return 0;
}

int IndexFile::trim() {
  if (!appendable_) return 0;
  auto acquired = file_.acquire();
  if (!acquired) return acquired.error().sys_errno;
  const FdRef& fd = *acquired;
  if (::ftruncate(fd->fd(), static_cast<off_t>(entries() * entry_size_)) != 0) return errno;
  needs_sync_.store(true, std::memory_order_release);
  max_entries_ = entries();
  file_len_.store(max_entries_ * entry_size_, std::memory_order_relaxed);  // a later mapping stays inside the file
  appendable_ = false;
  return 0;
}

void IndexFile::truncate_entries(size_t n) {
  if (n < entries()) entries_.store(n, std::memory_order_release);
}

int IndexFile::append(const uint8_t* entry) {
  size_t n = entries();
  if (!appendable_ || n >= max_entries_) return ENOSPC;
  auto acquired = file_.acquire();
  if (!acquired) return acquired.error().sys_errno;
  const FdRef& fd = *acquired;
  if (int rc = pwrite_full(fd->fd(), entry, entry_size_, static_cast<int64_t>(n * entry_size_)); rc != 0) return rc;
  needs_sync_.store(true, std::memory_order_release);
  entries_.store(n + 1, std::memory_order_release);
  return 0;
}

int IndexFile::flush() {
  if (!needs_sync_.exchange(false, std::memory_order_acq_rel)) return 0;
  auto fd = file_.acquire();
  int err = fd ? 0 : fd.error().sys_errno;
  if (fd && ::fdatasync((*fd)->fd()) != 0) err = errno;
  if (err != 0) needs_sync_.store(true, std::memory_order_release);
  return err;
}

int IndexFile::remove_file() {
  file_.close();
  return ::unlink(path().c_str()) == 0 || errno == ENOENT ? 0 : errno;
}

}  // namespace skiff::storage
