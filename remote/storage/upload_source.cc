#include "remote/storage/upload_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace skiff::remote {

UploadSource::~UploadSource() {
  for (auto& p : pieces_)
    if (p.fd >= 0) ::close(p.fd);
}

Expected<void, std::string> UploadSource::add_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return unexpected("cannot open " + path.string() + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return unexpected("cannot stat " + path.string() + ": " + std::strerror(err));
  }
  Piece p;
  p.fd = fd;
  p.path = path.string();
  p.start = size_;
  p.size = static_cast<uint64_t>(st.st_size);
  size_ += p.size;
  pieces_.push_back(std::move(p));
  return {};
}

void UploadSource::add_bytes(std::string bytes) {
  Piece p;
  p.start = size_;
  p.size = bytes.size();
  p.bytes = std::move(bytes);
  size_ += p.size;
  pieces_.push_back(std::move(p));
}

Expected<void, std::string> UploadSource::read_piece(const Piece& p, uint64_t from, uint64_t n,
                                                     std::string& out) const {
  if (p.fd < 0) {
    out.append(p.bytes, from, n);
    return {};
  }
  const size_t at = out.size();
  out.resize(at + n);
  uint64_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(p.fd, out.data() + at + done, n - done, static_cast<off_t>(from + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return unexpected("cannot read " + p.path + ": " + std::strerror(errno));
    if (r == 0) return unexpected(p.path + " shrank while it was uploaded");
    done += static_cast<uint64_t>(r);
  }
  return {};
}

Expected<void, std::string> UploadSource::read(uint64_t offset, uint64_t n, std::string& out) const {
  out.clear();
  if (offset > size_ || n > size_ - offset) return unexpected(std::string("read past the end of the upload"));
  out.reserve(n);
  for (const auto& p : pieces_) {
    if (n == 0) break;
    if (offset >= p.start + p.size) continue;
    const uint64_t from = offset - p.start;
    const uint64_t take = std::min(n, p.size - from);
    auto ok = read_piece(p, from, take, out);
    if (!ok) return ok;
    offset += take;
    n -= take;
  }
  return {};
}

}  // namespace skiff::remote
