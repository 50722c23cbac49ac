#include "server/health_check.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "api/protocol/frame.h"
#include "api/protocol/generated/api_versions_request.h"
#include "api/protocol/generated/api_versions_response.h"
#include "common/byte_order.h"
#include "config/config_loader.h"
#include "server/version.h"

namespace skiff::server {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int16_t kApiVersionsVersion = 3;      // flexible; what current clients send first
constexpr int32_t kCorrelationId = 0x736b6966;  // "skif"
constexpr int32_t kMaxResponseBytes = 1 << 20;
// Below the image's HEALTHCHECK --timeout, so the probe says why it failed.
constexpr std::chrono::milliseconds kTimeout{3000};

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Waits for `events` on fd until the deadline; false on timeout or error.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Connects to the first address of `target` that accepts; -1 and `error`
// set otherwise.
int connect_to(const HealthTarget& target, Clock::time_point deadline, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  auto port = std::to_string(target.port);
  if (int rc = ::getaddrinfo(target.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    error = fmt::format("cannot resolve '{}': {}", target.host, gai_strerror(rc));
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
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      if (wait_for(fd, POLLOUT, deadline)) {
        int so_error = 0;
        socklen_t len = sizeof so_error;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
        rc = so_error == 0 ? 0 : -1;
        errno = so_error;
      } else {
        errno = ETIMEDOUT;
      }
    }
    if (rc == 0) {
      connected = fd;
    } else {
      error = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  return connected;
}

bool send_all(int fd, const std::vector<uint8_t>& bytes, Clock::time_point deadline) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(fd, POLLOUT, deadline)) return false;
    } else {
      return false;
    }
  }
  return true;
}

// Reads exactly out.size() bytes; the reason on failure.
std::optional<std::string> read_exact(int fd, std::vector<uint8_t>& out, Clock::time_point deadline) {
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::recv(fd, out.data() + got, out.size() - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n == 0) {
      return std::string("the broker closed the connection");
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!wait_for(fd, POLLIN, deadline)) return std::string("no answer in time");
    } else {
      return std::string(std::strerror(errno));
    }
  }
  return std::nullopt;
}

std::string endpoint_text(const HealthTarget& t) {
  return t.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", t.host, t.port)
                                               : fmt::format("{}:{}", t.host, t.port);
}

}  // namespace

HealthTarget parse_health_target(const std::string& text) {
  HealthTarget t;
  std::string port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      throw std::invalid_argument(fmt::format("'{}' is not [address]:port", text));
    t.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos) throw std::invalid_argument(fmt::format("'{}' is not host:port", text));
    t.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  int value = 0;
  try {
    size_t used = 0;
    value = std::stoi(port, &used);
    if (used != port.size()) value = 0;
  } catch (const std::exception&) {
    value = 0;
  }
  if (value < 1 || value > 65535) throw std::invalid_argument(fmt::format("'{}' has no valid port", text));
  t.port = static_cast<uint16_t>(value);
  if (t.host.empty() || t.host == "0.0.0.0") t.host = "127.0.0.1";
  if (t.host == "::") t.host = "::1";
  return t;
}

HealthTarget health_target_for(const config::BrokerConfig& config) {
  if (config.listeners.empty()) throw std::invalid_argument("no listener is configured");
  const auto& l = config.listeners.front();
  if (l.port == 0)
    throw std::invalid_argument(
        fmt::format("listener {} asks for any free port (0); give --healthcheck HOST:PORT", l.to_string()));
  HealthTarget t{l.host, l.port};
  if (t.host.empty() || t.host == "0.0.0.0") t.host = "127.0.0.1";
  if (t.host == "::") t.host = "::1";
  return t;
}

HealthResult check_health(const HealthTarget& target, std::chrono::milliseconds timeout) {
  auto started = Clock::now();
  auto deadline = started + timeout;
  auto where = endpoint_text(target);
  std::string error;
  int fd = connect_to(target, deadline, error);
  if (fd < 0) return {false, fmt::format("cannot connect to {}: {}", where, error)};
  Socket socket(fd);

  protocol::RequestHeader header;
  header.correlation_id = kCorrelationId;
  header.client_id = "skiff-healthcheck";
  protocol::ApiVersionsRequest request;
  request.client_software_name = "skiff-healthcheck";
  request.client_software_version = std::string(kVersion);
  if (!send_all(fd, protocol::encode_request_frame(header, kApiVersionsVersion, request), deadline))
    return {false, fmt::format("cannot send ApiVersions to {}", where)};

  std::vector<uint8_t> size_bytes(4);
  if (auto e = read_exact(fd, size_bytes, deadline)) return {false, fmt::format("{}: {}", where, *e)};
  int32_t size = load_be<int32_t>(size_bytes.data());
  if (size < 4 || size > kMaxResponseBytes)
    return {false, fmt::format("{} answered a frame of {} bytes: not a Kafka broker?", where, size)};
  std::vector<uint8_t> body(static_cast<size_t>(size));
  if (auto e = read_exact(fd, body, deadline)) return {false, fmt::format("{}: {}", where, *e)};

  protocol::ApiVersionsResponse response;
  try {
    protocol::ByteReader r(body);
    protocol::ResponseHeader response_header;
    response_header.decode(
        r, protocol::response_header_version(protocol::ApiVersionsResponse::kApiKey, kApiVersionsVersion));
    if (response_header.correlation_id != kCorrelationId)
      return {false, fmt::format("{} answered correlation id {} to request {}", where, response_header.correlation_id,
                                 kCorrelationId)};
    response.decode(r, kApiVersionsVersion);
  } catch (const std::exception& e) {
    return {false, fmt::format("{} answered something that is not an ApiVersions response: {}", where, e.what())};
  }
  if (response.error_code != 0)
    return {false, fmt::format("{} answered ApiVersions with error code {}", where, response.error_code)};
  if (response.api_keys.empty()) return {false, fmt::format("{} answered ApiVersions with no APIs", where)};
  auto ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return {true, fmt::format("{} answered ApiVersions v{} with {} APIs in {:.1f} ms", where, kApiVersionsVersion,
                            response.api_keys.size(), ms)};
}

int run_health_check(const CommandLine& cl) {
  HealthTarget target;
  try {
    if (!cl.healthcheck_address.empty()) {
      target = parse_health_target(cl.healthcheck_address);
    } else {
      auto cfg = config::load_config({cl.config_file, config::process_environment(), cl.overrides});
      target = health_target_for(cfg);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "skiff: healthcheck: {}\n", e.what());
    return 1;
  }
  auto result = check_health(target, kTimeout);
  if (result.healthy) {
    fmt::print("skiff: healthy: {}\n", result.message);
    return 0;
  }
  fmt::print(stderr, "skiff: unhealthy: {}\n", result.message);
  return 1;
}

}  // namespace skiff::server
