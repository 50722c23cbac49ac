// The MetadataStore (metadata/metadata_store.h): records round-trip, a
// leftover temp file is removed on open, a bad CRC, a foreign namespace and a
// newer version are refused with a message naming the file, an older
// version is handed to the owner, a write replaces the file only after the
// temp file is synced and syncs the directory after the rename, a failed
// write changes nothing and is logged under "storage" with strerror text.
#include "metadata/metadata_store.h"

#include <spdlog/sinks/ostream_sink.h>
#include <sys/stat.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/subsystem_logger.h"
#include "log/file_util.h"
#include "tests/support/metadata_store.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::metadata;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::string out;
  REQUIRE(storage::read_small_file(p, out));
  return out;
}

void spit(const fs::path& p, std::string_view bytes) { std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes; }

const std::vector<std::string> kRecords = {"first", std::string("\0\x01\xff", 3), "", std::string(1000, 'x')};

}  // namespace

TEST_CASE("records round-trip through a namespace file", "[metadata]") {
  test::TempDir d;
  {
    auto store = test::open_metadata(d.path());
    auto absent = store->ns(kAcls).read();
    REQUIRE(absent);
    CHECK_FALSE(absent->found);
    CHECK(absent->version == kAcls.version);
    CHECK(absent->records.empty());
    REQUIRE(store->ns(kAcls).write(kRecords));
    CHECK(&store->ns(kAcls) == &store->ns(kAcls));
  }
  CHECK(fs::exists(d / "skiff-metadata" / "acls"));
  auto store = test::open_metadata(d.path());
  auto back = store->ns(kAcls).read();
  REQUIRE(back);
  CHECK(back->found);
  CHECK(back->version == kAcls.version);
  CHECK(back->records == kRecords);
  REQUIRE(store->ns(kAcls).write({}));
  CHECK(store->ns(kAcls).read()->records.empty());
  CHECK_FALSE(store->ns(kClientQuotas).read()->found);  // namespaces are separate files
}

TEST_CASE("a leftover temp file of a cut write is removed on open and never read", "[metadata]") {
  test::TempDir d;
  REQUIRE(test::open_metadata(d.path())->ns(kAcls).write(kRecords));
  const auto dir = d / "skiff-metadata";
  auto torn = MetadataStore::encode(kAcls, {"newer", "but", "torn"});
  spit(dir / "acls.tmp", torn.substr(0, torn.size() / 2));
  spit(dir / "group-configs.tmp", "garbage");  // a namespace whose first write was cut
  auto store = test::open_metadata(d.path());
  CHECK_FALSE(fs::exists(dir / "acls.tmp"));
  CHECK_FALSE(fs::exists(dir / "group-configs.tmp"));
  CHECK(store->ns(kAcls).read()->records == kRecords);
  CHECK_FALSE(store->ns(kGroupConfigs).read()->found);
}

TEST_CASE("a corrupt file is an error naming the file", "[metadata]") {
  test::TempDir d;
  auto store = test::open_metadata(d.path());
  auto& ns = store->ns(kClientQuotas);
  REQUIRE(ns.write(kRecords));
  const auto good = slurp(ns.file());
  auto fails_with = [&](std::string_view bytes, std::string_view why) {
    spit(ns.file(), bytes);
    auto r = ns.read();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains(ns.file().string() + " is corrupt") && Catch::Contains(why.data()));
  };
  std::string flipped = good;
  flipped[20] ^= 0x40;
  fails_with(flipped, "CRC mismatch");
  fails_with(good.substr(0, good.size() - 1), "CRC mismatch");
  fails_with(good.substr(0, 9), "bad magic");
  fails_with("", "bad magic");
  // A file of another namespace under this name.
  fails_with(MetadataStore::encode(kAcls, kRecords), "holds namespace 'acls'");
}

TEST_CASE("a newer version is refused, an older one handed to the owner", "[metadata]") {
  test::TempDir d;
  auto store = test::open_metadata(d.path());
  auto& ns = store->ns(kGroupConfigs);
  NamespaceDef newer = kGroupConfigs;
  newer.version = static_cast<int16_t>(kGroupConfigs.version + 1);
  spit(ns.file(), MetadataStore::encode(newer, kRecords));
  auto r = ns.read();
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains(ns.file().string()) && Catch::Contains("has version 2") &&
                                    Catch::Contains("newer than the version 1 this broker knows"));
  CHECK_THROWS_AS(value_or_throw(ns.read()), Failure);

  // The same file read by a binary that knows version 2: version 1 records to upgrade.
  spit(ns.file(), MetadataStore::encode(kGroupConfigs, kRecords));
  test::TempDir d2;
  auto later = test::open_metadata(d2.path());
  fs::copy_file(ns.file(), later->dir() / "group-configs");
  auto old = later->ns(newer).read();
  REQUIRE(old);
  CHECK(old->version == 1);
  CHECK(old->records == kRecords);
  REQUIRE(later->ns(newer).write(old->records));  // the owner writes back at its version
  CHECK(later->ns(newer).read()->version == 2);
}

TEST_CASE("a write syncs the temp file, renames it over, then syncs the directory", "[metadata]") {
  test::TempDir d;
  auto store = test::open_metadata(d.path());
  auto& ns = store->ns(kAcls);
  REQUIRE(ns.write({"before"}));
  fs::path tmp = ns.file();
  tmp += ".tmp";
  std::vector<WriteStep> steps;
  ns.set_step_hook([&](WriteStep s) {
    steps.push_back(s);
    auto now = MetadataStore::decode(kAcls, slurp(ns.file()));
    REQUIRE(now);
    if (s == WriteStep::kTempSynced) {  // nothing visible yet; the complete new file waits beside
      CHECK(now->records == std::vector<std::string>{"before"});
      CHECK(MetadataStore::decode(kAcls, slurp(tmp))->records == std::vector<std::string>{"after"});
    } else {
      CHECK(now->records == std::vector<std::string>{"after"});
      CHECK_FALSE(fs::exists(tmp));
    }
  });
  REQUIRE(ns.write({"after"}));
  CHECK(steps == std::vector<WriteStep>{WriteStep::kTempSynced, WriteStep::kRenamed, WriteStep::kDirSynced});
}

TEST_CASE("a failed write changes nothing and is logged with strerror text", "[metadata]") {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  sink->set_pattern("%n|%v");
  auto storage = subsystem_logger("storage");
  storage->sinks().push_back(sink);

  test::TempDir d;
  auto store = test::open_metadata(d.path());
  auto& ns = store->ns(kProducerIds);
  fs::remove_all(store->dir());
  auto r = ns.write({"x"});
  storage->sinks().pop_back();
  REQUIRE_FALSE(r);
  CHECK(r.error().sys_errno == ENOENT);
  CHECK(error_number(r.error()) == ENOENT);
  CHECK_THAT(r.error().message,
             Catch::Contains("skiff-metadata/producer-ids") && Catch::Contains("No such file or directory"));
  const std::string out = captured.str();
  INFO(out);
  CHECK(out.rfind("storage|cannot write the metadata file ", 0) == 0);
  CHECK(out.find("errno") == std::string::npos);
  CHECK_FALSE(fs::exists(store->dir()));
}

TEST_CASE("a secret namespace's file is owner-only", "[metadata]") {
  test::TempDir d;
  auto store = test::open_metadata(d.path());
  REQUIRE(store->ns(kScramCredentials).write(kRecords));
  REQUIRE(store->ns(kAcls).write(kRecords));
  struct stat st {};
  REQUIRE(::stat(store->ns(kScramCredentials).file().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat(store->ns(kAcls).file().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("writes of one namespace are serialised, of different namespaces independent", "[metadata]") {
  test::TempDir d;
  auto store = test::open_metadata(d.path());
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> failed{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&store, &failed, t] {
      auto& ns = store->ns(t % 2 == 0 ? kClientMetrics : kGroupConfigs);
      for (int i = 0; i < 25; ++i)
        if (!ns.write({std::to_string(t), std::to_string(i)})) ++failed;
    });
  for (auto& th : threads) th.join();
  CHECK(failed == 0);
  for (const auto& def : {kClientMetrics, kGroupConfigs}) {
    auto r = store->ns(def).read();
    REQUIRE(r);
    CHECK(r->records.size() == 2);
    CHECK(r->records[1] == "24");
  }
  CHECK(fs::directory_iterator(store->dir()) != fs::directory_iterator());
  for (const auto& e : fs::directory_iterator(store->dir())) CHECK(e.path().extension() != ".tmp");
}
