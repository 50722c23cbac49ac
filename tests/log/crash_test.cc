// Crash test: a forked child appends through the Log API and reports each
// acknowledged offset on a pipe; the parent SIGKILLs it at a random moment,
// reopens the log (unclean), and checks every acknowledged batch is there,
// byte for byte, and the log is valid. 20 rounds on the same log, with and
// without fsync per write and preallocated segments.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <random>

#include "common/byte_order.h"
#include "test_util.h"

using namespace skiff;
using namespace skiff::storage;
using namespace skiff::storage::test;

namespace {

std::vector<uint8_t> batch_for_seed(uint64_t seed) {
  int count = 1 + static_cast<int>(seed % 5);
  size_t size = 50 + (seed * 7919) % 3000;
  return make_test_batch(count, size, 1000 + static_cast<int64_t>(seed % 100000), seed);
}

[[noreturn]] void child_main(const std::filesystem::path& dir, const std::shared_ptr<const LogConfig>& cfg, int fd,
                             uint64_t first_seed) {
  try {
    auto log = open_log(dir, cfg);
    for (uint64_t seed = first_seed;; ++seed) {
      auto b = batch_for_seed(seed);
      auto r = log->append(b, 1);
      if (!r.has_value()) _exit(3);
      uint8_t msg[16];
      store_be64(msg, static_cast<uint64_t>(r->base_offset.value));
      store_be64(msg + 8, seed);
      if (write(fd, msg, 16) != 16) _exit(4);
    }
  } catch (...) {
    _exit(2);
  }
}

}  // namespace

TEST_CASE("crash test: SIGKILLed writer never loses an acknowledged batch", "[log][crash]") {
  TempDir dir;
  std::mt19937 rng(99);
  std::map<int64_t, uint64_t> acked;  // base offset -> seed
  uint64_t next_seed = 1;
  for (int round = 0; round < 20; ++round) {
    // Alternate: half the rounds fsync every write, so group commit is crashed
    // too; and half preallocate their segments (blocks held past the end).
    auto cfg = config_with([&](LogConfig& c) {
      c.segment_bytes = int64_t{200} * 1024;
      c.flush_messages = (round % 2) ? 1 : LogConfig::kMaxLong;
      c.preallocate = round % 4 >= 2;
    });
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      child_main(dir.path(), cfg, fds[1], next_seed);
    }
    close(fds[1]);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(20 + rng() % 120);
    std::vector<uint8_t> buf;
    auto drain = [&](int timeout_ms) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, timeout_ms) <= 0) return false;
      uint8_t tmp[4096];
      ssize_t n = read(fds[0], tmp, sizeof tmp);
      if (n <= 0) return false;
      buf.insert(buf.end(), tmp, tmp + n);
      return true;
    };
    while (std::chrono::steady_clock::now() < deadline) drain(5);
    kill(pid, SIGKILL);
    while (drain(50)) {
    }
    int status = 0;
    waitpid(pid, &status, 0);
    close(fds[0]);
    REQUIRE(WIFSIGNALED(status));
    for (size_t i = 0; i + 16 <= buf.size(); i += 16) {
      int64_t off = static_cast<int64_t>(load_be64(&buf[i]));
      uint64_t seed = load_be64(&buf[i + 8]);
      acked[off] = seed;
      next_seed = std::max(next_seed, seed + 1);
    }
    next_seed += 1000;  // seeds of unacknowledged appends are never reused

    auto log = open_log(dir.path(), cfg);
    auto batches = read_all_batches(*log);
    std::map<int64_t, std::vector<uint8_t>> on_disk;
    int64_t expect = 0;
    for (auto& b : batches) {
      RecordBatchView v(b);
      REQUIRE(v.validate_header_and_crc());
      REQUIRE(v.base_offset() == expect);
      expect = v.next_offset();
      on_disk[v.base_offset()] = b;
    }
    REQUIRE(expect == log->log_end_offset().value);
    for (const auto& [off, seed] : acked) {
      auto it = on_disk.find(off);
      REQUIRE(it != on_disk.end());
      auto want = batch_for_seed(seed);
      RecordBatchView w(want);
      w.set_base_offset(off);
      w.set_partition_leader_epoch(1);
      REQUIRE(it->second == want);
    }
  }
  CHECK(acked.size() > 20);
}
