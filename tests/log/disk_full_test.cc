// Disk full: on a small tmpfs, appends fail with KAFKA_STORAGE_ERROR, the log
// stays consistent, and appends succeed again once space is freed. Needs
// root (CAP_SYS_ADMIN) for the mount: skipped without, failed under CI=true.
#include <sys/mount.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "test_util.h"
#include "tests/support/skip.h"

using namespace skiff::storage;
using namespace skiff::storage::test;
namespace fs = std::filesystem;

TEST_CASE("disk full: appends fail cleanly, then succeed after freeing space", "[log][diskfull]") {
  TempDir dir;
  auto mnt = dir / "tmpfs";
  fs::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=2m") != 0)
    SKIFF_SKIP_OR_FAIL_IN_CI(std::string("cannot mount a tmpfs (") + std::strerror(errno) +
                             "); needs root / CAP_SYS_ADMIN");
  struct Unmount {
    fs::path p;
    ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
  } unmount{mnt};

  {  // ballast to free later
    std::ofstream ballast(mnt / "ballast", std::ios::binary);
    std::string chunk(64 * 1024, 'x');
    for (int i = 0; i < 8; ++i) ballast.write(chunk.data(), chunk.size());
  }
  auto cfg = config_with([](LogConfig& c) {
    c.segment_index_bytes = 64 * 1024;
    c.segment_bytes = 100 * 1024 * 1024;
  });
  auto log = open_log(mnt / "t-0", cfg);
  int ok = 0;
  LogErrc last = LogErrc::kNone;
  for (int i = 0; i < 1000; ++i) {
    auto b = make_test_batch(4, 4000, 1000 + i, static_cast<uint64_t>(i));
    auto r = log->append(b);
    if (!r.has_value()) {
      last = outcome(r);
      break;
    }
    ++ok;
  }
  REQUIRE(last == LogErrc::kStorageError);
  REQUIRE(ok > 10);
  // Consistent: exactly the acknowledged batches, file size matches.
  CHECK(log->log_end_offset().value == ok * 4);
  auto batches = read_all_batches(*log);
  CHECK(batches.size() == static_cast<size_t>(ok));
  CHECK(fs::file_size(mnt / "t-0" / segment_file_name(0, ".log")) == log->size_in_bytes());
  // Still failing while full.
  auto again = make_test_batch(4, 4000, 5000, 5000);
  CHECK(outcome(log->append(again)) == LogErrc::kStorageError);
  // Free space, and appends succeed again.
  fs::remove(mnt / "ballast");
  for (int i = 0; i < 5; ++i) {
    auto b = make_test_batch(4, 4000, 6000 + i, 6000 + static_cast<uint64_t>(i));
    auto r = log->append(b);
    REQUIRE(r.has_value());
    CHECK(r->base_offset.value == static_cast<int64_t>(ok + i) * 4);
  }
  CHECK(read_all_batches(*log).size() == static_cast<size_t>(ok + 5));
  // And a reopen after an unclean stop finds a valid log.
  log.reset();
  auto reopened = open_log(mnt / "t-0", cfg);
  CHECK(reopened->log_end_offset().value == (ok + 5) * 4);
  CHECK(reopened->load_stats().bytes_truncated == 0);
}
