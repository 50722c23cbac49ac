// preallocate (Kafka's topic config, log.preallocate for the broker): a new
// segment's blocks are allocated up front without changing its size, and
// given back when it rolls or the log closes; a crash leaves nothing a
// reader or recovery can see. A file system that cannot preallocate skips
// the tests of blocks (a failure under CI=true, whose disk can).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <string>

#include "test_util.h"
#include "tests/support/skip.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

constexpr int64_t kSegmentBytes = 4 << 20;

struct FileBlocks {
  int64_t size = 0;
  int64_t allocated = 0;  // bytes of disk blocks held
  struct timespec mtime {};
};

FileBlocks blocks_of(const std::filesystem::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return {st.st_size, static_cast<int64_t>(st.st_blocks) * 512, st.st_mtim};
}

// Why this directory's file system cannot allocate past a file's end, or ""
// when it can (ext4, xfs, tmpfs can; ramfs cannot).
std::string cannot_preallocate(const std::filesystem::path& dir) {
  auto probe = dir / "probe";
  int fd = ::open(probe.c_str(), O_CREAT | O_RDWR, 0644);
  REQUIRE(fd >= 0);
  std::string why;
  if (::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) != 0)
    why = "the file system of " + dir.string() + " cannot preallocate (fallocate: " + std::strerror(errno) + ")";
  ::close(fd);
  std::filesystem::remove(probe);
  return why;
}

std::filesystem::path log_file(const std::filesystem::path& dir, int64_t base) {
  return dir / segment_file_name(base, ".log");
}

std::shared_ptr<const LogConfig> preallocating(bool on) {
  return config_with([on](LogConfig& c) {
    c.segment_bytes = kSegmentBytes;
    c.preallocate = on;
  });
}

}  // namespace

TEST_CASE("preallocate: a new segment's blocks are held up front and given back when it rolls", "[log][preallocate]") {
  TempDir dir;
  if (auto why = cannot_preallocate(dir.path()); !why.empty()) SKIFF_SKIP_OR_FAIL_IN_CI(why);
  auto log = open_log(dir.path(), preallocating(true));
  auto first = blocks_of(log_file(dir.path(), 0));
  CHECK(first.size == 0);
  CHECK(first.allocated >= kSegmentBytes);

  std::vector<std::vector<uint8_t>> written;
  while (log->segment_count() == 1) {
    written.push_back(make_test_batch(2, 100'000, 1000));
    REQUIRE(append_tmp(*log, written.back()).has_value());
  }
  const auto bases = log->segment_base_offsets();
  auto rolled = blocks_of(log_file(dir.path(), bases[0]));
  auto active = blocks_of(log_file(dir.path(), bases[1]));
  CHECK(rolled.size <= kSegmentBytes);
  CHECK(rolled.allocated <= rolled.size + int64_t{64} * 1024);  // given back, up to the last blocks
  CHECK(active.size > 0);
  CHECK(active.allocated >= kSegmentBytes);
  CHECK(read_all_batches(*log).size() == written.size());

  log->close();
  auto closed = blocks_of(log_file(dir.path(), bases[1]));
  CHECK(closed.size == active.size);
  CHECK(closed.allocated <= closed.size + int64_t{64} * 1024);
}

TEST_CASE("preallocate: off, a new segment holds no blocks ahead", "[log][preallocate]") {
  TempDir dir;
  auto log = open_log(dir.path(), preallocating(false));
  REQUIRE(append_tmp(*log, make_test_batch(1, 1000, 1000)).has_value());
  CHECK(blocks_of(log_file(dir.path(), 0)).allocated < kSegmentBytes / 2);
}

TEST_CASE("preallocate: after a crash, recovery sees only what was written, and the blocks go at the next roll",
          "[log][preallocate][crash]") {
  TempDir dir;
  if (auto why = cannot_preallocate(dir.path()); !why.empty()) SKIFF_SKIP_OR_FAIL_IN_CI(why);
  std::vector<std::vector<uint8_t>> written;
  {
    auto log = open_log(dir.path(), preallocating(true));
    for (int i = 0; i < 5; ++i) {
      written.push_back(make_test_batch(3, 2000, 1000 + i));
      REQUIRE(append_tmp(*log, written.back()).has_value());
    }
  }  // dropped without close(): as a kill -9 leaves it
  // Restarted with preallocate off: the crashed segment's blocks are still
  // given back when it rolls, and its mtime (retention's fallback) is kept.
  auto log = open_log(dir.path(), preallocating(false));
  CHECK(log->log_end_offset().value == 15);
  CHECK(read_all_batches(*log).size() == written.size());
  const auto crashed = blocks_of(log_file(dir.path(), 0));
  CHECK(crashed.allocated >= kSegmentBytes);
  REQUIRE(outcome(log->roll(wall_clock_ms())) == LogErrc::kNone);
  const auto after = blocks_of(log_file(dir.path(), 0));
  CHECK(after.size == crashed.size);
  CHECK(after.allocated <= after.size + int64_t{64} * 1024);
  CHECK(after.mtime.tv_sec == crashed.mtime.tv_sec);
  CHECK(after.mtime.tv_nsec == crashed.mtime.tv_nsec);
}

TEST_CASE("preallocate: the topic key and log.preallocate set it, and describe says so", "[log][preallocate][config]") {
  auto topic = LogConfig::with_overrides(LogConfig{}, {{"preallocate", " TRUE "}});
  REQUIRE(topic);
  CHECK(topic->preallocate);
  CHECK(topic->effective_values().at("preallocate") == "true");
  auto broker = LogConfig::from_broker_properties({{"log.preallocate", "true"}});
  REQUIRE(broker);
  CHECK(broker->preallocate);
  auto off = LogConfig::with_overrides(*broker, {{"preallocate", "false"}});
  REQUIRE(off);
  CHECK_FALSE(off->preallocate);
  CHECK(LogConfig{}.effective_values().at("preallocate") == "false");
  CHECK_FALSE(LogConfig::from_broker_properties({{"log.preallocate", "yes"}}));
}
