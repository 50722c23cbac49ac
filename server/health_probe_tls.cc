// The TLS transport of `skiff --healthcheck`, for SSL and SASL_SSL listeners.
//
// No verification, on purpose: the probe is the container's HEALTHCHECK,
// run next to its own broker and connecting over loopback. It asks "is the
// listener up and answering Kafka?", not "is this the broker I meant?", and
// it has no trust anchor to hand (the broker's truststore, if any, is for
// client certificates; its keystore's chain may be self-signed). So neither
// the certificate chain nor the host name is checked. Do not reuse this for
// a client that talks to a broker across a network.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server/health_probe_io.h"

namespace skiff::server {
namespace {

// The newest OpenSSL error of this thread with a hint at the likely cause;
// clears the queue.
std::string openssl_reason() {
  unsigned long last = 0;
  while (unsigned long e = ERR_get_error()) last = e;
  if (last == 0) return "TLS error";
  char buf[256];
  ERR_error_string_n(last, buf, sizeof(buf));
  std::string text = buf;
  switch (ERR_GET_REASON(last)) {
    case SSL_R_UNEXPECTED_EOF_WHILE_READING:
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_RECORD_LENGTH_MISMATCH:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
      return text + " (the listener does not speak TLS: is it PLAINTEXT or SASL_PLAINTEXT?)";
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
      return text + " (the listener has ssl.client.auth=required; the probe sends no client certificate)";
    default:
      return text;
  }
}

class TlsTransport : public ProbeTransport {
 public:
  TlsTransport(int fd, SSL_CTX* ctx, SSL* ssl) : fd_(fd), ctx_(ctx), ssl_(ssl) {}
  ~TlsTransport() override {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
    ::close(fd_);
  }
  TlsTransport(const TlsTransport&) = delete;
  TlsTransport& operator=(const TlsTransport&) = delete;

  std::optional<std::string> handshake(ProbeClock::time_point deadline) {
    return drive([this] { return SSL_connect(ssl_); }, deadline);
  }

  std::optional<std::string> send_all(std::span<const uint8_t> bytes, ProbeClock::time_point deadline) override {
    size_t done = 0;
    return drive([&] { return SSL_write_ex(ssl_, bytes.data(), bytes.size(), &done); }, deadline);
  }

  std::optional<std::string> read_exact(std::span<uint8_t> out, ProbeClock::time_point deadline) override {
    size_t got = 0;
    while (got < out.size()) {
      size_t n = 0;
      if (auto e = drive([&] { return SSL_read_ex(ssl_, out.data() + got, out.size() - got, &n); }, deadline)) return e;
      got += n;
    }
    return std::nullopt;
  }

 private:
  // Repeats `op` (an OpenSSL call returning 1 on success) until it succeeds,
  // waiting for what OpenSSL wants from the socket; the reason it failed.
  template <typename Op>
  std::optional<std::string> drive(Op op, ProbeClock::time_point deadline) {
    for (;;) {
      ERR_clear_error();
      errno = 0;
      int r = op();
      if (r == 1) return std::nullopt;
      int saved_errno = errno;
      switch (SSL_get_error(ssl_, r)) {
        case SSL_ERROR_WANT_READ:
          if (!probe_wait(fd_, POLLIN, deadline)) return std::string("no answer in time");
          break;
        case SSL_ERROR_WANT_WRITE:
          if (!probe_wait(fd_, POLLOUT, deadline)) return std::string("could not send in time");
          break;
        case SSL_ERROR_ZERO_RETURN:
          return std::string("the broker closed the connection");
        case SSL_ERROR_SYSCALL:
          if (ERR_peek_error() == 0)
            return saved_errno == 0 ? std::string("the broker closed the connection")
                                    : std::string(std::strerror(saved_errno));
          return openssl_reason();
        default:
          return openssl_reason();
      }
    }
  }

  int fd_;
  SSL_CTX* ctx_;
  SSL* ssl_;
};

}  // namespace

std::unique_ptr<ProbeTransport> tls_transport(int fd, ProbeClock::time_point deadline, std::string& error) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = ctx ? SSL_new(ctx) : nullptr;
  if (!ssl || SSL_set_fd(ssl, fd) != 1) {
    error = openssl_reason();
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    ::close(fd);
    return nullptr;
  }
  // What the broker accepts (network/tls_context.cc); no verification (above).
  SSL_set_min_proto_version(ssl, TLS1_2_VERSION);
  SSL_set_verify(ssl, SSL_VERIFY_NONE, nullptr);
  auto transport = std::make_unique<TlsTransport>(fd, ctx, ssl);
  if (auto e = transport->handshake(deadline)) {
    error = *e;
    return nullptr;
  }
  return transport;
}

}  // namespace skiff::server
