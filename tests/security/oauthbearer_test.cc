// OAUTHBEARER with unsecured JWS (security/sasl/oauthbearer_server.h): Kafka's
// validation rules (exp, iat, clock skew, principal claim, scope), its error
// exchange (a JSON challenge, the client's \x01, then the failure) and the
// client-first message's grammar (RFC 7628), at a fixed clock.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/base64.h"
#include "security/sasl/oauthbearer_server.h"

using namespace skiff::sasl;
using skiff::config::OAuthBearerOptions;
using Outcome = SaslStep::Outcome;

namespace {

constexpr int64_t kNow = 1'800'000'000'000;  // ms

std::string jws(const std::string& claims, const std::string& header = R"({"alg":"none"})",
                const std::string& signature = "") {
  return skiff::base64url_encode(header) + "." + skiff::base64url_encode(claims) + "." + signature;
}

// RFC 7628's messages with '|' written for the \x01 separator.
std::string separated(std::string text) {
  std::replace(text.begin(), text.end(), '|', '\x01');
  return text;
}

std::string first(const std::string& token, const std::string& authzid = "") {
  return separated("n," + (authzid.empty() ? "" : "a=" + authzid) + ",|auth=Bearer " + token + "||");
}

JwsCheck check(const std::string& claims, const OAuthBearerOptions& o = {}) {
  return check_unsecured_jws(jws(claims), o, kNow);
}

std::unique_ptr<SaslServer> server(OAuthBearerOptions o = {}) {
  return make_oauthbearer_server(std::make_shared<const OAuthBearerOptions>(std::move(o)), [] { return kNow; });
}

}  // namespace

TEST_CASE("OAUTHBEARER: a valid unsecured token names its subject and expiry", "[oauthbearer]") {
  auto c = check(R"({"sub":"alice","iat":1800000000,"exp":1800000060.5})");
  CHECK(c.ok);
  CHECK(c.principal == "alice");
  CHECK(c.expires_at_ms == 1'800'000'060'500);
  OAuthBearerOptions o;
  o.principal_claim = "client_id";
  CHECK(check(R"({"client_id":"svc","exp":1800000060})", o).principal == "svc");
}

TEST_CASE("OAUTHBEARER: tokens Kafka's unsecured validator refuses", "[oauthbearer]") {
  auto reason = [](const std::string& claims) { return check(claims).reason; };
  CHECK_THAT(reason(R"({"sub":"alice"})"), Catch::Contains("No expiration time"));
  CHECK_THAT(reason(R"({"sub":"alice","exp":"soon"})"), Catch::Contains("'exp' claim was not of type Number"));
  CHECK_THAT(reason(R"({"exp":1800000060})"), Catch::Contains("No principal name in JWT claim: sub"));
  CHECK_THAT(reason(R"({"sub":" ","exp":1800000060})"), Catch::Contains("No principal name"));
  CHECK_THAT(reason(R"({"sub":["a"],"exp":1800000060})"), Catch::Contains("'sub' claim was not of type String"));
  CHECK_THAT(reason(R"({"sub":"a","exp":1800000000})"), Catch::Contains("on or after the Expiration Time"));
  CHECK_THAT(reason(R"({"sub":"a","exp":1800000060,"iat":1800000001})"), Catch::Contains("Issued At value"));
  CHECK_THAT(reason(R"({"sub":"a","exp":1799999000,"iat":1799999000})"), Catch::Contains("Expiration Time"));
  CHECK_THAT(reason(R"({"sub":"a","exp":1800000060,"scope":5})"), Catch::Contains("'scope' claim was not of type"));
  const auto claims = std::string(R"({"sub":"a","exp":1800000060})");
  CHECK_THAT(check_unsecured_jws(jws(claims, R"({"alg":"HS256"})"), {}, kNow).reason, Catch::Contains("'none'"));
  CHECK_THAT(check_unsecured_jws(jws(claims, R"({"typ":"JWT"})"), {}, kNow).reason, Catch::Contains("Algorithm"));
  CHECK_THAT(check_unsecured_jws(jws(claims, R"({"alg":"none"})", "c2ln"), {}, kNow).reason,
             Catch::Contains("digital signature"));
  CHECK_THAT(check_unsecured_jws("a..b", {}, kNow).reason, Catch::Contains("'..'"));
  CHECK_THAT(check_unsecured_jws("abc.def", {}, kNow).reason, Catch::Contains("3 dot-separated"));
  CHECK_THAT(check_unsecured_jws(jws("[1]"), {}, kNow).reason, Catch::Contains("malformed"));
  CHECK_THAT(check_unsecured_jws("e30.!!!.", {}, kNow).reason, Catch::Contains("malformed"));
}

TEST_CASE("OAUTHBEARER: the allowable clock skew widens both ends", "[oauthbearer]") {
  OAuthBearerOptions o;
  o.clock_skew_ms = 2000;
  CHECK(check(R"({"sub":"a","exp":1799999999})", o).ok);                   // expired 1 s ago
  CHECK(check(R"({"sub":"a","exp":1800000060,"iat":1800000001})", o).ok);  // issued 1 s ahead
  CHECK_FALSE(check(R"({"sub":"a","exp":1799999998})", o).ok);
}

TEST_CASE("OAUTHBEARER: required scope, from a string or a list claim", "[oauthbearer]") {
  OAuthBearerOptions o;
  o.required_scope = {"kafka", "write"};
  CHECK(check(R"({"sub":"a","exp":1800000060,"scope":[" kafka ","write","x"]})", o).ok);
  auto c = check(R"({"sub":"a","exp":1800000060,"scope":"kafka"})", o);
  CHECK_FALSE(c.ok);
  CHECK(c.missing_scope == "write");
  o.scope_claim = "scp";
  o.required_scope = {"kafka"};
  CHECK(check(R"({"sub":"a","exp":1800000060,"scp":"kafka"})", o).ok);
}

TEST_CASE("OAUTHBEARER: a bad token is a JSON challenge, then a failure after the client's 0x01 byte",
          "[oauthbearer]") {
  auto s = server();
  auto step = s->step(first(jws(R"({"sub":"alice","exp":1700000000})")));
  CHECK(step.outcome == Outcome::kChallenge);
  CHECK(step.token == R"({"status":"invalid_token"})");
  step = s->step("\x01");
  CHECK(step.outcome == Outcome::kFailed);
  CHECK(step.error == R"({"status":"invalid_token"})");
  CHECK_THAT(step.log_detail, Catch::Contains("Expiration Time"));

  OAuthBearerOptions o;
  o.required_scope = {"kafka"};
  s = server(o);
  CHECK(s->step(first(jws(R"({"sub":"alice","exp":1800000060})"))).token ==
        R"({"status":"insufficient_scope", "scope":"kafka"})");
}

TEST_CASE("OAUTHBEARER: a good token completes with the session ending at exp", "[oauthbearer]") {
  const auto token = jws(R"({"sub":"alice","exp":1800000060})");
  auto step = server()->step(first(token));
  CHECK(step.outcome == Outcome::kComplete);
  CHECK(step.user == "alice");
  CHECK(step.token.empty());
  CHECK(step.expires_at_ms == 1'800'000'060'000);
  CHECK(server()->step(first(token, "alice")).outcome == Outcome::kComplete);
  CHECK(server()->step(separated("n,,|auth=bearer " + token + "|traceId=a b||")).outcome ==
        Outcome::kComplete);  // the scheme in any case; extensions ignored
  step = server()->step(first(token, "bob"));
  CHECK(step.outcome == Outcome::kFailed);
  CHECK_THAT(step.error, Catch::Contains("authorization id (bob) that is different"));
}

TEST_CASE("OAUTHBEARER: malformed client-first messages fail at once", "[oauthbearer]") {
  const auto token = jws(R"({"sub":"alice","exp":1800000060})");
  const std::vector<std::string> bad_messages = {"n,,auth=Bearer " + token,
                                                 "y,,|auth=Bearer " + token + "||",
                                                 "n,,|auth=Basic " + token + "||",
                                                 "n,,|auth=Bearer||",
                                                 "n,,|auth=Bearer " + token + "|",
                                                 "n,,|other=x||",
                                                 "n,a=x=y,|auth=Bearer " + token + "||",
                                                 "n,,|auth=Bearer a+b||",
                                                 ""};
  for (const auto& bad : bad_messages) {
    auto step = server()->step(separated(bad));
    CHECK(step.outcome == Outcome::kFailed);
    CHECK(step.error ==
          "Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER");
  }
}
