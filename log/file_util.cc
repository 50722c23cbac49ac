#include "log/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <vector>

namespace skiff::storage {

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

int pread_full(int fd, void* buf, size_t n, int64_t off, size_t* got) {
  size_t done = 0;
  auto* p = static_cast<uint8_t*>(buf);
  while (done < n) {
    ssize_t r = ::pread(fd, p + done, n - done, off + static_cast<int64_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      if (got) *got = done;
      return errno;
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  if (got) *got = done;
  return 0;
}

int pwrite_full(int fd, const void* buf, size_t n, int64_t off) {
  size_t done = 0;
  auto* p = static_cast<const uint8_t*>(buf);
  while (done < n) {
    ssize_t r = ::pwrite(fd, p + done, n - done, off + static_cast<int64_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (r == 0) return EIO;
    done += static_cast<size_t>(r);
  }
  return 0;
}

int fsync_dir(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  int rc = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return rc;
}

int create_directories_durably(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> made;  // deepest last
  std::filesystem::path cur = dir.lexically_normal();
  if (!cur.has_filename()) cur = cur.parent_path();  // a trailing '/'
  while (!cur.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(cur, ec)) break;
    made.push_back(cur);
    if (cur == cur.parent_path()) break;
    cur = cur.parent_path();
  }
  for (auto it = made.rbegin(); it != made.rend(); ++it) {
    if (::mkdir(it->c_str(), 0755) != 0 && errno != EEXIST) return errno;
  }
  // Children first is not needed: an fsync of each new directory's parent
  // makes its entry durable; the deepest's own (empty) entries need none.
  for (const auto& d : made) {
    const auto parent = d.has_parent_path() ? d.parent_path() : std::filesystem::path(".");
    if (int rc = fsync_dir(parent)) return rc;
  }
  return 0;
}

int write_file_durably(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  int rc = pwrite_full(fd, content.data(), content.size(), 0);
  if (rc == 0 && ::fsync(fd) != 0) rc = errno;
  ::close(fd);
  if (rc == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) rc = errno;
  if (rc != 0) {
    ::unlink(tmp.c_str());
    return rc;
  }
  return fsync_dir(path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path());
}

// open, fstat, read, close: an ifstream costs several times that (its
// buffer, locale and stream state), once per partition at startup.
bool read_small_file(const std::filesystem::path& path, std::string& out) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return false;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return false;
  // One byte more than the size, to see the end in the same buffer; /proc
  // files report size 0, so they start at 4 KiB and grow.
  std::string buf(st.st_size > 0 ? static_cast<size_t>(st.st_size) + 1 : 4096, '\0');
  size_t have = 0;
  for (;;) {
    if (have == buf.size()) buf.resize(buf.size() * 2);
    const ssize_t n = ::read(fd.get(), buf.data() + have, buf.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  buf.resize(have);
  out = std::move(buf);
  return true;
}

void for_each_dir_entry(const std::filesystem::path& dir, const std::function<void(std::string_view, bool)>& f) {
  DIR* d = ::opendir(dir.c_str());
  auto fail = [&](int err) {
    throw std::filesystem::filesystem_error("cannot list directory", dir,
                                            std::error_code(err, std::generic_category()));
  };
  if (d == nullptr) fail(errno);
  std::unique_ptr<DIR, int (*)(DIR*)> closer(d, ::closedir);
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(d);
    if (e == nullptr) {
      if (errno != 0) fail(errno);
      return;
    }
    const std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    bool is_dir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st {};
      is_dir = ::fstatat(::dirfd(d), e->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
    }
    f(name, is_dir);
  }
}

}  // namespace skiff::storage
