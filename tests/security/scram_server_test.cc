// The SCRAM primitives and server (security/sasl/scram*.h): RFC 7677's
// SCRAM-SHA-256 example byte for byte, a SCRAM-SHA-512 exchange against a
// client written here, and the failures: wrong password, unknown user (a full
// exchange that fails only at the proof), malformed and hostile messages.
#include "security/sasl/scram_server.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <random>

#include "security/sasl/scram.h"
#include "security/sasl/scram_store.h"

using namespace skiff::sasl;
using skiff::base64_decode;
using skiff::base64_encode;
using Outcome = skiff::sasl::SaslStep::Outcome;

namespace {

// RFC 7677 section 3.
constexpr std::string_view kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view kServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr std::string_view kServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr std::string_view kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr std::string_view kServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

void add_user(ScramCredentialStore& store, ScramMechanism m, const std::string& user, std::string_view password,
              std::string salt, int32_t iterations = 4096) {
  auto credential = make_credential(m, password, iterations, std::move(salt));
  REQUIRE(store.apply({{user, m, credential}}) == 0);
}

std::unique_ptr<ScramCredentialStore> rfc_store() {
  auto store = std::make_unique<ScramCredentialStore>(nullptr);
  add_user(*store, ScramMechanism::kSha256, "user", "pencil", *base64_decode("W22ZaJ0SNY7soEsUEjb6gQ=="));
  return store;
}

// The client side of RFC 5802, written apart from the server.
struct Client {
  ScramMechanism m;
  std::string user, password;
  std::string nonce = "fyko+d2lbbFgONRv9qkxdawL";
  std::string expected_server_final = "";
  std::string bare() const { return "n=" + user + ",r=" + nonce; }
  std::string first() const { return "n,," + bare(); }

  std::string final_message(const std::string& server_first) {
    auto r = server_first.substr(2, server_first.find(",s=") - 2);
    auto s_at = server_first.find(",s=") + 3, i_at = server_first.find(",i=");
    auto salt = *base64_decode(server_first.substr(s_at, i_at - s_at));
    int iterations = std::stoi(server_first.substr(i_at + 3));
    auto salted = scram_hi(m, password, salt, iterations);
    std::string without_proof = "c=biws,r=" + r;
    std::string auth = bare() + "," + server_first + "," + without_proof;
    auto client_key = scram_client_key(m, salted);
    auto signature = scram_hmac(m, scram_hash(m, client_key), auth);
    for (size_t i = 0; i < signature.size(); ++i) signature[i] ^= client_key[i];
    expected_server_final = "v=" + base64_encode(scram_hmac(m, scram_server_key(m, salted), auth));
    return without_proof + ",p=" + base64_encode(signature);
  }
};

SaslStep run(SaslServer& server, Client& client) {
  auto first = server.step(client.first());
  if (first.outcome != Outcome::kChallenge) return first;
  return server.step(client.final_message(first.token));
}

const std::string kFailure256 =
    "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256";

}  // namespace

TEST_CASE("mechanism names", "[sasl][scram]") {
  CHECK(mechanism_from_name("SCRAM-SHA-512") == ScramMechanism::kSha512);
  CHECK_FALSE(mechanism_from_name("scram-sha-512"));
  CHECK(mechanism_from_code(1) == ScramMechanism::kSha256);
  CHECK_FALSE(mechanism_from_code(0));
  CHECK(mechanism_name(ScramMechanism::kSha256) == "SCRAM-SHA-256");
}

TEST_CASE("RFC 7677's SCRAM-SHA-256 example, byte for byte", "[sasl][scram]") {
  auto owned = rfc_store();
  auto& store = *owned;
  auto server = make_scram_server(ScramMechanism::kSha256, store, nullptr, std::string(kServerNonce));
  auto first = server->step(kClientFirst);
  REQUIRE(first.outcome == Outcome::kChallenge);
  CHECK(first.token == kServerFirst);
  auto final_step = server->step(kClientFinal);
  REQUIRE(final_step.outcome == Outcome::kComplete);
  CHECK(final_step.token == kServerFinal);
  CHECK(final_step.user == "user");
  CHECK(server->step("more").outcome == Outcome::kFailed);  // the exchange is over
}

TEST_CASE("SCRAM-SHA-512 round trip, names with ',' and '='", "[sasl][scram]") {
  ScramCredentialStore store(nullptr);
  add_user(store, ScramMechanism::kSha512, "al,i=ce", "s3cret", random_bytes(32), 8192);
  Client client{ScramMechanism::kSha512, "al=2Ci=3Dce", "s3cret"};
  auto server = make_scram_server(ScramMechanism::kSha512, store);
  auto result = run(*server, client);
  REQUIRE(result.outcome == Outcome::kComplete);
  CHECK(result.user == "al,i=ce");
  CHECK(result.token == client.expected_server_final);
  // The same user authenticating as itself through an authzid is fine too.
  auto with_authzid = make_scram_server(ScramMechanism::kSha512, store);
  auto first = with_authzid->step("n,a=al=2Ci=3Dce," + client.bare());
  CHECK(first.outcome == Outcome::kChallenge);
}

TEST_CASE("SCRAM: wrong password and unknown user fail alike, at the proof", "[sasl][scram]") {
  auto owned = rfc_store();
  auto& store = *owned;
  Client wrong{ScramMechanism::kSha256, "user", "pen"};
  auto server = make_scram_server(ScramMechanism::kSha256, store);
  auto result = run(*server, wrong);
  REQUIRE(result.outcome == Outcome::kFailed);
  CHECK(result.error == kFailure256);
  CHECK(result.log_detail.find("pen") == std::string::npos);

  Client ghost{ScramMechanism::kSha256, "ghost", "pencil"};
  auto server2 = make_scram_server(ScramMechanism::kSha256, store);
  auto first = server2->step(ghost.first());
  REQUIRE(first.outcome == Outcome::kChallenge);  // a salt and iterations as for a real user
  auto again = make_scram_server(ScramMechanism::kSha256, store)->step(ghost.first());
  CHECK(again.token.substr(again.token.find(",s=")) == first.token.substr(first.token.find(",s=")));
  auto final_step = server2->step(ghost.final_message(first.token));
  REQUIRE(final_step.outcome == Outcome::kFailed);
  CHECK(final_step.error == kFailure256);

  // The SCRAM-SHA-256 credential does not answer for SCRAM-SHA-512.
  Client other_mechanism{ScramMechanism::kSha512, "user", "pencil"};
  CHECK(run(*make_scram_server(ScramMechanism::kSha512, store), other_mechanism).outcome == Outcome::kFailed);
}

TEST_CASE("SCRAM: malformed client-first messages fail cleanly", "[sasl][scram]") {
  auto owned = rfc_store();
  auto& store = *owned;
  for (std::string_view bad : std::vector<std::string_view>{"",
                                                            "n",
                                                            "n,",
                                                            "n,,",
                                                            "y,,n=user,r=abc",
                                                            "p=tls-unique,,n=user,r=abc",
                                                            "n,,n=,r=abc",
                                                            "n,,n=us=er,r=abc",
                                                            "n,,n=user",
                                                            "n,,n=user,r=",
                                                            "n,,m=x,n=user,r=abc",
                                                            "n,,r=abc,n=user",
                                                            "n,,n=user,r=a b",
                                                            "n,,n=user,r=abc,=x",
                                                            "n,,n=user,r=abc,1=x",
                                                            "n,,n=user,r=abc,ext=",
                                                            "n,x=user,n=user,r=abc",
                                                            "n,,n=user,r=abc,tokenauth=true",
                                                            "n,,n=user,r=abc,tokenauth=TRUE",
                                                            std::string_view("n,,n=u\0r,r=abc", 14)}) {
    INFO(bad);
    auto step = make_scram_server(ScramMechanism::kSha256, store)->step(bad);
    CHECK(step.outcome == Outcome::kFailed);
    CHECK(step.error == kFailure256);
  }
  // Unknown extensions are ignored; tokenauth=false is no token.
  CHECK(make_scram_server(ScramMechanism::kSha256, store)->step("n,,n=user,r=abc,ext=1,tokenauth=false").outcome ==
        Outcome::kChallenge);
  // An authzid naming someone else: Kafka's own message.
  auto other = make_scram_server(ScramMechanism::kSha256, store)->step("n,a=admin,n=user,r=abc");
  REQUIRE(other.outcome == Outcome::kFailed);
  CHECK(other.error == "Authentication failed: Client requested an authorization id that is different from username");
}

TEST_CASE("SCRAM: malformed client-final messages fail cleanly", "[sasl][scram]") {
  auto owned = rfc_store();
  auto& store = *owned;
  const std::string nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  const std::string proof = "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
  for (const std::string& bad :
       {std::string(""), fmt::format("c=biws,r={}", nonce), fmt::format("c=biws,r={},p=!!!!", nonce),
        fmt::format("c=biws,r={},p=", nonce), fmt::format("c=biws,r={}x,p={}", nonce, proof),
        fmt::format("c=biws,r=rOprNGfwEbeRWgbNEkqO,p={}", proof), fmt::format("c=eSws,r={},p={}", nonce, proof),
        fmt::format("r={},c=biws,p={}", nonce, proof), fmt::format("c=biws,r={},p={}", nonce, proof.substr(4)),
        fmt::format("c=biws,r={},p={},x=1", nonce, proof)}) {
    INFO(bad);
    auto server = make_scram_server(ScramMechanism::kSha256, store, nullptr, std::string(kServerNonce));
    REQUIRE(server->step(kClientFirst).outcome == Outcome::kChallenge);
    auto step = server->step(bad);
    CHECK(step.outcome == Outcome::kFailed);
    CHECK(step.error == kFailure256);
  }
}

TEST_CASE("SCRAM: random bytes never crash the server", "[sasl][scram]") {
  auto owned = rfc_store();
  auto& store = *owned;
  std::mt19937 rng(42);
  const std::string alphabet = "nyp,=ar2C3Dcbiws+/ \x01\xff";
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 64, '\0');
    for (auto& c : junk) c = alphabet[rng() % alphabet.size()];
    auto server = make_scram_server(ScramMechanism::kSha256, store, nullptr, std::string(kServerNonce));
    bool first_ok = server->step(i % 2 ? junk : std::string(kClientFirst)).outcome == Outcome::kChallenge;
    if (first_ok) CHECK(server->step(junk).outcome == Outcome::kFailed);
  }
}
