#include "security/oauth/jwks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>

#include <algorithm>

#include "common/base64.h"
#include "common/json.h"

namespace skiff::oauth {
namespace {

using Kind = JsonValue::Kind;

std::string string_member(const JsonValue& v, const char* name) {
  const auto* m = v.find(name);
  return m && m->kind == Kind::kString ? m->string : std::string();
}

std::optional<std::string> bytes_member(const JsonValue& v, const char* name) {
  const auto* m = v.find(name);
  if (!m || m->kind != Kind::kString || m->string.empty()) return std::nullopt;
  auto s = m->string;
  while (!s.empty() && s.back() == '=') s.pop_back();  // tolerate padding
  return base64url_decode(s);
}

std::shared_ptr<EVP_PKEY> from_params(const char* type, OSSL_PARAM_BLD* bld) {
  std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(OSSL_PARAM_BLD_to_param(bld), OSSL_PARAM_free);
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr),
                                                                  EVP_PKEY_CTX_free);
  EVP_PKEY* pkey = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &pkey, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0)
    return nullptr;
  return std::shared_ptr<EVP_PKEY>(pkey, EVP_PKEY_free);
}

using Bld = std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)>;
using Bn = std::unique_ptr<BIGNUM, decltype(&BN_free)>;

Bn bignum(const std::string& bytes) {
  return Bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr),
            BN_free);
}

std::shared_ptr<EVP_PKEY> rsa_key(const JsonValue& v, std::string& why) {
  auto n = bytes_member(v, "n"), e = bytes_member(v, "e");
  if (!n || !e) {
    why = "RSA key without n and e";
    return nullptr;
  }
  Bld bld(OSSL_PARAM_BLD_new(), OSSL_PARAM_BLD_free);
  Bn bn_n = bignum(*n), bn_e = bignum(*e);
  if (!bld || !bn_n || !bn_e || !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()))
    return nullptr;
  auto key = from_params("RSA", bld.get());
  if (!key) why = "unreadable RSA key";
  return key;
}

struct Curve {
  const char* jwk_name;
  const char* group;
  size_t bytes;
};
constexpr Curve kCurves[] = {{"P-256", "prime256v1", 32}, {"P-384", "secp384r1", 48}, {"P-521", "secp521r1", 66}};

std::shared_ptr<EVP_PKEY> ec_key(const JsonValue& v, const std::string& crv, std::string& why) {
  const auto* curve = std::find_if(std::begin(kCurves), std::end(kCurves), [&](auto& c) { return crv == c.jwk_name; });
  auto x = bytes_member(v, "x"), y = bytes_member(v, "y");
  if (curve == std::end(kCurves) || !x || !y || x->size() > curve->bytes || y->size() > curve->bytes) {
    why = fmt::format("EC key with unsupported curve or bad coordinates ({})", crv);
    return nullptr;
  }
  std::string point(1, '\x04');
  point += std::string(curve->bytes - x->size(), '\0') + *x;
  point += std::string(curve->bytes - y->size(), '\0') + *y;
  Bld bld(OSSL_PARAM_BLD_new(), OSSL_PARAM_BLD_free);
  if (!bld || !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, curve->group, 0) ||
      !OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()))
    return nullptr;
  auto key = from_params("EC", bld.get());
  // The point must be on the curve.
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> check(
      key ? EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr) : nullptr, EVP_PKEY_CTX_free);
  if (!key || !check || EVP_PKEY_public_check(check.get()) != 1) {
    why = "EC key whose point is not on its curve";
    return nullptr;
  }
  return key;
}

std::shared_ptr<EVP_PKEY> okp_key(const JsonValue& v, const std::string& crv, std::string& why) {
  auto x = bytes_member(v, "x");
  const int type = crv == "Ed25519" ? EVP_PKEY_ED25519 : crv == "Ed448" ? EVP_PKEY_ED448 : 0;
  EVP_PKEY* key = type && x ? EVP_PKEY_new_raw_public_key(type, nullptr,
                                                          reinterpret_cast<const unsigned char*>(x->data()), x->size())
                            : nullptr;
  if (!key) {
    why = fmt::format("OKP key with unsupported curve or bad x ({})", crv);
    return nullptr;
  }
  return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free);
}

std::optional<Jwk> read_jwk(const JsonValue& v, std::string& why) {
  if (v.kind != Kind::kObject) {
    why = "not a JSON object";
    return std::nullopt;
  }
  Jwk k;
  k.kid = string_member(v, "kid");
  k.kty = string_member(v, "kty");
  k.use = string_member(v, "use");
  k.alg = string_member(v, "alg");
  k.crv = string_member(v, "crv");
  if (const auto* ops = v.find("key_ops"); ops && ops->kind == Kind::kArray) {
    k.key_ops.emplace();
    for (const auto& op : ops->array)
      if (op.kind == Kind::kString) k.key_ops->push_back(op.string);
  }
  if (k.kty == "RSA") {
    k.key = rsa_key(v, why);
  } else if (k.kty == "EC") {
    k.key = ec_key(v, k.crv, why);
  } else if (k.kty == "OKP") {
    k.key = okp_key(v, k.crv, why);
  } else if (k.kty == "oct") {
    auto secret = bytes_member(v, "k");
    if (!secret) why = "oct key without k";
    if (secret) k.secret = *secret;
    return secret ? std::optional<Jwk>(std::move(k)) : std::nullopt;
  } else {
    why = fmt::format("unknown key type '{}'", k.kty);
  }
  if (!k.key) return std::nullopt;
  return k;
}

}  // namespace

std::string JwkSet::describe() const {
  std::vector<std::string> parts;
  for (const auto& k : keys) parts.push_back(fmt::format("kid={} ({})", k.kid.empty() ? "-" : k.kid, k.kty));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

std::optional<JwkSet> parse_jwks(std::string_view json, std::string& why, std::vector<std::string>* skipped) {
  auto doc = parse_json(json);
  if (!doc || doc->kind != Kind::kObject) {
    why = "the JWKS is not a JSON object";
    return std::nullopt;
  }
  const auto* keys = doc->find("keys");
  if (!keys || keys->kind != Kind::kArray) {
    why = "The JSON JWKS content does not include the keys member.";
    return std::nullopt;
  }
  JwkSet set;
  for (const auto& v : keys->array) {
    std::string bad;
    if (auto k = read_jwk(v, bad))
      set.keys.push_back(std::move(*k));
    else if (skipped)
      skipped->push_back(fmt::format("kid={}: {}", v.kind == Kind::kObject ? string_member(v, "kid") : "", bad));
  }
  ERR_clear_error();  // keys OpenSSL refused leave errors in this thread's queue
  return set;
}

bool known_jws_algorithm(std::string_view alg) { return !key_type_for(alg).empty(); }

std::string key_type_for(std::string_view alg) {
  static const std::vector<std::string_view> kRsa{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"};
  static const std::vector<std::string_view> kEc{"ES256", "ES384", "ES512"};
  static const std::vector<std::string_view> kHmac{"HS256", "HS384", "HS512"};
  auto in = [&](const auto& list) { return std::find(list.begin(), list.end(), alg) != list.end(); };
  if (in(kRsa)) return "RSA";
  if (in(kEc)) return "EC";
  if (in(kHmac)) return "oct";
  if (alg == "EdDSA") return "OKP";
  return "";
}

namespace {

const char* curve_for(std::string_view alg) {
  if (alg == "ES256") return "P-256";
  if (alg == "ES384") return "P-384";
  if (alg == "ES512") return "P-521";
  return "";
}

}  // namespace

const Jwk* select_verification_key(const JwkSet& set, std::string_view alg, const std::optional<std::string>& kid) {
  const auto kty = key_type_for(alg);
  std::vector<const Jwk*> found;
  for (const auto& k : set.keys) {
    if (kid && k.kid != *kid) continue;
    if (k.kty != kty) continue;
    if (!k.use.empty() && k.use != "sig") continue;
    if (k.key_ops && std::find(k.key_ops->begin(), k.key_ops->end(), "verify") == k.key_ops->end()) continue;
    found.push_back(&k);
  }
  auto narrow = [&found](auto keep) {
    if (found.size() <= 1) return;
    std::vector<const Jwk*> kept;
    for (const auto* k : found)
      if (keep(*k)) kept.push_back(k);
    found = std::move(kept);
  };
  narrow([&](const Jwk& k) { return k.alg.empty() || k.alg == alg; });
  if (kty == "EC") narrow([&](const Jwk& k) { return k.crv.empty() || k.crv == curve_for(alg); });
  if (kty == "OKP") narrow([](const Jwk& k) { return k.crv.empty() || k.crv == "Ed25519" || k.crv == "Ed448"; });
  return found.empty() ? nullptr : found.front();
}

}  // namespace skiff::oauth
