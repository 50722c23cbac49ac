// ScramCredentialStore (security/sasl/scram_store.h): the round trip through
// the metadata store (an owner-only file), corrupt credentials refused at
// load, a failed write that changes nothing, a write killed half-way that
// leaves the old file, and the startup bootstrap users
// (scram.bootstrap.users: parsing, created once, never overwritten).
#include "security/sasl/scram_store.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "config/config_def.h"
#include "metadata/metadata_store.h"
#include "security/sasl/scram_bootstrap.h"
#include "tests/support/metadata_store.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::sasl;

namespace {

ScramCredential credential(ScramMechanism m, std::string_view password, int32_t iterations = 4096) {
  return make_credential(m, password, iterations, random_bytes(16));
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

TEST_CASE("SCRAM store: apply, describe, and the file read back", "[sasl][scram]") {
  test::TempDir dir;
  auto meta = test::open_metadata(dir.path());
  auto& ns = meta->ns(metadata::kScramCredentials);
  auto file = ns.file();
  ScramCredentialStore store(&ns);
  store.load();  // no file yet: empty
  CHECK(store.describe().empty());
  auto alice = credential(ScramMechanism::kSha512, "a", 8192);
  REQUIRE(store.apply({{"alice", ScramMechanism::kSha512, alice},
                       {"alice", ScramMechanism::kSha256, credential(ScramMechanism::kSha256, "a")},
                       {"bob", ScramMechanism::kSha256, credential(ScramMechanism::kSha256, "b")}}) == 0);
  REQUIRE(store.apply({{"bob", ScramMechanism::kSha256, std::nullopt}, {"nobody", ScramMechanism::kSha256, {}}}) == 0);
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);  // secrets: owner-only
  auto reopened = test::open_metadata(dir.path());
  ScramCredentialStore again(&reopened->ns(metadata::kScramCredentials));
  again.load();
  CHECK(again.lookup("alice", ScramMechanism::kSha512) == alice);
  CHECK_FALSE(again.lookup("bob", ScramMechanism::kSha256));
  auto all = again.describe();
  REQUIRE(all.size() == 1);
  REQUIRE(all["alice"].size() == 2);
  CHECK(all["alice"][0].mechanism == ScramMechanism::kSha256);
  CHECK(all["alice"][1].iterations == 8192);
  CHECK(again.describe(std::vector<std::string>{"bob", "alice", "alice"}).size() == 1);
}

TEST_CASE("SCRAM store: corrupt credentials are refused at load", "[sasl][scram]") {
  test::TempDir dir;
  auto meta = test::open_metadata(dir.path());
  auto& ns = meta->ns(metadata::kScramCredentials);
  auto file = ns.file();
  ScramCredentialStore store(&ns);
  REQUIRE(store.apply({{"alice", ScramMechanism::kSha256, credential(ScramMechanism::kSha256, "a")}}) == 0);
  const std::string good = read(file);
  for (size_t at : {size_t{0}, size_t{9}, good.size() / 2, good.size() - 1}) {
    auto bad = good;
    bad[at] ^= 0x20;
    write(file, bad);
    INFO(at);
    CHECK_THROWS_WITH(ScramCredentialStore(&ns).load(), Catch::Contains(file.string() + " is corrupt"));
  }
  write(file, good.substr(0, good.size() - 5));
  CHECK_THROWS_AS(ScramCredentialStore(&ns).load(), metadata::Failure);
  // A valid CRC over a record the layout forbids (a key of the wrong size).
  ScramCredentialStore::Map odd{{{"x", ScramMechanism::kSha512}, credential(ScramMechanism::kSha256, "x")}};
  CHECK_THROWS_AS(ScramCredentialStore::decode(ScramCredentialStore::encode(odd)), std::runtime_error);
  REQUIRE(ns.write(ScramCredentialStore::encode(odd)));
  CHECK_THROWS_WITH(ScramCredentialStore(&ns).load(),
                    Catch::Contains(file.string() + " is corrupt: invalid SCRAM-SHA-512 credential for user 'x'"));
  write(file, good);
  CHECK_NOTHROW(ScramCredentialStore(&ns).load());
}

TEST_CASE("SCRAM store: a failed or killed write leaves the credentials as they were", "[sasl][scram]") {
  test::TempDir dir;
  auto meta = test::open_metadata(dir.path());
  auto& ns = meta->ns(metadata::kScramCredentials);
  auto file = ns.file();
  ScramCredentialStore store(&ns);
  auto alice = credential(ScramMechanism::kSha256, "a");
  REQUIRE(store.apply({{"alice", ScramMechanism::kSha256, alice}}) == 0);
  const std::string before = read(file);
  // A write killed before its rename leaves only a temporary file behind.
  write(file.string() + ".tmp", "half a file");
  auto after_crash = test::open_metadata(dir.path());
  ScramCredentialStore reopened(&after_crash->ns(metadata::kScramCredentials));
  reopened.load();
  CHECK(reopened.lookup("alice", ScramMechanism::kSha256) == alice);
  CHECK_FALSE(std::filesystem::exists(file.string() + ".tmp"));
  // A failed write (the directory gone; root writes anywhere, so not chmod).
  std::filesystem::rename(meta->dir(), dir.path() / "moved");
  CHECK(store.apply({{"alice", ScramMechanism::kSha256, std::nullopt}}) == ENOENT);
  std::filesystem::rename(dir.path() / "moved", meta->dir());
  CHECK(store.lookup("alice", ScramMechanism::kSha256) == alice);
  CHECK(read(file) == before);
}

TEST_CASE("scram.bootstrap.users: kafka-storage's --add-scram form", "[sasl][scram][config]") {
  auto users = config::parse_scram_bootstrap_users(
      "SCRAM-SHA-512=[name=admin,password=admin-secret]; SCRAM-SHA-256=[name=alice,password=\"x\",iterations=8192];");
  REQUIRE(users.size() == 2);
  CHECK(users[0].mechanism == "SCRAM-SHA-512");
  CHECK(users[0].name == "admin");
  CHECK(users[0].password == "admin-secret");
  CHECK(users[0].iterations == 0);
  CHECK(users[1].password == "x");
  CHECK(users[1].iterations == 8192);
  CHECK(config::parse_scram_bootstrap_users("").empty());
  for (std::string bad :
       {"SCRAM-SHA-1=[name=a,password=p]", "SCRAM-SHA-512", "SCRAM-SHA-512=name=a,password=p",
        "SCRAM-SHA-512=[password=p]", "SCRAM-SHA-512=[name=a]", "SCRAM-SHA-512=[name=a,password=p,x=1]",
        "SCRAM-SHA-512=[name=a,password=p,iterations=100]", "SCRAM-SHA-512=[name=a,password]",
        "SCRAM-SHA-512=[name=a,password=p];SCRAM-SHA-512=[name=a,password=q]"}) {
    INFO(bad);
    try {
      config::parse_scram_bootstrap_users(bad);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find("=p") == std::string::npos);  // never the password
    }
  }
}

TEST_CASE("scram.bootstrap.users: created when missing, never overwritten", "[sasl][scram]") {
  test::TempDir dir;
  auto meta = test::open_metadata(dir.path());
  ScramCredentialStore store(&meta->ns(metadata::kScramCredentials));
  std::vector<config::ScramBootstrapUser> users{{"SCRAM-SHA-512", "admin", "first", 0},
                                                {"SCRAM-SHA-256", "admin", "first", 8192}};
  CHECK(add_bootstrap_users(store, users) == 2);
  auto admin = *store.lookup("admin", ScramMechanism::kSha512);
  CHECK(admin.iterations == 4096);
  CHECK(make_credential(ScramMechanism::kSha512, "first", 4096, admin.salt) == admin);
  users[0].password = "second";
  CHECK(add_bootstrap_users(store, users) == 0);
  CHECK(store.lookup("admin", ScramMechanism::kSha512) == admin);
}
