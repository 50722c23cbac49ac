// Restart after an unclean stop: what recovery reads. After a process crash
// on the same boot (LogLoadParams::same_boot) only the last segment's tail
// after its last index entry that checks out; otherwise the segments from
// the recovery point on, whole, and none before it.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "log/boot_marker.h"
#include "log/log_manager.h"
#include "test_util.h"

using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

namespace {

struct RestartFixture {
  TempDir dir;
  std::shared_ptr<const LogConfig> cfg = config_with([](LogConfig& c) {
    c.segment_bytes = 200000;
    c.index_interval_bytes = 1000;
  });
  std::vector<std::vector<uint8_t>> written;

  // Appends `n` batches of 3 records and drops the Log without close().
  void fill(int n, int value_bytes = 1000) {
    auto log = open_log(dir.path(), cfg);
    for (int i = 0; i < n; ++i) {
      auto b = make_test_batch(3, value_bytes, 100 + i, static_cast<uint64_t>(written.size()));
      REQUIRE(log->append(b).has_value());
      written.push_back(b);
    }
  }
  std::shared_ptr<Log> reopen(bool same_boot, int64_t recovery_point = 0) {
    LogLoadParams p;
    p.topic = "t";
    p.recovery_point = recovery_point;
    p.same_boot = same_boot;
    return Log::open(dir.path(), p, cfg);
  }
  std::vector<fs::path> files(const std::string& ext) const {
    std::vector<fs::path> v;
    for (auto& e : fs::directory_iterator(dir.path()))
      if (e.path().extension() == ext) v.push_back(e.path());
    std::sort(v.begin(), v.end());
    return v;
  }
  // Every offset is found through the index and every batch is what was written.
  void check_prefix(Log& log, size_t n) {
    auto got = read_all_batches(log);
    REQUIRE(got.size() == n);
    for (size_t i = 0; i < n; ++i) CHECK(got[i] == written[i]);
    REQUIRE(log.log_end_offset().value == static_cast<int64_t>(n) * 3);
    for (int64_t o = 0; o < log.log_end_offset().value; o += 5) {
      auto r = log.read(Offset(o), 1);
      REQUIRE(r.has_value());
      auto bytes = r->slice.read_all();
      RecordBatchView v(bytes);
      CHECK(v.base_offset() <= o);
      CHECK(v.last_offset() >= o);
    }
  }
};

void flip_byte_at(const fs::path& p, uint64_t pos) {
  int fd = ::open(p.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  uint8_t b;
  REQUIRE(::pread(fd, &b, 1, static_cast<off_t>(pos)) == 1);
  b ^= 0x5A;
  REQUIRE(::pwrite(fd, &b, 1, static_cast<off_t>(pos)) == 1);
  ::close(fd);
}

}  // namespace

TEST_CASE("restart recovery: same boot scans only the tail of the last segment", "[log][restart]") {
  RestartFixture f;
  f.fill(150);
  REQUIRE(f.files(".log").size() >= 3);
  const auto last_size = fs::file_size(f.files(".log").back());
  auto log = f.reopen(/*same_boot=*/true);
  const auto& st = log->load_stats();
  CHECK(st.segments_recovered == 1);
  CHECK(st.segments_tail_recovered == 1);
  CHECK(st.bytes_truncated == 0);
  CHECK(st.bytes_scanned > 0);
  CHECK(st.bytes_scanned < 8000);  // about two batches
  CHECK(last_size > 60000);
  f.check_prefix(*log, 150);
}

TEST_CASE("restart recovery: another boot scans every segment past the recovery point", "[log][restart]") {
  RestartFixture f;
  f.fill(150);
  uint64_t total = 0;
  for (auto& p : f.files(".log")) total += fs::file_size(p);
  auto log = f.reopen(/*same_boot=*/false);
  CHECK(log->load_stats().segments_recovered == static_cast<int>(log->segment_count()));
  CHECK(log->load_stats().segments_tail_recovered == 0);
  CHECK(log->load_stats().bytes_scanned == total);
  f.check_prefix(*log, 150);
}

TEST_CASE("restart recovery: same boot cuts a torn tail and appends after it", "[log][restart]") {
  RestartFixture f;
  f.fill(150);
  auto last = f.files(".log").back();
  SECTION("cut inside the last batch") { fs::resize_file(last, fs::file_size(last) - 500); }
  SECTION("a flipped byte in the last batch") { flip_byte_at(last, fs::file_size(last) - 100); }
  {
    auto log = f.reopen(/*same_boot=*/true);
    CHECK(log->load_stats().segments_tail_recovered == 1);
    CHECK(log->load_stats().bytes_truncated > 0);
    f.written.pop_back();
    f.check_prefix(*log, 149);
    auto b = make_test_batch(1, 10, 500, 777);
    auto r = log->append(b);
    REQUIRE(r.has_value());
    CHECK(r->base_offset.value == int64_t{149} * 3);
    log->close();
  }
  auto log = f.reopen(/*same_boot=*/false);  // clean files: nothing is rebuilt or cut
  CHECK(log->load_stats().bytes_truncated == 0);
  CHECK(log->log_end_offset().value == int64_t{149} * 3 + 1);
}

TEST_CASE("restart recovery: torn tail past several index entries, appends, then another crash", "[log][restart]") {
  RestartFixture f;
  f.fill(150);
  auto last = f.files(".log").back();
  fs::resize_file(last, fs::file_size(last) - 20000);  // entries past the new end stay in the .index
  {
    auto log = f.reopen(/*same_boot=*/true);
    CHECK(log->load_stats().segments_tail_recovered == 1);
    const auto kept = static_cast<size_t>(log->log_end_offset().value / 3);
    REQUIRE(kept < 150);
    f.written.resize(kept);
    f.check_prefix(*log, kept);
  }
  // Smaller batches than before over the region the stale entries described.
  f.fill(40, 300);
  auto log = f.reopen(/*same_boot=*/true);
  CHECK(log->load_stats().bytes_truncated == 0);
  f.check_prefix(*log, f.written.size());
}

TEST_CASE("restart recovery: same boot with an index that does not check out scans the whole segment",
          "[log][restart]") {
  RestartFixture f;
  f.fill(150);
  auto last = f.files(".log").back();
  auto idx = f.files(".index").back();
  {
    std::ofstream out(idx, std::ios::binary | std::ios::trunc);
    std::vector<char> junk(4000, 0x11);  // increasing nowhere, pointing anywhere
    out.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  auto log = f.reopen(/*same_boot=*/true);
  CHECK(log->load_stats().segments_recovered == 1);
  CHECK(log->load_stats().segments_tail_recovered == 0);
  CHECK(log->load_stats().bytes_scanned == fs::file_size(last));
  f.check_prefix(*log, 150);
}

TEST_CASE("restart recovery: a segment before the recovery point is not scanned, one past it is", "[log][restart]") {
  RestartFixture f;
  f.fill(150);
  auto logs = f.files(".log");
  REQUIRE(logs.size() >= 3);
  const auto last_size = fs::file_size(logs.back());
  flip_byte_at(logs.front(), 300);             // would truncate the log there if it were scanned
  flip_byte_at(logs.back(), last_size - 100);  // corrupt tail past the recovery point
  const int64_t last_base = std::stoll(logs.back().stem().string());
  auto log = f.reopen(/*same_boot=*/false, /*recovery_point=*/last_base);
  CHECK(log->load_stats().segments_recovered == 1);
  CHECK(log->load_stats().bytes_scanned == last_size);
  CHECK(log->load_stats().bytes_truncated > 0);
  CHECK(log->log_end_offset().value == int64_t{149} * 3);
}

TEST_CASE("restart recovery: same boot trusts a rolled segment, another boot checks it", "[log][restart]") {
  RestartFixture f;
  f.fill(150);
  flip_byte_at(f.files(".log").front(), 300);
  {
    auto log = f.reopen(/*same_boot=*/true);
    CHECK(log->log_end_offset().value == 450);  // the page cache had it whole: not read
  }
  auto log = f.reopen(/*same_boot=*/false);
  CHECK(log->log_end_offset().value == 0);  // after a power cut it is read, and cut
}

TEST_CASE("restart recovery: the boot marker names the boot that loaded the dir", "[log][restart]") {
  TempDir d;
  const std::string boot = current_boot_id();
  CHECK_FALSE(marked_on_boot(d.path(), boot));
  CHECK_FALSE(marked_on_boot(d.path(), ""));
  mark_boot(d.path(), "some-other-boot");
  CHECK_FALSE(marked_on_boot(d.path(), boot));
  if (boot.empty()) return;  // no /proc: never the same boot
  LogManagerConfig c;
  c.log_dirs = {d.path() / "logs"};
  c.defaults.message_timestamp_after_max_ms = LogConfig::kMaxLong;
  {
    LogManager mgr(c);
    CHECK(marked_on_boot(c.log_dirs[0], boot));
  }
  CHECK(marked_on_boot(c.log_dirs[0], boot));
}
