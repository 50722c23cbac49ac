#include "network/tls_stream.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace skiff::network {
namespace {

// Most plaintext staged per SSL_write: four full TLS records.
constexpr size_t kStageBytes = size_t{64} * 1024;

std::string error_text(unsigned long e) {
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// What a failed handshake most likely means, for the log.
std::string hint_for(unsigned long e) {
  switch (ERR_GET_REASON(e)) {
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_HTTP_REQUEST:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
    case SSL_R_RECORD_LENGTH_MISMATCH:
      return " (the client does not speak TLS: a PLAINTEXT client on an SSL listener?)";
    case SSL_R_UNSUPPORTED_PROTOCOL:
      return " (the client offers only TLS versions this listener refuses; TLSv1.2 and TLSv1.3 are accepted)";
    case SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE:
      return " (ssl.client.auth=required and the client sent no certificate)";
    default:
      return "";
  }
}

size_t chunk_size(const ResponseChunk& c) {
  if (const auto* r = std::get_if<FileRegion>(&c)) return r->length;
  return std::get<std::vector<uint8_t>>(c).size();
}

}  // namespace

TlsStream::TlsStream(std::shared_ptr<const TlsContext> context, int fd) : context_(std::move(context)) {
  ssl_ = SSL_new(context_->native());
  if (!ssl_ || SSL_set_fd(ssl_, fd) != 1) {
    if (ssl_) SSL_free(ssl_);
    throw std::runtime_error("cannot create a TLS session");
  }
  SSL_set_accept_state(ssl_);
}

TlsStream::~TlsStream() { SSL_free(ssl_); }

TlsIo TlsStream::outcome(int ret, std::string& error) {
  const int saved_errno = errno;
  switch (SSL_get_error(ssl_, ret)) {
    case SSL_ERROR_WANT_READ:
      return TlsIo::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return TlsIo::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      return TlsIo::kEof;
    case SSL_ERROR_SYSCALL:
      if (ERR_peek_error() == 0) {
        if (saved_errno == 0) return TlsIo::kEof;  // closed without close_notify
        error = std::strerror(saved_errno);
        return TlsIo::kFailed;
      }
      [[fallthrough]];
    default: {
      unsigned long last = 0;
      while (unsigned long e = ERR_get_error()) last = e;
      error = last ? error_text(last) + (handshake_done_ ? "" : hint_for(last)) : "TLS error";
      if (!handshake_done_ && SSL_get_verify_result(ssl_) != X509_V_OK)
        error += fmt::format(" (client certificate: {})", X509_verify_cert_error_string(SSL_get_verify_result(ssl_)));
      return TlsIo::kFailed;
    }
  }
}

TlsIo TlsStream::handshake(std::string& error) {
  ERR_clear_error();
  errno = 0;
  int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    handshake_done_ = true;
    return TlsIo::kOk;
  }
  TlsIo io = outcome(r, error);
  if (io == TlsIo::kEof && error.empty()) error = "the client closed the connection during the TLS handshake";
  return io;
}

std::optional<std::string> TlsStream::principal(std::string& error) const {
  return context_->principal_for(ssl_, error);
}

std::string TlsStream::describe() const {
  return fmt::format("{} {}", SSL_get_version(ssl_), SSL_get_cipher_name(ssl_));
}

TlsIo TlsStream::read(uint8_t* data, size_t size, size_t& n, std::string& error) {
  ERR_clear_error();
  errno = 0;
  size_t got = 0;
  int r = SSL_read_ex(ssl_, data, size, &got);
  if (r == 1) {
    n = got;
    return TlsIo::kOk;
  }
  return outcome(r, error);
}

// Moves the next up to kStageBytes of the response into staged_ (file
// regions by pread). False with `error` when a file region ends early.
bool TlsStream::stage(std::vector<ResponseChunk>& chunks, WriteCursor& at, std::string& error) {
  staged_.clear();
  staged_pos_ = 0;
  while (at.chunk < chunks.size() && staged_.size() < kStageBytes) {
    size_t left = chunk_size(chunks[at.chunk]) - at.offset;
    if (left == 0) {  // an empty chunk
      ++at.chunk;
      at.offset = 0;
      continue;
    }
    size_t take = std::min(left, kStageBytes - staged_.size());
    if (const auto* r = std::get_if<FileRegion>(&chunks[at.chunk])) {
      size_t base = staged_.size();
      staged_.resize(base + take);
      ssize_t got;
      do {
        got = ::pread(r->fd, staged_.data() + base, take, r->offset + static_cast<off_t>(at.offset));
      } while (got < 0 && errno == EINTR);
      if (got <= 0) {
        error = got == 0 ? "file region ended early" : std::string("pread: ") + std::strerror(errno);
        return false;
      }
      take = static_cast<size_t>(got);
      staged_.resize(base + take);
    } else {
      const auto& bytes = std::get<std::vector<uint8_t>>(chunks[at.chunk]);
      staged_.insert(staged_.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at.offset),
                     bytes.begin() + static_cast<std::ptrdiff_t>(at.offset + take));
    }
    at.offset += take;
    if (at.offset == chunk_size(chunks[at.chunk])) {
      ++at.chunk;
      at.offset = 0;
    }
  }
  return true;
}

TlsIo TlsStream::write(std::vector<ResponseChunk>& chunks, WriteCursor& at, std::string& error) {
  for (;;) {
    if (staged_pos_ == staged_.size()) {
      if (at.chunk >= chunks.size()) {
        staged_ = {};  // an idle connection keeps no staging buffer
        staged_pos_ = 0;
        return TlsIo::kOk;
      }
      if (!stage(chunks, at, error)) return TlsIo::kFailed;
      continue;
    }
    ERR_clear_error();
    errno = 0;
    size_t written = 0;
    int r = SSL_write_ex(ssl_, staged_.data() + staged_pos_, staged_.size() - staged_pos_, &written);
    if (r != 1) return outcome(r, error);
    staged_pos_ += written;
  }
}

}  // namespace skiff::network
