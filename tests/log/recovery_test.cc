#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "test_util.h"

using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  TempDir dir;
  std::shared_ptr<const LogConfig> cfg = config_with([](LogConfig& c) {
    c.segment_bytes = 30000;
    c.index_interval_bytes = 1000;
  });
  std::vector<std::vector<uint8_t>> written;

  // Writes 30 batches over a few segments and drops the Log without close().
  void fill() {
    auto log = open_log(dir.path(), cfg);
    for (int i = 0; i < 30; ++i) {
      auto b = make_test_batch(3, 1000, 100 + i, static_cast<uint64_t>(i));
      REQUIRE(log->append(b).has_value());
      written.push_back(b);
    }
  }
  fs::path last_log() const {
    fs::path last;
    for (auto& e : fs::directory_iterator(dir.path())) {
      if (e.path().extension() == ".log" && e.path() > last) last = e.path();
    }
    return last;
  }
  fs::path first_file(const std::string& ext) const {
    fs::path first;
    for (auto& e : fs::directory_iterator(dir.path())) {
      if (e.path().extension() == ext && (first.empty() || e.path() < first)) first = e.path();
    }
    return first;
  }
  void check_prefix(Log& log, size_t n) {
    auto got = read_all_batches(log);
    REQUIRE(got.size() == n);
    for (size_t i = 0; i < n; ++i) CHECK(got[i] == written[i]);
    CHECK(log.log_end_offset().value == static_cast<int64_t>(n) * 3);
  }
};

void flip_byte(const fs::path& p, uint64_t pos) {
  int fd = ::open(p.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  uint8_t b;
  REQUIRE(::pread(fd, &b, 1, static_cast<off_t>(pos)) == 1);
  b ^= 0x5A;
  REQUIRE(::pwrite(fd, &b, 1, static_cast<off_t>(pos)) == 1);
  ::close(fd);
}

}  // namespace

TEST_CASE("recovery: unclean stop with intact data loses nothing", "[log][recovery]") {
  Fixture f;
  f.fill();
  auto log = open_log(f.dir.path(), f.cfg);
  CHECK(log->load_stats().segments_recovered >= 1);
  CHECK(log->load_stats().bytes_truncated == 0);
  f.check_prefix(*log, 30);
}

TEST_CASE("recovery: tail cut mid-batch is truncated to the last whole batch", "[log][recovery]") {
  Fixture f;
  f.fill();
  auto last = f.last_log();
  auto size = fs::file_size(last);
  fs::resize_file(last, size - 500);
  auto log = open_log(f.dir.path(), f.cfg);
  CHECK(log->load_stats().bytes_truncated > 0);
  f.check_prefix(*log, 29);
  auto b = make_test_batch(1, 10, 500);
  auto r = log->append(b);
  REQUIRE(r.has_value());
  CHECK(r->base_offset.value == int64_t{29} * 3);
}

TEST_CASE("recovery: a flipped byte in the last batch drops that batch", "[log][recovery]") {
  Fixture f;
  f.fill();
  auto last = f.last_log();
  flip_byte(last, fs::file_size(last) - 100);
  auto log = open_log(f.dir.path(), f.cfg);
  f.check_prefix(*log, 29);
}

TEST_CASE("recovery: trailing zeros (preallocation) are cut", "[log][recovery]") {
  Fixture f;
  f.fill();
  auto last = f.last_log();
  fs::resize_file(last, fs::file_size(last) + 8192);
  auto log = open_log(f.dir.path(), f.cfg);
  CHECK(log->load_stats().bytes_truncated == 8192);
  f.check_prefix(*log, 30);
}

TEST_CASE("recovery: corruption in an early segment truncates there and drops later segments", "[log][recovery]") {
  Fixture f;
  f.fill();
  auto first = f.first_file(".log");
  flip_byte(first, 200);  // inside the first batch
  auto log = open_log(f.dir.path(), f.cfg);
  CHECK(log->log_end_offset().value == 0);
  CHECK(log->segment_count() == 1);
}

TEST_CASE("recovery: segments before the recovery point are not read", "[log][recovery]") {
  Fixture f;
  f.fill();
  {
    auto log = open_log(f.dir.path(), f.cfg, /*clean=*/true);  // learn the segment layout
    REQUIRE(log->segment_count() >= 3);
  }
  auto first = f.first_file(".log");
  flip_byte(first, 200);  // would be caught if it were scanned
  auto log = open_log(f.dir.path(), f.cfg, /*clean=*/false, /*recovery_point=*/10 * 3);
  CHECK(log->log_end_offset().value == 90);
  CHECK(log->load_stats().segments_recovered < static_cast<int>(log->segment_count()));
}

TEST_CASE("recovery: missing or truncated indexes are rebuilt", "[log][recovery]") {
  Fixture f;
  f.fill();
  {
    auto log = open_log(f.dir.path(), f.cfg);
    log->close();
  }
  auto idx = f.first_file(".index");
  auto tidx = f.first_file(".timeindex");
  auto good_size = fs::file_size(idx);
  REQUIRE(good_size > 0);
  SECTION("missing") { fs::remove(idx); }
  SECTION("truncated mid-entry") { fs::resize_file(idx, good_size - 3); }
  SECTION("zero-filled (preallocated, never trimmed)") { fs::resize_file(idx, good_size + 800); }
  SECTION("time index missing") { fs::remove(tidx); }
  auto log = open_log(f.dir.path(), f.cfg, /*clean=*/true);
  CHECK(log->load_stats().indexes_rebuilt >= 1);
  f.check_prefix(*log, 30);
  // Random reads use the rebuilt index.
  for (int64_t o = 0; o < 90; o += 7) {
    auto r = log->read(Offset(o), 1);
    auto bytes = r->slice.read_all();
    RecordBatchView v(bytes);
    CHECK(v.base_offset() <= o);
    CHECK(v.last_offset() >= o);
  }
  log->close();
  CHECK(fs::file_size(idx) == good_size);
}
