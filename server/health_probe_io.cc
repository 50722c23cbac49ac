#include "server/health_probe_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skiff::server {
namespace {

int remaining_ms(ProbeClock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - ProbeClock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Finishes a non-blocking connect(); 0 when connected, else -1 with errno.
int finish_connect(int fd, int rc, ProbeClock::time_point deadline) {
  if (rc == 0 || errno != EINPROGRESS) return rc;
  if (!probe_wait(fd, POLLOUT, deadline)) {
    errno = ETIMEDOUT;
    return -1;
  }
  int so_error = 0;
  socklen_t len = sizeof so_error;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
  errno = so_error;
  return so_error == 0 ? 0 : -1;
}

class PlainTransport : public ProbeTransport {
 public:
  explicit PlainTransport(int fd) : fd_(fd) {}
  ~PlainTransport() override { ::close(fd_); }
  PlainTransport(const PlainTransport&) = delete;
  PlainTransport& operator=(const PlainTransport&) = delete;

  std::optional<std::string> send_all(std::span<const uint8_t> bytes, ProbeClock::time_point deadline) override {
    size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<size_t>(n);
      } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        if (!probe_wait(fd_, POLLOUT, deadline)) return std::string("could not send in time");
      } else {
        return std::string(std::strerror(errno));
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> read_exact(std::span<uint8_t> out, ProbeClock::time_point deadline) override {
    size_t got = 0;
    while (got < out.size()) {
      ssize_t n = ::recv(fd_, out.data() + got, out.size() - got, 0);
      if (n > 0) {
        got += static_cast<size_t>(n);
      } else if (n == 0) {
        return std::string("the broker closed the connection");
      } else if (errno == EAGAIN || errno == EINTR) {
        if (!probe_wait(fd_, POLLIN, deadline)) return std::string("no answer in time");
      } else {
        return std::string(std::strerror(errno));
      }
    }
    return std::nullopt;
  }

 private:
  int fd_;
};

}  // namespace

bool probe_wait(int fd, short events, ProbeClock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

int probe_connect(const std::string& host, uint16_t port, ProbeClock::time_point deadline, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    error = fmt::format("cannot resolve '{}': {}", host, gai_strerror(rc));
    return -1;
  }
  error = "no address";
  int connected = -1;
  for (addrinfo* a = found; a != nullptr && connected < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    if (finish_connect(fd, ::connect(fd, a->ai_addr, a->ai_addrlen), deadline) == 0) {
      connected = fd;
    } else {
      error = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  return connected;
}

std::unique_ptr<ProbeTransport> plain_transport(int fd) { return std::make_unique<PlainTransport>(fd); }

}  // namespace skiff::server
