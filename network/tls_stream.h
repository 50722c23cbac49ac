// TlsStream: one TLS connection's OpenSSL state, driven by readiness.
//
// Why not boost::asio::ssl::stream or a memory-BIO wrapper: both put every
// byte through memory BIOs, which rules out kernel TLS for good, and
// asio::ssl::stream's async operations own the socket's reads and writes,
// which the Connection's buffer handling (connection.h) already does. Here
// the SSL object sits on the socket itself (a socket BIO on the
// non-blocking descriptor): the Connection calls handshake/read/write,
// and on kWantRead/kWantWrite waits for the socket with asio's async_wait
// and calls again. No copy beyond OpenSSL's own record buffers.
//
// Thread rule: an SSL object is not safe for use by two threads, so a
// TlsStream is used by its Processor's thread only. On a TLS connection no
// other thread writes the socket (the ResponseGate is made without a
// descriptor, response_gate.h); responses are written here by the Processor.
//
// File regions (fetch data): read with pread into a staging buffer and
// encrypted, since sendfile cannot encrypt; see tls_context.h on kernel TLS.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "network/request.h"
#include "network/response_write.h"
#include "network/tls_context.h"

namespace skiff::network {

enum class TlsIo {
  kOk,         // done (handshake finished, bytes read, response written)
  kWantRead,   // call again once the socket is readable
  kWantWrite,  // call again once the socket is writable
  kEof,        // the peer closed the connection
  kFailed,     // a TLS or socket error; the message says what
};

class TlsStream {
 public:
  // Throws std::runtime_error when OpenSSL cannot make the object.
  TlsStream(std::shared_ptr<const TlsContext> context, int fd);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  TlsIo handshake(std::string& error);
  bool handshake_done() const { return handshake_done_; }
  // After the handshake: the connection's principal (tls_context.h), or
  // nullopt with `error` set when no mapping rule applies.
  std::optional<std::string> principal(std::string& error) const;
  // "TLSv1.3 TLS_AES_256_GCM_SHA384" (for the log).
  std::string describe() const;

  // Up to `size` plaintext bytes into `data`; `n` > 0 on kOk.
  TlsIo read(uint8_t* data, size_t size, size_t& n, std::string& error);
  // Writes `chunks` from `at` on; kOk once all is written.
  TlsIo write(std::vector<ResponseChunk>& chunks, WriteCursor& at, std::string& error);

 private:
  TlsIo outcome(int ret, std::string& error);
  bool stage(std::vector<ResponseChunk>& chunks, WriteCursor& at, std::string& error);

  std::shared_ptr<const TlsContext> context_;
  SSL* ssl_ = nullptr;
  bool handshake_done_ = false;
  // Bytes taken from the response (the cursor has moved past them) that
  // OpenSSL has not taken yet: a blocked SSL_write is retried with them.
  std::vector<uint8_t> staged_;
  size_t staged_pos_ = 0;
};

}  // namespace skiff::network
