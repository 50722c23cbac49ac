#include "security/oauth/jws_verify.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>

#include <memory>

namespace skiff::oauth {
namespace {

const EVP_MD* digest_for(std::string_view alg) {
  if (alg.ends_with("256")) return EVP_sha256();
  if (alg.ends_with("384")) return EVP_sha384();
  if (alg.ends_with("512")) return EVP_sha512();
  return nullptr;
}

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

// ES*: the JWS form R||S (each half the curve's size) as DER.
bool ecdsa_der(std::string_view sig, size_t half, std::string& der) {
  if (sig.size() != 2 * half) return false;
  ECDSA_SIG* s = ECDSA_SIG_new();
  BIGNUM* r = BN_bin2bn(bytes(sig), static_cast<int>(half), nullptr);
  BIGNUM* ss = BN_bin2bn(bytes(sig.substr(half)), static_cast<int>(half), nullptr);
  if (!s || !r || !ss || ECDSA_SIG_set0(s, r, ss) != 1) {
    BN_free(r);
    BN_free(ss);
    ECDSA_SIG_free(s);
    return false;
  }
  unsigned char* out = nullptr;
  const int len = i2d_ECDSA_SIG(s, &out);
  ECDSA_SIG_free(s);
  if (len <= 0) return false;
  der.assign(reinterpret_cast<char*>(out), static_cast<size_t>(len));
  OPENSSL_free(out);
  return true;
}

std::string ec_group(EVP_PKEY* key) {
  char name[64] = {0};
  size_t len = 0;
  if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof(name), &len) != 1) return "";
  return std::string(name, len);
}

bool check_key(std::string_view alg, const Jwk& key, size_t& ec_half, std::string& why) {
  if (alg.starts_with("RS") || alg.starts_with("PS")) {
    if (EVP_PKEY_get_bits(key.key.get()) < 2048) {
      why = "An RSA key of size 2048 bits or larger MUST be used with the all JOSE RSA algorithms";
      return false;
    }
    return true;
  }
  if (alg.starts_with("ES")) {
    const std::string group = ec_group(key.key.get());
    const std::string want = alg == "ES256" ? "prime256v1" : alg == "ES384" ? "secp384r1" : "secp521r1";
    if (group != want) {
      why = std::string("EC key curve ") + group + " does not match " + std::string(alg);
      return false;
    }
    ec_half = alg == "ES384" ? 48 : alg == "ES512" ? 66 : 32;
  }
  return true;
}

bool verify_hmac(std::string_view alg, std::string_view input, std::string_view sig, const Jwk& key, std::string& why) {
  const EVP_MD* md = digest_for(alg);
  if (key.secret.size() * 8 < static_cast<size_t>(EVP_MD_get_size(md)) * 8) {
    why = "A key of the same size as the hash output or larger must be used with the HMAC SHA algorithms";
    return false;
  }
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(md, key.secret.data(), static_cast<int>(key.secret.size()), bytes(input), input.size(), mac, &len) ||
      len != sig.size() || CRYPTO_memcmp(mac, sig.data(), len) != 0) {
    why = "JWS signature is invalid";
    return false;
  }
  return true;
}

}  // namespace

bool verify_jws_signature(std::string_view alg, std::string_view input, std::string_view sig, const Jwk& key,
                          std::string& why) {
  if (key_type_for(alg).empty() || key_type_for(alg) != key.kty) {
    why = "the key does not fit the algorithm";
    return false;
  }
  if (key.kty == "oct") return verify_hmac(alg, input, sig, key, why);
  size_t ec_half = 0;
  if (!check_key(alg, key, ec_half, why)) return false;
  std::string der;
  if (ec_half && !ecdsa_der(sig, ec_half, der)) {
    why = "JWS signature is invalid";
    return false;
  }
  std::string_view to_check = ec_half ? std::string_view(der) : sig;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;
  const EVP_MD* md = alg == "EdDSA" ? nullptr : digest_for(alg);
  bool ok = ctx && EVP_DigestVerifyInit(ctx.get(), &pctx, md, nullptr, key.key.get()) == 1;
  if (ok && alg.starts_with("PS"))
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) > 0 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) > 0 &&
         EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) > 0;
  ok = ok && EVP_DigestVerify(ctx.get(), bytes(to_check), to_check.size(), bytes(input), input.size()) == 1;
  if (!ok) why = "JWS signature is invalid";
  return ok;
}

}  // namespace skiff::oauth
