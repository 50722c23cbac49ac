// OAUTHBEARER's signed-JWT validation (security/oauth), as Kafka's
// OAuthBearerValidatorCallbackHandler: tokens signed in the test with OpenSSL
// (RS256, PS256, ES256, ES384, EdDSA, HS256) against a JWKS built from the
// keys; wrong signatures, expiry, nbf, audience, issuer, unknown key ids,
// "none", malformed tokens; and the JWKS endpoint's refresh (rotation, the
// rate-limited refresh on an unknown key id, a failed refresh keeping the keys).
#include "security/oauth/jwt_validator.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/base64.h"
#include "security/oauth/jwks_source.h"

using namespace skiff::oauth;
using skiff::base64url_encode;

namespace {

constexpr int64_t kNowS = 1'800'000'000;
constexpr int64_t kNowMs = kNowS * 1000;

using Key = std::shared_ptr<EVP_PKEY>;

Key generate(const char* type, const char* param = nullptr) {
  EVP_PKEY* k = nullptr;
  if (std::string(type) == "RSA")
    k = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048));
  else if (param)
    k = EVP_PKEY_Q_keygen(nullptr, nullptr, type, param);
  else
    k = EVP_PKEY_Q_keygen(nullptr, nullptr, type);
  REQUIRE(k);
  return Key(k, EVP_PKEY_free);
}

std::string bn_bytes(EVP_PKEY* k, const char* name, int pad = 0) {
  BIGNUM* bn = nullptr;
  REQUIRE(EVP_PKEY_get_bn_param(k, name, &bn) == 1);
  std::string out(static_cast<size_t>(std::max(BN_num_bytes(bn), pad)), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size()));
  BN_free(bn);
  return out;
}

std::string jwk_of(const Key& k, const std::string& kid, const std::string& crv = "") {
  const int id = EVP_PKEY_get_base_id(k.get());
  if (id == EVP_PKEY_RSA)
    return R"({"kty":"RSA","kid":")" + kid + R"(","use":"sig","n":")" +
           base64url_encode(bn_bytes(k.get(), OSSL_PKEY_PARAM_RSA_N)) + R"(","e":")" +
           base64url_encode(bn_bytes(k.get(), OSSL_PKEY_PARAM_RSA_E)) + R"("})";
  if (id == EVP_PKEY_EC) {
    const int size = crv == "P-384" ? 48 : 32;
    return R"({"kty":"EC","kid":")" + kid + R"(","crv":")" + crv + R"(","x":")" +
           base64url_encode(bn_bytes(k.get(), OSSL_PKEY_PARAM_EC_PUB_X, size)) + R"(","y":")" +
           base64url_encode(bn_bytes(k.get(), OSSL_PKEY_PARAM_EC_PUB_Y, size)) + R"("})";
  }
  std::string raw(32, '\0');
  size_t len = raw.size();
  REQUIRE(EVP_PKEY_get_raw_public_key(k.get(), reinterpret_cast<unsigned char*>(raw.data()), &len) == 1);
  return R"({"kty":"OKP","crv":"Ed25519","kid":")" + kid + R"(","x":")" + base64url_encode(raw.substr(0, len)) +
         R"("})";
}

std::string jwks(const std::vector<std::string>& keys) {
  std::string out = R"({"keys":[)";
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? "," : "") + keys[i];
  return out + "]}";
}

std::string sign(const std::string& alg, const Key& k, const std::string& input) {
  const EVP_MD* md = alg == "EdDSA"         ? nullptr
                     : alg.ends_with("384") ? EVP_sha384()
                     : alg.ends_with("512") ? EVP_sha512()
                                            : EVP_sha256();
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_PKEY_CTX* pctx = nullptr;
  REQUIRE(EVP_DigestSignInit(ctx.get(), &pctx, md, nullptr, k.get()) == 1);
  if (alg.starts_with("PS")) {
    REQUIRE(EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1);
    REQUIRE(EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1);
  }
  size_t len = 0;
  auto in = reinterpret_cast<const unsigned char*>(input.data());
  REQUIRE(EVP_DigestSign(ctx.get(), nullptr, &len, in, input.size()) == 1);
  std::string sig(len, '\0');
  REQUIRE(EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, in, input.size()) == 1);
  sig.resize(len);
  if (!alg.starts_with("ES")) return sig;
  const size_t half = alg == "ES384" ? 48 : 32;  // DER -> R||S
  auto p = reinterpret_cast<const unsigned char*>(sig.data());
  ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
  REQUIRE(es);
  std::string rs(2 * half, '\0');
  BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(rs.data()), static_cast<int>(half));
  BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(rs.data() + half), static_cast<int>(half));
  ECDSA_SIG_free(es);
  return rs;
}

std::string claims(const std::string& extra = "", int64_t exp = kNowS + 600, int64_t iat = kNowS - 10) {
  return R"({"sub":"alice","aud":"kafka","iss":"https://idp","exp":)" + std::to_string(exp) + R"(,"iat":)" +
         std::to_string(iat) + extra + "}";
}

std::string token(const std::string& alg, const Key& k, const std::string& kid, const std::string& body = claims()) {
  const std::string input =
      base64url_encode(R"({"alg":")" + alg + R"(","kid":")" + kid + R"("})") + "." + base64url_encode(body);
  return input + "." + base64url_encode(sign(alg, k, input));
}

class StaticKeys : public VerificationKeys {
 public:
  explicit StaticKeys(const std::string& json) { set(json); }
  void set(const std::string& json) {
    std::string why;
    auto s = parse_jwks(json, why);
    REQUIRE(s);
    keys_ = std::make_shared<const JwkSet>(std::move(*s));
  }
  std::shared_ptr<const JwkSet> current() override { return keys_; }
  void missing_key(const std::string& kid) override { missing.push_back(kid); }
  std::string location() const override { return "test"; }
  std::vector<std::string> missing;

 private:
  std::shared_ptr<const JwkSet> keys_;
};

skiff::config::OAuthBearerJwtOptions options() {
  skiff::config::OAuthBearerJwtOptions o;
  o.expected_audience = {"kafka"};
  o.expected_issuer = "https://idp";
  return o;
}

struct Fixture {
  Key rsa = generate("RSA"), ec = generate("EC", "P-256"), ec384 = generate("EC", "P-384"), ed = generate("ED25519");
  std::shared_ptr<StaticKeys> keys = std::make_shared<StaticKeys>(
      jwks({jwk_of(rsa, "r1"), jwk_of(ec, "e1", "P-256"), jwk_of(ec384, "e3", "P-384"), jwk_of(ed, "d1"),
            R"({"kty":"oct","kid":"h1","k":")" + base64url_encode(std::string(32, 'k')) + R"("})"}));
  JwtValidator validator{options(), keys};
  ValidatedToken check(const std::string& t, int64_t now_ms = kNowMs) const { return validator.validate(t, now_ms); }
};

std::string hs256(const std::string& kid, const std::string& body) {
  const std::string input =
      base64url_encode(R"({"alg":"HS256","kid":")" + kid + R"("})") + "." + base64url_encode(body);
  unsigned char mac[32];
  unsigned int len = 0;
  const std::string secret(32, 'k');
  HMAC(EVP_sha256(), secret.data(), 32, reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &len);
  return input + "." + base64url_encode(std::string(reinterpret_cast<char*>(mac), len));
}

}  // namespace

TEST_CASE("JWT: tokens signed with each algorithm family are accepted", "[jwt]") {
  Fixture f;
  for (auto [alg, key, kid] : {std::tuple{"RS256", f.rsa, "r1"},
                               {"RS512", f.rsa, "r1"},
                               {"PS256", f.rsa, "r1"},
                               {"PS384", f.rsa, "r1"},
                               {"ES256", f.ec, "e1"},
                               {"ES384", f.ec384, "e3"},
                               {"EdDSA", f.ed, "d1"}}) {
    INFO(alg);
    auto t = f.check(token(alg, key, kid));
    CHECK(t.reason == "");
    CHECK(t.ok);
    CHECK(t.principal == "alice");
    CHECK(t.expires_at_ms == (kNowS + 600) * 1000);
  }
  CHECK(f.check(hs256("h1", claims())).ok);
}

TEST_CASE("JWT: a signature that does not verify is refused", "[jwt]") {
  Fixture f;
  auto t = token("RS256", f.rsa, "r1");
  t.back() = t.back() == 'A' ? 'B' : 'A';
  CHECK_THAT(f.check(t).reason, Catch::Contains("JWS signature is invalid"));
  // Signed by another key under a known kid.
  auto other = generate("EC", "P-256");
  CHECK_THAT(f.check(token("ES256", other, "e1")).reason, Catch::Contains("JWS signature is invalid"));
  // The payload changed after signing.
  auto good = token("ES256", f.ec, "e1");
  auto dot1 = good.find('.'), dot2 = good.rfind('.');
  auto forged = good.substr(0, dot1 + 1) + base64url_encode(claims(R"(,"admin":true)")) + good.substr(dot2);
  CHECK_FALSE(f.check(forged).ok);
}

TEST_CASE("JWT: exp, iat and nbf with the clock skew", "[jwt]") {
  Fixture f;
  CHECK_THAT(f.check(token("RS256", f.rsa, "r1", claims("", kNowS - 31))).reason,
             Catch::Contains("The JWT is no longer valid"));
  CHECK(f.check(token("RS256", f.rsa, "r1", claims("", kNowS - 29))).ok);  // within 30 s of skew
  CHECK_THAT(f.check(token("RS256", f.rsa, "r1", claims(R"(,"nbf":1800000031)"))).reason,
             Catch::Contains("not yet valid"));
  CHECK(f.check(token("RS256", f.rsa, "r1", claims(R"(,"nbf":1800000029)"))).ok);
  CHECK_THAT(f.check(token("RS256", f.rsa, "r1", R"({"sub":"a","aud":"kafka","iss":"https://idp","iat":1})")).reason,
             Catch::Contains("No Expiration Time (exp) claim present."));
  CHECK_THAT(
      f.check(token("RS256", f.rsa, "r1", R"({"sub":"a","aud":"kafka","iss":"https://idp","exp":1900000000})")).reason,
      Catch::Contains("No Issued At (iat) claim present."));
}

TEST_CASE("JWT: audience and issuer", "[jwt]") {
  Fixture f;
  auto with = [&](const std::string& aud, const std::string& iss) {
    return f.check(
        token("ES256", f.ec, "e1", R"({"sub":"alice",)" + aud + iss + R"("exp":1800000600,"iat":1800000000})"));
  };
  CHECK(with(R"("aud":["other","kafka"],)", R"("iss":"https://idp",)").ok);
  CHECK_THAT(with(R"("aud":"other",)", R"("iss":"https://idp",)").reason,
             Catch::Contains("doesn't contain an acceptable identifier"));
  CHECK_THAT(with("", R"("iss":"https://idp",)").reason, Catch::Contains("No Audience (aud) claim present."));
  CHECK_THAT(with(R"("aud":"kafka",)", R"("iss":"https://evil",)").reason,
             Catch::Contains("Issuer (iss) claim value (https://evil) doesn't match expected value of https://idp"));
  CHECK_THAT(with(R"("aud":"kafka",)", "").reason, Catch::Contains("No Issuer (iss) claim present"));
  // Unverified audience and issuer accept any.
  auto o = options();
  o.expected_audience.clear();
  o.expected_issuer.clear();
  JwtValidator lax(o, f.keys);
  CHECK(lax.validate(token("ES256", f.ec, "e1", R"({"sub":"a","exp":1800000600,"iat":1800000000})"), kNowMs).ok);
}

TEST_CASE("JWT: sub and scope claims as Kafka reads them", "[jwt]") {
  Fixture f;
  auto o = options();
  o.sub_claim = "client_id";
  o.scope_claim = "scp";
  JwtValidator v(o, f.keys);
  auto t = v.validate(token("RS256", f.rsa, "r1", claims(R"(,"client_id":" svc ","scp":["read","write"])")), kNowMs);
  CHECK(t.ok);
  CHECK(t.principal == "svc");
  CHECK(t.scope == std::set<std::string>{"read", "write"});
  CHECK(v.validate(token("RS256", f.rsa, "r1", claims(R"(,"client_id":"svc","scp":"one")")), kNowMs).scope ==
        std::set<std::string>{"one"});
  CHECK_THAT(v.validate(token("RS256", f.rsa, "r1", claims()), kNowMs).reason,
             Catch::Contains("client_id value must be non-null"));
  CHECK_THAT(v.validate(token("RS256", f.rsa, "r1", claims(R"(,"client_id":"  ")")), kNowMs).reason,
             Catch::Contains("must not contain only whitespace"));
  CHECK_THAT(v.validate(token("RS256", f.rsa, "r1", claims(R"(,"client_id":"a","scp":["x","x"])")), kNowMs).reason,
             Catch::Contains("must not contain duplicates"));
}

TEST_CASE("JWT: an unknown key id asks the source to refresh and fails", "[jwt]") {
  Fixture f;
  auto stranger = generate("RSA");
  CHECK_THAT(f.check(token("RS256", stranger, "r9")).reason,
             Catch::Contains("Unable to find a suitable verification key"));
  CHECK(f.keys->missing == std::vector<std::string>{"r9"});
  // Rotation: the key appears in the set, the old one leaves.
  f.keys->set(jwks({jwk_of(stranger, "r9")}));
  CHECK(f.check(token("RS256", stranger, "r9")).ok);
  CHECK_FALSE(f.check(token("RS256", f.rsa, "r1")).ok);
  // A key of the wrong type for the algorithm is no key.
  CHECK_THAT(f.check(token("ES256", f.ec, "r9")).reason, Catch::Contains("Unable to find a suitable"));
}

TEST_CASE("JWT: alg none, unknown algorithms and malformed tokens are refused", "[jwt]") {
  Fixture f;
  const auto body = base64url_encode(claims());
  CHECK_THAT(f.check(base64url_encode(R"({"alg":"none"})") + "." + body + ".").reason,
             Catch::Contains("Malformed JWT"));
  CHECK_THAT(f.check(base64url_encode(R"({"alg":"none"})") + "." + body + ".c2ln").reason,
             Catch::Contains("'none' is a blocked algorithm"));
  CHECK_THAT(f.check(base64url_encode(R"({"alg":"XX256","kid":"r1"})") + "." + body + ".c2ln").reason,
             Catch::Contains("unknown, unsupported"));
  CHECK_THAT(f.check(base64url_encode(R"({"kid":"r1"})") + "." + body + ".c2ln").reason,
             Catch::Contains("alg (algorithm) value is required"));
  for (const std::string bad : {"", "abc", "a.b", "a..c", "a.b.c.d", "!!!.###.$$$", "e30.e30.e30"}) {
    INFO(bad);
    CHECK_FALSE(f.check(bad).ok);
  }
  // A well-signed payload that is not JSON.
  const std::string input = base64url_encode(R"({"alg":"RS256","kid":"r1"})") + "." + base64url_encode("not json");
  CHECK_THAT(f.check(input + "." + base64url_encode(sign("RS256", f.rsa, input))).reason,
             Catch::Contains("Unable to parse JWT claims"));
}

TEST_CASE("JWKS: keys that cannot be read are skipped, a set without keys is refused", "[jwt]") {
  std::string why;
  std::vector<std::string> skipped;
  auto s = parse_jwks(R"({"keys":[{"kty":"RSA","kid":"x"},{"kty":"EC","crv":"P-256","x":"AA","y":"AA"},
                                  {"kty":"weird"},{"kty":"oct","k":"c2VjcmV0"}]})",
                      why, &skipped);
  REQUIRE(s);
  CHECK(s->keys.size() == 1);
  CHECK(skipped.size() == 3);
  CHECK_FALSE(parse_jwks(R"({"nokeys":[]})", why));
  CHECK_FALSE(parse_jwks("[", why));
}

TEST_CASE("JWKS endpoint: refresh, rotation, the unknown key id, a failed refresh", "[jwt]") {
  auto k1 = generate("EC", "P-256"), k2 = generate("EC", "P-256");
  std::mutex mu;
  std::string served = jwks({jwk_of(k1, "k1", "P-256")});
  bool failing = false;
  std::atomic<int> fetches{0};
  std::atomic<int64_t> now{0};
  JwksEndpointOptions o;
  o.url = "https://idp/jwks";
  o.refresh_ms = 3600000;
  o.retry_backoff_ms = 1;
  o.retry_backoff_max_ms = 5;
  auto endpoint = std::make_shared<JwksEndpoint>(
      o,
      [&](const std::string&) {
        ++fetches;
        std::lock_guard lock(mu);
        HttpGetResult r;
        r.ok = !failing;
        r.body = served;
        r.error = failing ? "down" : "";
        return r;
      },
      [&] { return now.load(); });
  endpoint->start();
  JwtValidator v(options(), endpoint);
  CHECK(v.validate(token("ES256", k1, "k1"), kNowMs).ok);
  {
    std::lock_guard lock(mu);
    served = jwks({jwk_of(k2, "k2", "P-256")});  // rotated: k1 gone, k2 new
  }
  CHECK_FALSE(v.validate(token("ES256", k2, "k2"), kNowMs).ok);  // fails now, refreshes soon
  auto wait_for = [&](auto done) {
    for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return done();
  };
  REQUIRE(wait_for([&] { return endpoint->refreshes() >= 1; }));
  CHECK(v.validate(token("ES256", k2, "k2"), kNowMs).ok);
  CHECK_FALSE(v.validate(token("ES256", k1, "k1"), kNowMs).ok);
  // The same unknown id within a minute does not fetch again (k1's refusal
  // above asked for a refresh too: let it finish first).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int before = fetches;
  const int64_t refreshed = endpoint->refreshes();
  CHECK_FALSE(v.validate(token("ES256", k1, "k9"), kNowMs).ok);
  REQUIRE(wait_for([&] { return endpoint->refreshes() > refreshed; }));
  CHECK_FALSE(v.validate(token("ES256", k1, "k9"), kNowMs).ok);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(fetches == before + 1);
  // A failing endpoint keeps the keys fetched before.
  {
    std::lock_guard lock(mu);
    failing = true;
  }
  now += 60001;
  CHECK_FALSE(v.validate(token("ES256", k1, "k9"), kNowMs).ok);
  REQUIRE(wait_for([&] { return endpoint->refreshes() > refreshed + 1; }));
  CHECK(fetches.load() > before + 1);
  CHECK(v.validate(token("ES256", k2, "k2"), kNowMs).ok);
}
