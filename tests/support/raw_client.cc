#include "tests/support/raw_client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skiff::test {

RawClient::RawClient(const std::string& host, uint16_t port, int timeout_ms) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return;
  for (auto* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype, 0);
    if (fd < 0) continue;
    timeval tv{timeout_ms / 1000, static_cast<suseconds_t>(timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      fd_ = fd;
      break;
    }
    ::close(fd);
  }
  freeaddrinfo(res);
}

RawClient& RawClient::operator=(RawClient&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

RawClient::~RawClient() { close(); }

void RawClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void RawClient::shutdown_write() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

bool RawClient::send_raw(const void* data, size_t size) {
  auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::send(fd_, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::vector<uint8_t> be32(uint32_t v) { return {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)}; }

bool RawClient::send_frame(const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> frame = be32(static_cast<uint32_t>(payload.size()));
  frame.insert(frame.end(), payload.begin(), payload.end());
  return send_raw(frame.data(), frame.size());
}

bool RawClient::read_exact(uint8_t* out, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd_, out, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    out += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

std::optional<std::vector<uint8_t>> RawClient::read_frame() {
  if (fd_ < 0) return std::nullopt;
  uint8_t size_bytes[4];
  if (!read_exact(size_bytes, 4)) return std::nullopt;
  uint32_t size = (uint32_t(size_bytes[0]) << 24) | (uint32_t(size_bytes[1]) << 16) | (uint32_t(size_bytes[2]) << 8) |
                  uint32_t(size_bytes[3]);
  if (size > (1u << 30)) return std::nullopt;
  std::vector<uint8_t> body(size);
  if (size && !read_exact(body.data(), size)) return std::nullopt;
  return body;
}

std::string RawClient::read_some() {
  if (fd_ < 0) return {};
  std::string out(size_t{64} * 1024, '\0');
  ssize_t r = -1;
  do {
    r = ::recv(fd_, out.data(), out.size(), 0);
  } while (r < 0 && errno == EINTR);
  out.resize(r > 0 ? static_cast<size_t>(r) : 0);
  return out;
}

bool RawClient::wait_closed() {
  if (fd_ < 0) return true;
  uint8_t b;
  for (;;) {
    ssize_t r = ::recv(fd_, &b, 1, 0);
    if (r == 0) return true;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno == ECONNRESET;  // EAGAIN = timed out: still open
  }
}

}  // namespace skiff::test
