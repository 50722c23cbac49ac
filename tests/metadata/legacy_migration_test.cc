// The one-time migration of legacy state files (metadata/legacy_migration.h)
// over the files of tests/metadata/fixtures (today's formats, written by the
// writers that made them): each becomes its namespace's file and is removed;
// a second start changes nothing; with both files present the store's wins;
// a corrupt legacy file stops the start with its name; and a migration
// killed with SIGKILL at a random moment, many times over, always ends, on
// the next clean start, with exactly the legacy records and no legacy file.
#include "metadata/legacy_migration.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <random>

#include "common/file_fields.h"
#include "tests/metadata/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::metadata;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> records_of(MetadataStore& store, const NamespaceDef& def) {
  auto r = store.ns(def).read();
  REQUIRE(r);
  REQUIRE(r->found);
  return r->records;
}

// Every namespace holds the fixture's records and no legacy file is left.
void check_migrated(const fs::path& dir) {
  auto store = open_metadata_store(dir);
  REQUIRE(store);
  for (const auto& def : kNamespaces) {
    if (def.legacy_file.empty()) continue;  // born in the store
    INFO(def.name);
    CHECK_FALSE(fs::exists(dir / std::string(def.legacy_file)));
    CHECK(records_of(**store, def) == legacy_records(def, test::fixture_bytes(def)));
  }
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename() == "skiff-metadata");
}

}  // namespace

TEST_CASE("the legacy readers decode today's files into version-1 records", "[metadata][migration]") {
  auto count = [](const NamespaceDef& def) { return legacy_records(def, test::fixture_bytes(def)).size(); };
  CHECK(count(kAcls) == 3);
  CHECK(count(kScramCredentials) == 2);
  CHECK(count(kClientQuotas) == 5);
  CHECK(count(kClientMetrics) == 2);
  CHECK(count(kGroupConfigs) == 2);
  CHECK(count(kDynamicBrokerConfig) == 3);
  REQUIRE(count(kProducerIds) == 1);
  const auto id_records = legacy_records(kProducerIds, test::fixture_bytes(kProducerIds));  // outlives the reader
  FieldReader ids(id_records[0]);
  CHECK(ids.uint64() == 2000);
  // The records of the binary formats are the old records, unchanged.
  const auto acls = test::fixture_bytes(kAcls);
  CHECK(acls.find(legacy_records(kAcls, acls)[1]) != std::string::npos);
}

TEST_CASE("legacy files move into the store once", "[metadata][migration]") {
  test::TempDir d;
  test::copy_fixtures(d.path());
  auto store = MetadataStore::open(d.path());
  REQUIRE(store);
  auto moved = migrate_legacy_files(**store, d.path());
  REQUIRE(moved);
  CHECK(*moved == 7);
  check_migrated(d.path());
  auto again = migrate_legacy_files(**store, d.path());  // the next start
  REQUIRE(again);
  CHECK(*again == 0);
  check_migrated(d.path());
}

TEST_CASE("with both files present the store's wins and the legacy one goes", "[metadata][migration]") {
  test::TempDir d;
  {
    auto store = MetadataStore::open(d.path());
    REQUIRE(store);
    REQUIRE((*store)->ns(kAcls).write({"written after the migration"}));
  }
  test::copy_fixtures(d.path());
  fs::path tmp = d / "skiff-group-configs.tmp";  // a write of the old broker cut short
  std::ofstream(tmp) << "skiff-group-configs v1\nhalf";
  auto store = open_metadata_store(d.path());
  REQUIRE(store);
  CHECK(records_of(**store, kAcls) == std::vector<std::string>{"written after the migration"});
  CHECK_FALSE(fs::exists(d / "skiff-acls"));
  CHECK_FALSE(fs::exists(tmp));
  CHECK(records_of(**store, kGroupConfigs) == legacy_records(kGroupConfigs, test::fixture_bytes(kGroupConfigs)));
}

TEST_CASE("a corrupt legacy file stops the start, naming the file", "[metadata][migration]") {
  test::TempDir d;
  test::copy_fixtures(d.path());
  auto bytes = test::fixture_bytes(kClientQuotas);
  bytes[12] ^= 0xFF;
  std::ofstream(d / "skiff-client-quotas", std::ios::binary | std::ios::trunc) << bytes;
  std::ofstream(d / "skiff-dynamic-broker-config", std::ios::trunc) << "not the header\n";
  auto store = open_metadata_store(d.path());
  REQUIRE_FALSE(store);
  CHECK_THAT(store.error().message, Catch::Contains("the legacy state file " + (d / "skiff-client-quotas").string() +
                                                    " is corrupt: CRC mismatch"));
  CHECK(fs::exists(d / "skiff-client-quotas"));  // left for the operator
  CHECK_FALSE(fs::exists(d / "skiff-metadata" / "client-quotas"));
  CHECK_THROWS_WITH(legacy_records(kDynamicBrokerConfig, "not the header\n"), Catch::Contains("first line"));
  CHECK_THROWS_WITH(legacy_records(kGroupConfigs, "skiff-group-configs v1\ng\tk"), Catch::Contains("not complete"));
  CHECK_THROWS_WITH(legacy_records(kProducerIds, "version: 0\n"), Catch::Contains("next.block.start"));
}

// Forks a child that opens and migrates `dir`; SIGKILLs it after `delay`.
// Returns whether the child was killed before it finished.
bool migrate_and_kill(const fs::path& dir, std::chrono::microseconds delay) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto store = open_metadata_store(dir);
    ::_exit(store ? 0 : 1);
  }
  ::usleep(static_cast<useconds_t>(delay.count()));
  ::kill(child, SIGKILL);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  if (WIFEXITED(status)) REQUIRE(WEXITSTATUS(status) == 0);
  return WIFSIGNALED(status);
}

TEST_CASE("a migration killed at any point ends with exactly the legacy state", "[metadata][migration][crash]") {
  // How long one whole migration takes here: the kill delays spread over it.
  test::TempDir timing;
  test::copy_fixtures(timing.path());
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(open_metadata_store(timing.path()));
  const auto full = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int64_t> delay(0, std::max<int64_t>(full.count() * 3 / 2, 200));
  int cut = 0, partial = 0;
  constexpr int kRounds = 100;
  for (int round = 0; round < kRounds; ++round) {
    test::TempDir d;
    test::copy_fixtures(d.path());
    if (migrate_and_kill(d.path(), std::chrono::microseconds(delay(rng)))) ++cut;
    int left = 0;
    for (const auto& def : kNamespaces)
      left += !def.legacy_file.empty() && fs::exists(d / std::string(def.legacy_file));
    if (left > 0 && left < 7) ++partial;  // 7 legacy files
    check_migrated(d.path());
  }
  INFO("full migration " << full.count() << " us; " << cut << " kills, " << partial << " mid-way");
  CHECK(cut > 0);
  CHECK(partial > 0);
  WARN(cut << " of " << kRounds << " migrations killed, " << partial << " with some legacy files moved");
}
