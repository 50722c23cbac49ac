#include "network/tls_context.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "network/net_log.h"

namespace skiff::network {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CtxPtr = std::unique_ptr<SSL_CTX, Deleter<SSL_CTX, SSL_CTX_free>>;

// The newest OpenSSL error of this thread, as text; clears the queue.
std::string openssl_error() {
  unsigned long last = 0;
  while (unsigned long e = ERR_get_error()) last = e;
  if (last == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(last, buf, sizeof(buf));
  return buf;
}

std::string read_file(const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TlsConfigError(fmt::format("{} '{}' cannot be read", key, path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<X509Ptr> read_certificates(const std::string& pem, const std::string& what) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  std::vector<X509Ptr> out;
  while (X509* c = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) out.emplace_back(c);
  ERR_clear_error();  // the end of the input reads as an error
  if (out.empty()) throw TlsConfigError(fmt::format("{} holds no PEM certificate", what));
  return out;
}

int password_callback(char* buf, int size, int, void* user) {
  const auto* password = static_cast<const std::string*>(user);
  if (password->empty() || static_cast<int>(password->size()) > size) return -1;
  password->copy(buf, password->size());
  return static_cast<int>(password->size());
}

KeyPtr read_private_key(const std::string& pem, const std::string& password, const std::string& what) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  std::string pw = password;
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, password_callback, &pw));
  if (key) return key;
  std::string why = openssl_error();
  if (pem.find("ENCRYPTED") != std::string::npos)
    why = password.empty() ? "the private key is encrypted and ssl.key.password is not set"
                           : "cannot decrypt the private key: wrong ssl.key.password? (" + why + ")";
  else if (pem.find("PRIVATE KEY-----") == std::string::npos)
    why = "no PEM private key in it";
  throw TlsConfigError(fmt::format("{}: {}", what, why));
}

void use_key_material(SSL_CTX* ctx, const TlsSettings& s) {
  std::string what, key_pem, chain_pem;
  if (!s.keystore_location.empty()) {
    what = fmt::format("ssl.keystore.location '{}'", s.keystore_location);
    key_pem = chain_pem = read_file(s.keystore_location, "ssl.keystore.location");
  } else {
    what = "ssl.keystore.key/ssl.keystore.certificate.chain";
    key_pem = s.keystore_key;
    chain_pem = s.keystore_certificate_chain;
  }
  KeyPtr key = read_private_key(key_pem, s.key_password, what);
  auto chain = read_certificates(chain_pem, what);
  if (SSL_CTX_use_certificate(ctx, chain[0].get()) != 1 || SSL_CTX_use_PrivateKey(ctx, key.get()) != 1)
    throw TlsConfigError(fmt::format("{}: {}", what, openssl_error()));
  for (size_t i = 1; i < chain.size(); ++i)
    if (SSL_CTX_add1_chain_cert(ctx, chain[i].get()) != 1)
      throw TlsConfigError(fmt::format("{}: {}", what, openssl_error()));
  if (SSL_CTX_check_private_key(ctx) != 1)
    throw TlsConfigError(fmt::format("{}: the private key does not match the first certificate", what));
}

void use_trust_store(SSL_CTX* ctx, const TlsSettings& s) {
  std::string pem, what;
  if (!s.truststore_location.empty()) {
    pem = read_file(s.truststore_location, "ssl.truststore.location");
    what = fmt::format("ssl.truststore.location '{}'", s.truststore_location);
  } else if (!s.truststore_certificates.empty()) {
    pem = s.truststore_certificates;
    what = "ssl.truststore.certificates";
  } else {
    return;
  }
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  for (auto& cert : read_certificates(pem, what)) {
    if (X509_STORE_add_cert(store, cert.get()) != 1) throw TlsConfigError(fmt::format("{}: {}", what, openssl_error()));
    SSL_CTX_add_client_CA(ctx, cert.get());  // tells clients which CAs their certificate may come from
  }
}

bool is_tls13_suite(const std::string& name) {
  return name.starts_with("TLS_AES_") || name.starts_with("TLS_CHACHA20_");
}

// A TLS 1.2 suite by IANA name (Kafka's, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)
// or OpenSSL name (ECDHE-RSA-AES128-GCM-SHA256); "" when OpenSSL has none.
std::string openssl_suite_name(SSL_CTX* probe, const std::string& name) {
  STACK_OF(SSL_CIPHER)* all = SSL_CTX_get_ciphers(probe);
  for (int i = 0; i < sk_SSL_CIPHER_num(all); ++i) {
    const SSL_CIPHER* c = sk_SSL_CIPHER_value(all, i);
    const char* standard = SSL_CIPHER_standard_name(c);
    if (name == SSL_CIPHER_get_name(c) || (standard && name == standard)) return SSL_CIPHER_get_name(c);
  }
  return "";
}

// ssl.cipher.suites: a TLS version left without a suite is switched off.
void use_cipher_suites(SSL_CTX* ctx, const TlsSettings& s, bool& tls12, bool& tls13) {
  if (s.cipher_suites.empty()) return;
  CtxPtr probe(SSL_CTX_new(TLS_server_method()));
  SSL_CTX_set_cipher_list(probe.get(), "ALL:COMPLEMENTOFALL");
  std::string list12, list13;
  for (const auto& name : s.cipher_suites) {
    if (is_tls13_suite(name)) {
      list13 += (list13.empty() ? "" : ":") + name;
      continue;
    }
    auto openssl = openssl_suite_name(probe.get(), name);
    if (openssl.empty()) throw TlsConfigError(fmt::format("ssl.cipher.suites: unknown cipher suite '{}'", name));
    list12 += (list12.empty() ? "" : ":") + openssl;
  }
  if (list12.empty()) tls12 = false;
  if (list13.empty()) tls13 = false;
  if (!list12.empty() && SSL_CTX_set_cipher_list(ctx, list12.c_str()) != 1)
    throw TlsConfigError(fmt::format("ssl.cipher.suites: {}", openssl_error()));
  if (!list13.empty() && SSL_CTX_set_ciphersuites(ctx, list13.c_str()) != 1)
    throw TlsConfigError(fmt::format("ssl.cipher.suites: unknown TLS 1.3 suite in '{}'", list13));
  if (!tls12 && !tls13)
    throw TlsConfigError("ssl.cipher.suites leaves no suite for the enabled protocols (ssl.enabled.protocols)");
}

void set_protocols(SSL_CTX* ctx, bool tls12, bool tls13) {
  if (!tls12 && !tls13)
    throw TlsConfigError("no TLS version left: ssl.enabled.protocols and ssl.cipher.suites disagree");
  SSL_CTX_set_min_proto_version(ctx, tls12 ? TLS1_2_VERSION : TLS1_3_VERSION);
  SSL_CTX_set_max_proto_version(ctx, tls13 ? TLS1_3_VERSION : TLS1_2_VERSION);
}

void set_client_auth(SSL_CTX* ctx, TlsSettings::ClientAuth auth) {
  int mode = SSL_VERIFY_NONE;
  if (auth == TlsSettings::ClientAuth::kRequested) mode = SSL_VERIFY_PEER;
  if (auth == TlsSettings::ClientAuth::kRequired) mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  SSL_CTX_set_verify(ctx, mode, nullptr);
  static const unsigned char kSessionContext[] = "skiff";  // resumption with client certificates needs one
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
}

}  // namespace

std::shared_ptr<const TlsContext> TlsContext::build(const std::string& listener, const TlsSettings& settings) {
  ERR_clear_error();
  CtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx)
    throw TlsConfigError(fmt::format("listener {}: cannot create a TLS context: {}", listener, openssl_error()));
  try {
    // Never renegotiate, never compress (CRIME); partial writes and a moving buffer: the write path
    // (tls_stream.h) resumes a blocked write with the same bytes from a new
    // place. Idle connections give their TLS buffers back.
    // A peer closing without close_notify is an ordinary close (most Kafka
    // clients do so), not an error.
    SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(ctx.get(),
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    bool tls12 = settings.tls12, tls13 = settings.tls13;
    use_cipher_suites(ctx.get(), settings, tls12, tls13);
    set_protocols(ctx.get(), tls12, tls13);
    use_key_material(ctx.get(), settings);
    use_trust_store(ctx.get(), settings);
    set_client_auth(ctx.get(), settings.client_auth);
  } catch (const TlsConfigError& e) {
    throw TlsConfigError(fmt::format("listener {}: {}", listener, e.what()));
  }
  return std::shared_ptr<const TlsContext>(new TlsContext(listener, ctx.release(), settings));
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

std::string subject_rfc2253(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(bio.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

std::optional<std::string> TlsContext::principal_for(SSL* ssl, std::string& error) const {
  X509* cert = SSL_get0_peer_certificate(ssl);
  if (!cert) return "User:ANONYMOUS";
  std::string dn = subject_rfc2253(cert);
  if (!settings_.principal_mapper) return "User:" + dn;
  auto name = settings_.principal_mapper(dn);
  if (!name) {
    error = fmt::format("no ssl.principal.mapping.rules rule applies to the client certificate's subject '{}'", dn);
    return std::nullopt;
  }
  return "User:" + *name;
}

TlsListenerContext::TlsListenerContext(std::string listener, TlsSettings settings)
    : listener_(std::move(listener)), settings_(std::move(settings)) {
  seen_ = stamps();
  current_ = TlsContext::build(listener_, settings_);
}

std::shared_ptr<const TlsContext> TlsListenerContext::current() const {
  std::lock_guard lock(mu_);
  return current_;
}

std::vector<TlsListenerContext::Stamp> TlsListenerContext::stamps() const {
  std::vector<Stamp> out;
  for (const auto* path : {&settings_.keystore_location, &settings_.truststore_location}) {
    Stamp s;
    struct stat st {};
    if (!path->empty() && ::stat(path->c_str(), &st) == 0) {
      s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
      s.size = st.st_size;
    }
    out.push_back(s);
  }
  return out;
}

bool TlsListenerContext::reload_if_changed() {
  auto now = stamps();
  {
    std::lock_guard lock(mu_);
    if (now == seen_) return false;
    seen_ = now;  // a file that does not load is reported once, then again only when it changes
  }
  try {
    auto fresh = TlsContext::build(listener_, settings_);
    std::lock_guard lock(mu_);
    current_ = std::move(fresh);
  } catch (const TlsConfigError& e) {
    net_log().error("TLS key material changed but does not load, so new connections keep the previous one: {}",
                    e.what());
    return false;
  }
  net_log().info("listener {}: TLS key material reloaded; new connections use it", listener_);
  return true;
}

}  // namespace skiff::network
