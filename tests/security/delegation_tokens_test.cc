// DelegationTokenStore (security/sasl/delegation_tokens.h): Kafka's rules for
// creating, renewing, expiring and sweeping delegation tokens (its
// DelegationTokenControlManager), the HMAC under the secret key, the tokens
// kept across a reopen (0600 file, HMACs recomputed from the secret), and a
// SCRAM login with a token ("tokenauth"): the owner as the session's user,
// token-authenticated, until the token's expiry; unknown, expired and
// disabled tokens refused at the first message.
#include "security/sasl/delegation_tokens.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "common/wall_clock.h"
#include "security/sasl/scram_server.h"
#include "tests/support/metadata_store.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::sasl;

namespace {

constexpr int64_t kNow = 1'700'000'000'000;
constexpr int64_t kDay = 86'400'000;

DelegationTokenOptions options(std::string secret = "s3cret") { return {std::move(secret), 7 * kDay, kDay, 3600000}; }

}  // namespace

TEST_CASE("delegation tokens: create as Kafka's controller computes it", "[sasl][tokens]") {
  DelegationTokenStore store(nullptr, options());
  auto t = store.create("User:alice", "User:alice", {"User:bob"}, -1, kNow);
  REQUIRE(t);
  CHECK(t->info.issue_ms == kNow);
  CHECK(t->info.max_ms == kNow + 7 * kDay);
  CHECK(t->info.expiry_ms == kNow + kDay);
  CHECK(t->info.token_id.size() == 22);                                               // a Kafka Uuid in base64
  CHECK(t->hmac == scram_hmac(ScramMechanism::kSha512, "s3cret", t->info.token_id));  // HmacSHA512(secret, id)
  auto short_lived = store.create("User:alice", "User:alice", {}, 1000, kNow);
  REQUIRE(short_lived);
  CHECK(short_lived->info.max_ms == kNow + 1000);
  CHECK(short_lived->info.expiry_ms == kNow + 1000);  // min(max, now + expiry time)
  CHECK(store.create("User:alice", "User:alice", {}, 30 * kDay, kNow)->info.max_ms == kNow + 7 * kDay);
  CHECK(store.tokens().size() == 3);
  DelegationTokenStore off(nullptr, options(""));
  CHECK(off.create("User:alice", "User:alice", {}, -1, kNow).error() == ErrorCode::kDelegationTokenAuthDisabled);
}

TEST_CASE("delegation tokens: renew and expire, owner and renewer checks", "[sasl][tokens]") {
  DelegationTokenStore store(nullptr, options());
  auto ok = [](const Expected<int64_t, ErrorCode>& r) { return r ? *r : -1; };
  auto t = store.create("User:alice", "User:carol", {"User:bob"}, -1, kNow);
  REQUIRE(t);
  CHECK(store.renew("nope", "User:alice", -1, kNow).error() == ErrorCode::kDelegationTokenNotFound);
  CHECK(store.renew(t->hmac, "User:carol", -1, kNow).error() == ErrorCode::kDelegationTokenOwnerMismatch);  // requester
  CHECK(ok(store.renew(t->hmac, "User:bob", 1000, kNow + 5)) == kNow + 5 + 1000);  // min(expiry time, period)
  CHECK(ok(store.renew(t->hmac, "User:alice", -1, kNow + 10)) == kNow + 10 + kDay);
  CHECK(store.renew(t->hmac, "User:alice", -1, kNow + 3 * kDay).error() == ErrorCode::kDelegationTokenExpired);
  auto w = store.create("User:alice", "User:alice", {}, kDay + kDay / 2, kNow);
  CHECK(ok(store.renew(w->hmac, "User:alice", -1, kNow + kDay - 5)) == kNow + kDay + kDay / 2);  // capped at max
  auto u = store.create("User:alice", "User:alice", {}, -1, kNow);
  CHECK(store.expire(u->hmac, "User:bob", 10, kNow).error() == ErrorCode::kDelegationTokenOwnerMismatch);
  CHECK(ok(store.expire(u->hmac, "User:alice", 10, kNow)) == kNow + 10);
  CHECK(store.expire(u->hmac, "User:alice", 10, kNow + 20).error() == ErrorCode::kDelegationTokenExpired);
  CHECK(ok(store.expire(u->hmac, "User:alice", -1, kNow + 20)) == kNow + 20);  // negative: removed at once
  CHECK(store.expire(u->hmac, "User:alice", -1, kNow + 20).error() == ErrorCode::kDelegationTokenNotFound);
  CHECK(store.tokens().size() == 2);
}

TEST_CASE("delegation tokens: swept once expired, kept across a reopen", "[sasl][tokens]") {
  test::TempDir dir;
  std::string kept_id, kept_hmac;
  {
    auto meta = test::open_metadata(dir.path());
    DelegationTokenStore store(&meta->ns(metadata::kDelegationTokens), options());
    store.load();
    auto kept = store.create("User:alice", "User:alice", {"User:bob"}, -1, kNow);
    REQUIRE(store.create("User:alice", "User:alice", {}, 1000, kNow));
    kept_id = kept->info.token_id;
    kept_hmac = kept->hmac;
    CHECK(store.sweep(kNow + 2000) == 1);
    struct stat st {};
    REQUIRE(::stat(meta->ns(metadata::kDelegationTokens).file().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
  }
  auto meta = test::open_metadata(dir.path());
  DelegationTokenStore again(&meta->ns(metadata::kDelegationTokens), options());
  again.load();
  auto all = again.tokens();
  REQUIRE(all.size() == 1);
  CHECK(all[0].info.token_id == kept_id);
  CHECK(all[0].info.renewers == std::vector<std::string>{"User:bob"});
  CHECK(all[0].hmac == kept_hmac);
  DelegationTokenStore other_secret(&meta->ns(metadata::kDelegationTokens), options("another"));
  other_secret.load();
  CHECK(other_secret.tokens()[0].hmac != kept_hmac);  // a new secret: every HMAC changes, as in Kafka
}

TEST_CASE("delegation tokens: a corrupt file refuses to load", "[sasl][tokens]") {
  CHECK_THROWS(DelegationTokenStore::decode({std::string(2, '\0')}));
  std::map<std::string, TokenInfo> one{{"id", TokenInfo{"id", "User:a", "User:a", {}, 1, 2, 3}}};
  auto records = DelegationTokenStore::encode(one);
  CHECK(DelegationTokenStore::decode(records) == one);
  records[0].push_back('x');
  CHECK_THROWS(DelegationTokenStore::decode(records));
}

namespace {

// A SCRAM client's messages (RFC 5802) with the tokenauth extension.
std::string client_final(ScramMechanism m, const std::string& password, const std::string& client_bare,
                         const std::string& server_first) {
  auto r = server_first.substr(2, server_first.find(",s=") - 2);
  auto s_at = server_first.find(",s=") + 3, i_at = server_first.find(",i=");
  auto salt = *base64_decode(server_first.substr(s_at, i_at - s_at));
  auto salted = scram_hi(m, password, salt, std::stoi(server_first.substr(i_at + 3)));
  std::string without_proof = "c=biws,r=" + r;
  auto auth = client_bare + "," + server_first + "," + without_proof;
  auto client_key = scram_client_key(m, salted);
  auto signature = scram_hmac(m, scram_hash(m, client_key), auth);
  for (size_t i = 0; i < signature.size(); ++i) signature[i] ^= client_key[i];
  return without_proof + ",p=" + base64_encode(signature);
}

SaslStep token_login(const DelegationTokenStore* tokens, const std::string& id, const std::string& password) {
  ScramCredentialStore users(nullptr);
  auto server = make_scram_server(ScramMechanism::kSha512, users, tokens);
  const std::string bare = "n=" + id + ",r=nonce123,tokenauth=true";
  auto first = server->step("n,," + bare);
  if (first.outcome != SaslStep::Outcome::kChallenge) return first;
  return server->step(client_final(ScramMechanism::kSha512, password, bare, first.token));
}

}  // namespace

TEST_CASE("delegation tokens: a SCRAM login with a token", "[sasl][tokens]") {
  DelegationTokenStore store(nullptr, options());
  auto t = store.create("User:alice", "User:admin", {}, -1, wall_clock_ms());
  REQUIRE(t);
  const std::string password = base64_encode(t->hmac);
  auto ok = token_login(&store, t->info.token_id, password);
  REQUIRE(ok.outcome == SaslStep::Outcome::kComplete);
  CHECK(ok.user == "alice");
  CHECK(ok.token_authenticated);
  CHECK(ok.expires_at_ms == t->info.expiry_ms);
  CHECK(token_login(&store, t->info.token_id, "wrong").outcome == SaslStep::Outcome::kFailed);
  auto unknown = token_login(&store, "no-such-token", password);
  CHECK(unknown.outcome == SaslStep::Outcome::kFailed);
  CHECK(unknown.log_detail.find("Invalid tokenId") != std::string::npos);
  CHECK(token_login(nullptr, t->info.token_id, password).outcome == SaslStep::Outcome::kFailed);
  REQUIRE(store.expire(t->hmac, "User:alice", 0, wall_clock_ms()));  // expires now
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(token_login(&store, t->info.token_id, password).outcome == SaslStep::Outcome::kFailed);
}
