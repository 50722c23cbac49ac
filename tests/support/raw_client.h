// RawClient: a blocking TCP client that speaks size-prefixed frames, for
// tests that drive the broker byte by byte (no Kafka client library).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::test {

class RawClient {
 public:
  RawClient() = default;
  RawClient(const std::string& host, uint16_t port, int timeout_ms = 10000);
  RawClient(RawClient&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  RawClient& operator=(RawClient&& o) noexcept;
  ~RawClient();

  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }  // for socket-level checks (TCP_INFO)
  // Sends raw bytes as they are (for malformed-frame tests).
  bool send_raw(const void* data, size_t size);
  // Sends a 4-byte big-endian size and the payload.
  bool send_frame(const std::vector<uint8_t>& payload);
  // Reads one frame; nothing on EOF, error or timeout.
  std::optional<std::vector<uint8_t>> read_frame();
  // Whatever has arrived, at most 64 KiB (one read); empty on EOF, error or timeout.
  std::string read_some();
  // True when the peer closed the connection (EOF or reset) within the timeout.
  bool wait_closed();
  void close();
  // Shuts the sending side (the peer reads EOF) and keeps reading.
  void shutdown_write();

 private:
  bool read_exact(uint8_t* out, size_t n);
  int fd_ = -1;
};

std::vector<uint8_t> be32(uint32_t v);

}  // namespace skiff::test
