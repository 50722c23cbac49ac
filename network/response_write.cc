#include "network/response_write.h"

#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>

namespace skiff::network {
namespace {

constexpr size_t kMaxIov = 16;

size_t chunk_size(const ResponseChunk& c) {
  if (const auto* r = std::get_if<FileRegion>(&c)) return r->length;
  return std::get<std::vector<uint8_t>>(c).size();
}

void advance(const std::vector<ResponseChunk>& chunks, WriteCursor& at, size_t n) {
  while (n > 0 && at.chunk < chunks.size()) {
    size_t left = chunk_size(chunks[at.chunk]) - at.offset;
    if (n < left) {
      at.offset += n;
      return;
    }
    n -= left;
    ++at.chunk;
    at.offset = 0;
  }
}

bool would_block() { return errno == EAGAIN || errno == EWOULDBLOCK; }

// One gathered sendmsg of the byte chunks from `at` on (up to kMaxIov).
WriteStatus send_bytes(int fd, std::vector<ResponseChunk>& chunks, WriteCursor& at, std::string& error, int flags) {
  iovec iov[kMaxIov];
  size_t n = 0;
  for (size_t i = at.chunk; i < chunks.size() && n < kMaxIov; ++i) {
    auto* bytes = std::get_if<std::vector<uint8_t>>(&chunks[i]);
    if (!bytes) break;
    size_t skip = i == at.chunk ? at.offset : 0;
    iov[n++] = {bytes->data() + skip, bytes->size() - skip};
  }
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = n;
  ssize_t w;
  do {
    w = ::sendmsg(fd, &msg, flags);
  } while (w < 0 && errno == EINTR);
  if (w >= 0) {
    advance(chunks, at, static_cast<size_t>(w));
    return WriteStatus::kDone;  // the caller loops: a short write shows up as EAGAIN next
  }
  if (would_block()) return WriteStatus::kBlocked;
  error = std::string("send: ") + std::strerror(errno);
  return WriteStatus::kFailed;
}

WriteStatus send_region(int fd, const FileRegion& region, std::vector<ResponseChunk>& chunks, WriteCursor& at,
                        std::string& error) {
  off_t off = static_cast<off_t>(region.offset + static_cast<int64_t>(at.offset));
  ssize_t n;
  do {
    n = ::sendfile(fd, region.fd, &off, region.length - at.offset);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    advance(chunks, at, static_cast<size_t>(n));
    return WriteStatus::kDone;
  }
  if (n < 0 && would_block()) return WriteStatus::kBlocked;
  // n == 0: the file is shorter than promised; the frame would be corrupt.
  error = n == 0 ? "file region ended early" : std::string("sendfile: ") + std::strerror(errno);
  return WriteStatus::kFailed;
}

}  // namespace

WriteStatus write_response_chunks(int fd, std::vector<ResponseChunk>& chunks, WriteCursor& at, std::string& error,
                                  bool more) {
  const int flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0);
  while (at.chunk < chunks.size()) {
    if (chunk_size(chunks[at.chunk]) == at.offset) {  // an empty chunk
      ++at.chunk;
      at.offset = 0;
      continue;
    }
    const auto* region = std::get_if<FileRegion>(&chunks[at.chunk]);
    WriteStatus s = region ? send_region(fd, *region, chunks, at, error) : send_bytes(fd, chunks, at, error, flags);
    if (s != WriteStatus::kDone) return s;
  }
  return WriteStatus::kDone;
}

void drop_written(std::vector<ResponseChunk>& chunks, WriteCursor at) {
  if (at.chunk >= chunks.size()) {
    chunks.clear();
    return;
  }
  chunks.erase(chunks.begin(), chunks.begin() + static_cast<std::ptrdiff_t>(at.chunk));
  if (at.offset == 0) return;
  if (auto* r = std::get_if<FileRegion>(&chunks.front())) {
    r->offset += static_cast<int64_t>(at.offset);
    r->length -= at.offset;
  } else {
    auto& bytes = std::get<std::vector<uint8_t>>(chunks.front());
    bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(at.offset));
  }
}

}  // namespace skiff::network
