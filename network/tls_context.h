// TLS server contexts for SSL listeners, on OpenSSL 3.
//
// TlsContext: one built OpenSSL SSL_CTX (key and certificate chain, trusted
// CAs, client-auth mode, TLS 1.2/1.3 only, cipher suites) plus what a
// connection needs once its handshake is done (the principal rules).
// Immutable once built; shared by the connections made with it, so a reload
// never changes a connection already open.
//
// TlsListenerContext: a listener's current TlsContext, and the rebuild when
// its PEM files change (certificate rotation without a restart). The
// Acceptor polls reload_if_changed() on one timer for all listeners (mtime
// and size of ssl.keystore.location and ssl.truststore.location, every few
// seconds); a file that does not load is logged once and the old context
// stays in use. current() and reload_if_changed() are thread-safe.
//
// Kernel TLS: not enabled. This machine's kernel has no "tls" upper layer
// protocol (/proc/sys/net/ipv4/tcp_available_ulp lists only mptcp), so a
// kTLS path (SSL_OP_ENABLE_KTLS + SSL_sendfile) could not be tested, and
// untested crypto offload is not switched on. File regions of fetch
// responses are read (pread) and encrypted instead (network/tls_stream.h).
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace skiff::network {

// Bad key material or settings; the message names the listener, the key or
// file and what is wrong.
class TlsConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TlsSettings {
  std::string keystore_location;  // PEM: private key and certificate chain
  std::string keystore_key;       // or inline PEM, with the chain below
  std::string keystore_certificate_chain;
  std::string key_password;  // for an encrypted private key
  std::string truststore_location;
  std::string truststore_certificates;  // inline PEM
  enum class ClientAuth { kNone, kRequested, kRequired } client_auth = ClientAuth::kNone;
  bool tls12 = true;
  bool tls13 = true;
  std::vector<std::string> cipher_suites;  // IANA or OpenSSL names; empty: OpenSSL's defaults
  // Subject DN (RFC 2253) to principal name; nullopt: no rule applies (the
  // connection is refused). Null: the DN itself.
  std::function<std::optional<std::string>(const std::string&)> principal_mapper;
};

class TlsContext {
 public:
  // Throws TlsConfigError.
  static std::shared_ptr<const TlsContext> build(const std::string& listener, const TlsSettings& settings);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* native() const { return ctx_; }
  const std::string& listener() const { return listener_; }
  // "User:<mapped subject>" for a client certificate, "User:ANONYMOUS"
  // without one (Kafka's DefaultKafkaPrincipalBuilder); nullopt when no
  // mapping rule applies, with `error` saying so.
  std::optional<std::string> principal_for(SSL* ssl, std::string& error) const;

 private:
  TlsContext(std::string listener, SSL_CTX* ctx, TlsSettings settings)
      : listener_(std::move(listener)), ctx_(ctx), settings_(std::move(settings)) {}
  std::string listener_;
  SSL_CTX* ctx_;
  TlsSettings settings_;
};

// The subject of `cert` in RFC 2253 form as Java's X500Principal prints it
// ("CN=client,OU=test,O=org,C=US"; UTF-8 left as is).
std::string subject_rfc2253(X509* cert);

class TlsListenerContext {
 public:
  // Builds the first context: throws TlsConfigError (a startup error).
  TlsListenerContext(std::string listener, TlsSettings settings);

  std::shared_ptr<const TlsContext> current() const;
  // Rebuilds when a file changed since the last look; true if replaced.
  bool reload_if_changed();

 private:
  struct Stamp {
    int64_t mtime_ns = -1;
    int64_t size = -1;
    bool operator==(const Stamp&) const = default;
  };
  std::vector<Stamp> stamps() const;

  const std::string listener_;
  const TlsSettings settings_;
  mutable std::mutex mu_;
  std::shared_ptr<const TlsContext> current_;  // guarded by mu_
  std::vector<Stamp> seen_;                    // guarded by mu_
};

}  // namespace skiff::network
