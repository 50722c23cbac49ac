#include "security/sasl/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace skiff::sasl {
namespace {

const EVP_MD* digest(ScramMechanism m) { return m == ScramMechanism::kSha512 ? EVP_sha512() : EVP_sha256(); }

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

}  // namespace

std::string_view mechanism_name(ScramMechanism m) {
  return m == ScramMechanism::kSha512 ? "SCRAM-SHA-512" : "SCRAM-SHA-256";
}

std::optional<ScramMechanism> mechanism_from_name(std::string_view name) {
  if (name == "SCRAM-SHA-256") return ScramMechanism::kSha256;
  if (name == "SCRAM-SHA-512") return ScramMechanism::kSha512;
  return std::nullopt;
}

std::optional<ScramMechanism> mechanism_from_code(int8_t code) {
  if (code == 1) return ScramMechanism::kSha256;
  if (code == 2) return ScramMechanism::kSha512;
  return std::nullopt;
}

size_t digest_size(ScramMechanism m) { return m == ScramMechanism::kSha512 ? 64 : 32; }

std::string scram_hash(ScramMechanism m, std::string_view data) {
  std::string out(digest_size(m), '\0');
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), reinterpret_cast<unsigned char*>(out.data()), &n, digest(m), nullptr) != 1)
    throw std::runtime_error("EVP_Digest failed");
  return out;
}

std::string scram_hmac(ScramMechanism m, std::string_view key, std::string_view data) {
  std::string out(digest_size(m), '\0');
  unsigned int n = 0;
  if (!HMAC(digest(m), key.data(), static_cast<int>(key.size()), bytes(data), data.size(),
            reinterpret_cast<unsigned char*>(out.data()), &n))
    throw std::runtime_error("HMAC failed");
  return out;
}

std::string scram_hi(ScramMechanism m, std::string_view password, std::string_view salt, int32_t iterations) {
  std::string out(digest_size(m), '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), bytes(salt), static_cast<int>(salt.size()),
                        iterations, digest(m), static_cast<int>(out.size()),
                        reinterpret_cast<unsigned char*>(out.data())) != 1)
    throw std::runtime_error("PKCS5_PBKDF2_HMAC failed");
  return out;
}

std::string scram_client_key(ScramMechanism m, std::string_view salted_password) {
  return scram_hmac(m, salted_password, "Client Key");
}

std::string scram_server_key(ScramMechanism m, std::string_view salted_password) {
  return scram_hmac(m, salted_password, "Server Key");
}

ScramCredential credential_from_salted_password(ScramMechanism m, std::string_view salted_password, int32_t iterations,
                                                std::string salt) {
  ScramCredential c;
  c.salt = std::move(salt);
  c.stored_key = scram_hash(m, scram_client_key(m, salted_password));
  c.server_key = scram_server_key(m, salted_password);
  c.iterations = iterations;
  return c;
}

ScramCredential make_credential(ScramMechanism m, std::string_view password, int32_t iterations, std::string salt) {
  auto salted = scram_hi(m, password, salt, iterations);
  auto c = credential_from_salted_password(m, salted, iterations, std::move(salt));
  OPENSSL_cleanse(salted.data(), salted.size());
  return c;
}

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
    throw std::runtime_error("RAND_bytes failed");
  return out;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace skiff::sasl
