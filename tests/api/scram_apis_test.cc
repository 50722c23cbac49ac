// KIP-554's DescribeUserScramCredentials and AlterUserScramCredentials
// in-process: Kafka 4.4's results and errors, the credentials kept across a
// restart, and CLUSTER_AUTHORIZATION_FAILED without DESCRIBE/ALTER on the cluster.
#include "protocol/generated/alter_user_scram_credentials_request.h"
#include "protocol/generated/alter_user_scram_credentials_response.h"
#include "protocol/generated/describe_user_scram_credentials_request.h"
#include "protocol/generated/describe_user_scram_credentials_response.h"
#include "security/sasl/scram.h"
#include "tests/api/api_harness.h"

using namespace skiff;
using namespace skiff::protocol;

namespace {

using Upsertion = AlterUserScramCredentialsRequest::ScramCredentialUpsertion;
using Deletion = AlterUserScramCredentialsRequest::ScramCredentialDeletion;

Upsertion upsertion(std::string name, int8_t mechanism = 2, int32_t iterations = 8192) {
  Upsertion u;
  u.name = std::move(name);
  u.mechanism = mechanism;
  u.iterations = iterations;
  u.salt = {1, 2, 3, 4};
  u.salted_password = std::vector<uint8_t>(64, 7);
  return u;
}

Deletion deletion(std::string name, int8_t mechanism = 2) {
  Deletion d;
  d.name = std::move(name);
  d.mechanism = mechanism;
  return d;
}

// user -> error code, from one AlterUserScramCredentials call.
std::map<std::string, int16_t> alter(test::ApiHarness& h, std::vector<Upsertion> ups, std::vector<Deletion> dels = {}) {
  AlterUserScramCredentialsRequest req;
  req.upsertions = std::move(ups);
  req.deletions = std::move(dels);
  auto resp = h.call<AlterUserScramCredentialsResponse>(req, 0);
  std::map<std::string, int16_t> out;
  for (const auto& r : resp.results) CHECK(out.emplace(r.user, r.error_code).second);
  return out;
}

DescribeUserScramCredentialsResponse describe(test::ApiHarness& h, std::optional<std::vector<std::string>> users) {
  DescribeUserScramCredentialsRequest req;
  if (!users)
    req.users = std::nullopt;
  else
    for (auto& u : *users) req.users->emplace_back().name = u;
  return h.call<DescribeUserScramCredentialsResponse>(req, 0);
}

}  // namespace

TEST_CASE("AlterUserScramCredentials then DescribeUserScramCredentials, kept across a restart", "[api][scram]") {
  test::ApiHarness h;
  CHECK(describe(h, std::nullopt).results.empty());
  auto altered = alter(h, {upsertion("alice"), upsertion("alice2", 1, 4096)});
  CHECK(altered == std::map<std::string, int16_t>{{"alice", 0}, {"alice2", 0}});
  h.restart();
  auto all = describe(h, std::nullopt);
  REQUIRE(all.results.size() == 2);
  CHECK(all.error_code == 0);
  CHECK(all.results[0].user == "alice");
  REQUIRE(all.results[0].credential_infos.size() == 1);
  CHECK(all.results[0].credential_infos[0].mechanism == 2);
  CHECK(all.results[0].credential_infos[0].iterations == 8192);

  auto named = describe(h, std::vector<std::string>{"alice", "bob", "alice2", "alice2"});
  REQUIRE(named.results.size() == 3);
  CHECK(named.results[0].error_code == 0);
  CHECK(named.results[1].user == "bob");
  CHECK(named.results[1].error_code == 91);  // RESOURCE_NOT_FOUND
  CHECK(named.results[1].error_message == "Attempt to describe a user credential that does not exist: bob");
  CHECK(named.results[2].error_code == 92);  // DUPLICATE_RESOURCE

  CHECK(alter(h, {}, {deletion("alice"), deletion("bob")}) ==
        std::map<std::string, int16_t>{{"alice", 0}, {"bob", 91}});
  h.restart();
  CHECK(describe(h, std::vector<std::string>{"alice"}).results[0].error_code == 91);
}

TEST_CASE("AlterUserScramCredentials: Kafka's validation, per user", "[api][scram]") {
  test::ApiHarness h;
  REQUIRE(alter(h, {upsertion("dup")})["dup"] == 0);
  Upsertion no_salt = upsertion("s");
  no_salt.salt.clear();
  auto r = alter(
      h,
      {upsertion("", 2), upsertion("m", 0), upsertion("m3", 3), upsertion("few", 2, 4095), upsertion("many", 2, 16385),
       no_salt, upsertion("twice"), upsertion("twice", 1), upsertion("ok"), upsertion("dup")},
      {deletion("dup"), deletion("gone"), deletion("gone")});
  CHECK(r[""] == 93);   // UNACCEPTABLE_CREDENTIAL: empty name
  CHECK(r["m"] == 33);  // UNSUPPORTED_SASL_MECHANISM
  CHECK(r["m3"] == 33);
  CHECK(r["few"] == 93);
  CHECK(r["many"] == 93);
  CHECK(r["s"] == 93);
  CHECK(r["twice"] == 92);  // DUPLICATE_RESOURCE
  CHECK(r["dup"] == 92);    // a valid deletion, then an upsertion
  CHECK(r["gone"] == 91);   // refused at first sight: the second is not looked at (as Kafka)
  CHECK(r["ok"] == 0);
  auto all = describe(h, std::nullopt);
  REQUIRE(all.results.size() == 2);  // "dup" untouched
  CHECK(all.results[0].user == "dup");
  CHECK(all.results[1].user == "ok");
}

TEST_CASE("SCRAM credential APIs need DESCRIBE / ALTER on the cluster", "[api][scram][acl]") {
  test::ApiHarness h(
      {"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer", "super.users=User:admin"});
  h.set_principal("User:mallory");
  auto r = alter(h, {upsertion("b"), upsertion("a")});
  CHECK(r == std::map<std::string, int16_t>{{"a", 31}, {"b", 31}});
  auto d = describe(h, std::vector<std::string>{"a"});
  CHECK(d.error_code == 31);
  CHECK(d.error_message == "Cluster authorization failed.");
  REQUIRE(d.results.size() == 1);
  CHECK(d.results[0].error_code == 31);
  h.set_principal("User:admin");
  CHECK(alter(h, {upsertion("a")})["a"] == 0);
  CHECK(describe(h, std::vector<std::string>{"a"}).results[0].error_code == 0);
}

TEST_CASE("scram.bootstrap.users creates the first user at startup", "[api][scram]") {
  test::ApiHarness h({"scram.bootstrap.users=SCRAM-SHA-512=[name=admin,password=admin-secret]"});
  auto d = describe(h, std::nullopt);
  REQUIRE(d.results.size() == 1);
  CHECK(d.results[0].user == "admin");
  CHECK(d.results[0].credential_infos[0].iterations == 4096);
}
