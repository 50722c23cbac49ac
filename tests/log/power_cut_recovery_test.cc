// Recovery after a power cut that kept a rolled segment's name but not the
// previous segment's unflushed tail (issue 57; the roll flushes the old
// segment later, in the background): the log ends where its records end,
// never with a gap of offsets that no segment holds; a compacted log keeps
// a gap before records (the cleaner makes such gaps).
#include <unistd.h>

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace {

struct LostTail {
  TempDir dir;
  std::vector<std::vector<uint8_t>> written;

  // 8 batches of 3 records in segment 0, a roll at 24, `later` batches after
  // it; then the cut: segment 0 keeps its first 5 batches only.
  void cut(const std::shared_ptr<const LogConfig>& cfg, int later) {
    {
      auto log = open_log(dir.path(), cfg);
      for (int i = 0; i < 8 + later; ++i) {
        auto b = make_test_batch(3, 1000, 100 + i, static_cast<uint64_t>(i));
        REQUIRE(log->append(b).has_value());
        written.push_back(b);
        if (i == 7) REQUIRE(log->roll(1000));
      }
      REQUIRE(log->segment_count() == 2);
    }
    off_t kept = 0;
    for (int i = 0; i < 5; ++i) kept += static_cast<off_t>(written[static_cast<size_t>(i)].size());
    REQUIRE(::truncate((dir.path() / "00000000000000000000.log").c_str(), kept) == 0);
  }
};

}  // namespace

TEST_CASE("power cut: a lost tail before an empty newer segment ends the log there", "[log][recovery][powercut]") {
  LostTail f;
  auto cfg = config_with([](LogConfig& c) { c.segment_bytes = 1 << 20; });
  f.cut(cfg, 0);
  auto log = open_log(f.dir.path(), cfg);  // unclean, no recovery point
  CHECK(log->log_end_offset().value == 15);
  CHECK(log->segment_count() == 1);
  auto got = read_all_batches(*log);
  REQUIRE(got.size() == 5);
  for (size_t i = 0; i < 5; ++i) CHECK(got[i] == f.written[i]);
  // Appends go on from there, contiguous.
  auto b = make_test_batch(1, 10, 500, 77);
  auto r = log->append(b);
  REQUIRE(r.has_value());
  CHECK(r->base_offset.value == 15);
}

TEST_CASE("power cut: records past a lost tail are dropped with it", "[log][recovery][powercut]") {
  LostTail f;
  auto cfg = config_with([](LogConfig& c) { c.segment_bytes = 1 << 20; });
  f.cut(cfg, 2);  // the newer segment's records reached the disk (writeback), the older tail did not
  auto log = open_log(f.dir.path(), cfg);
  CHECK(log->log_end_offset().value == 15);
  CHECK(log->segment_count() == 1);
  CHECK(read_all_batches(*log).size() == 5);
}

TEST_CASE("power cut: a compacted log keeps a gap before records", "[log][recovery][powercut]") {
  LostTail f;
  auto cfg = config_with([](LogConfig& c) {
    c.segment_bytes = 1 << 20;
    c.compact = true;
  });
  f.cut(cfg, 2);
  auto log = open_log(f.dir.path(), cfg);
  CHECK(log->log_end_offset().value == 30);
  CHECK(log->segment_count() == 2);
  CHECK(read_all_batches(*log).size() == 7);
}

TEST_CASE("power cut: a compacted log ends at its records too", "[log][recovery][powercut]") {
  LostTail f;
  auto cfg = config_with([](LogConfig& c) {
    c.segment_bytes = 1 << 20;
    c.compact = true;
  });
  f.cut(cfg, 0);
  auto log = open_log(f.dir.path(), cfg);
  CHECK(log->log_end_offset().value == 15);
  CHECK(log->segment_count() == 1);
}

TEST_CASE("power cut: a clean shutdown or a recovery point past the segment skips the check",
          "[log][recovery][powercut]") {
  LostTail f;
  auto cfg = config_with([](LogConfig& c) { c.segment_bytes = 1 << 20; });
  f.cut(cfg, 0);
  auto log = open_log(f.dir.path(), cfg, /*clean=*/false, /*recovery_point=*/24);
  CHECK(log->log_end_offset().value == 24);  // a segment below the recovery point is not scanned
}
