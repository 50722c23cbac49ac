#include "log/index_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace skiff::storage {

IndexFile::IndexFile(std::filesystem::path path, size_t entry_size)
    : path_(std::move(path)), entry_size_(entry_size) {}

IndexFile::~IndexFile() { close(); }

void IndexFile::close() {
  if (map_) ::munmap(map_, map_len_);
  map_ = nullptr;
  map_len_ = 0;
  fd_ = FileDescriptor();
}

void IndexFile::open() {
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "open " + path_.string());
  fd_ = FileDescriptor(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::system_error(errno, std::generic_category(), "fstat " + path_.string());
  size_t n = static_cast<size_t>(st.st_size) / entry_size_;
  whole_on_open_ = static_cast<size_t>(st.st_size) % entry_size_ == 0;
  if (int rc = remap(static_cast<size_t>(st.st_size)); rc != 0) {
    throw std::system_error(rc, std::generic_category(), "mmap " + path_.string());
  }
  max_entries_ = n;
  entries_.store(n, std::memory_order_release);
}

int IndexFile::remap(size_t length) {
  if (map_) ::munmap(map_, map_len_);
  map_ = nullptr;
  map_len_ = 0;
  if (length == 0) return 0;
  void* m = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd_.get(), 0);
  if (m == MAP_FAILED) return errno;
  map_ = static_cast<uint8_t*>(m);
  map_len_ = length;
  return 0;
}

int IndexFile::make_appendable(size_t max_bytes) {
  size_t cap = (max_bytes / entry_size_) * entry_size_;
  size_t n = entries();
  if (cap < n * entry_size_) cap = n * entry_size_;
  if (::ftruncate(fd_.get(), static_cast<off_t>(cap)) != 0) return errno;
  if (int rc = remap(cap); rc != 0) return rc;
  max_entries_ = cap / entry_size_;
  appendable_ = true;
  return 0;
}

int IndexFile::trim() {
  if (!fd_.valid()) return 0;
  size_t len = entries() * entry_size_;
  if (::ftruncate(fd_.get(), static_cast<off_t>(len)) != 0) return errno;
  max_entries_ = entries();
  appendable_ = false;
  return 0;
}

void IndexFile::truncate_entries(size_t n) {
  if (n < entries()) entries_.store(n, std::memory_order_release);
}

int IndexFile::append(const uint8_t* entry) {
  size_t n = entries();
  if (!appendable_ || n >= max_entries_) return ENOSPC;
  if (int rc = pwrite_full(fd_.get(), entry, entry_size_, static_cast<int64_t>(n * entry_size_)); rc != 0) return rc;
  entries_.store(n + 1, std::memory_order_release);
  return 0;
}

int IndexFile::flush() {
  if (!fd_.valid()) return 0;
  return ::fdatasync(fd_.get()) == 0 ? 0 : errno;
}

int IndexFile::remove_file() { return ::unlink(path_.c_str()) == 0 || errno == ENOENT ? 0 : errno; }

}  // namespace skiff::storage
