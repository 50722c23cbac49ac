// A JSON Web Key Set (RFC 7517) read into OpenSSL keys, and the choice of
// the key that verifies a JWS, as jose4j's JsonWebKeySet and
// VerificationJwkSelector (which Kafka's validator uses): RSA (n, e), EC
// (crv P-256/P-384/P-521, x, y), OKP (Ed25519/Ed448, x) and oct
// (k) keys; a key that cannot be read is skipped, as jose4j skips it.
// Immutable once parsed: shared between threads through shared_ptr<const>.
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::oauth {

struct Jwk {
  std::string kid, kty, use, alg, crv;
  std::optional<std::vector<std::string>> key_ops;
  std::shared_ptr<EVP_PKEY> key;  // RSA, EC, OKP: the public key
  std::string secret;             // oct: the key bytes
};

struct JwkSet {
  std::vector<Jwk> keys;
  std::string describe() const;  // "[kid=a (RSA), ...]", for logs
};

// The set, or nullopt with `why` when `json` is not a JWKS (not JSON, no
// "keys" array). Keys that cannot be read are skipped and named in `skipped`.
std::optional<JwkSet> parse_jwks(std::string_view json, std::string& why, std::vector<std::string>* skipped = nullptr);

// The JWS algorithms verified, jose4j's on Kafka 4.4's Java (17+, whose SunEC
// has no secp256k1: no ES256K): RS/PS/ES 256/384/512, EdDSA, HS 256/384/512.
bool known_jws_algorithm(std::string_view alg);
// The key type ("RSA", "EC", "OKP", "oct") an algorithm needs.
std::string key_type_for(std::string_view alg);

// The key verifying a JWS with header `alg` and `kid` (empty: none), or null.
const Jwk* select_verification_key(const JwkSet& set, std::string_view alg, const std::optional<std::string>& kid);

}  // namespace skiff::oauth
