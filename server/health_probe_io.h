// The byte transport of `skiff --healthcheck` (server/health_check.h): a TCP
// connection to the broker, plain or TLS, every step bounded by one deadline.
// Blocking-free (non-blocking socket + poll), so a broker that accepts and
// then says nothing cannot hold the probe past the container's timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace skiff::server {

using ProbeClock = std::chrono::steady_clock;

class ProbeTransport {
 public:
  virtual ~ProbeTransport() = default;
  // Each returns nullopt on success, else why not (for the one-line message).
  virtual std::optional<std::string> send_all(std::span<const uint8_t> bytes, ProbeClock::time_point deadline) = 0;
  virtual std::optional<std::string> read_exact(std::span<uint8_t> out, ProbeClock::time_point deadline) = 0;
};

// A connected, non-blocking TCP socket to the first address of host:port
// that accepts; -1 and `error` set otherwise. The caller owns the fd.
int probe_connect(const std::string& host, uint16_t port, ProbeClock::time_point deadline, std::string& error);

// Waits for poll `events` on fd until the deadline; false on timeout or error.
bool probe_wait(int fd, short events, ProbeClock::time_point deadline);

// Takes ownership of the connected fd.
std::unique_ptr<ProbeTransport> plain_transport(int fd);

// Takes ownership of the connected fd and does a TLS handshake on it (TLS 1.2
// or 1.3). Null with `error` set (OpenSSL's reason) when the handshake fails
// or does not finish by the deadline. The broker's certificate is not
// verified: see server/health_probe_tls.cc.
std::unique_ptr<ProbeTransport> tls_transport(int fd, ProbeClock::time_point deadline, std::string& error);

}  // namespace skiff::server
